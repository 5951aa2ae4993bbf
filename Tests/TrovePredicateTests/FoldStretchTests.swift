import Foundation
import Testing
import TrovePredicate
import TroveTesting

/// `PredicateText.fold` folds ASCII byte by byte and hands only the stretches that are not
/// ASCII (each with the ASCII scalar before it) to the Unicode fold: a differential test
/// against the Unicode fold of the whole text, over random texts built from the pieces where
/// folding is hard — marks after ASCII letters, runs of marks past the stream-safe limit,
/// scalars whose case mapping is several scalars or ASCII, Hangul jamo that compose.
@Suite struct FoldStretchTests {
    static let pieces: [String] = [
        "a", "E", "z", "Q", " ", "7", "-", "é", "e\u{301}", "\u{301}", "\u{316}", "\u{345}", "\u{34F}",
        "ß", "İ", "\u{212A}", "\u{212B}", "Σ", "ς", "ΐ", "ᾳ", "ﬁ", "ŉ", "ǰ", "Ǆ", "ǅ", "ệ", "Ø",
        "가", "\u{1100}", "\u{1161}", "\u{11A8}", "«", "»", "日本", "👍🏽", "\u{200D}", "Ё", "\u{308}",
        "i\u{307}", "A\u{30A}", String(repeating: "\u{301}\u{316}", count: 20),
    ]

    static func randomText(_ rng: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...12, using: &rng)).map { _ in pieces.randomElement(using: &rng) ?? "" }.joined()
    }

    @Test(arguments: [StringOptions.caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]])
    func stretchesFoldAsTheWholeText(options: StringOptions) {
        var rng = SeededGenerator(seed: 2026_12_07)
        for _ in 0..<3_000 {
            let text = Self.randomText(&rng)
            let folded = PredicateText.fold(text, options: options)
            let whole = PredicateText.foldScalars(text, options: options)
            #expect(Array(folded.unicodeScalars) == Array(whole.unicodeScalars), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    /// Stretch folds are remembered, up to a limit: past it, and folded again, each text still
    /// gets its own fold.
    @Test func rememberedFoldsStayRightPastTheLimit() {
        let texts = (0..<(PredicateText.stretchCacheLimit + 500)).compactMap { Unicode.Scalar(0x100 + $0).map { "Ab\($0)c" } }
        for _ in 0..<2 {
            for text in texts {
                let folded = PredicateText.fold(text, options: .caseInsensitive)
                #expect(Array(folded.unicodeScalars) == Array(PredicateText.foldScalars(text, options: .caseInsensitive).unicodeScalars), "\(text)")
            }
        }
    }

    /// The edges of a stretch: a mark after the ASCII letter it belongs to, text that starts or
    /// ends outside ASCII, ASCII between two stretches.
    @Test(arguments: [
        ("Cafe\u{301} au lait", [StringOptions.caseInsensitive, .diacriticInsensitive], "cafe au lait"),
        ("Cafe\u{301}", [.caseInsensitive], "caf\u{E9}"),
        ("ÉCOLE", [.caseInsensitive], "\u{E9}cole"),
        ("STRAßE", [.caseInsensitive], "strasse"),
        ("A\u{30A}B\u{308}C", [.diacriticInsensitive], "ABC"),
        ("x\u{345}Y", [.caseInsensitive], "x\u{3B9}y"),
    ] as [(String, StringOptions, String)])
    func edgesOfAStretch(text: String, options: StringOptions, expected: String) {
        #expect(Array(PredicateText.fold(text, options: options).unicodeScalars) == Array(expected.unicodeScalars))
    }
}
