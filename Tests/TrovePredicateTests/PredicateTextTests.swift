import Foundation
import Testing
import TrovePredicate
import TroveTesting

/// The shared string functions: folding beyond ASCII, LIKE, MATCHES, ordering.
struct PredicateTextTests {
    @Test(arguments: [
        ("Straße", [StringOptions.caseInsensitive], "strasse"),
        ("STRASSE", [.caseInsensitive], "strasse"),
        ("İstanbul", [.caseInsensitive], "i\u{307}stanbul"),
        ("İstanbul", [.caseInsensitive, .diacriticInsensitive], "istanbul"),
        ("ΟΔΟΣ", [.caseInsensitive], "οδοσ"),
        ("οδος", [.caseInsensitive], "οδοσ"),
        ("ﬁnance", [.caseInsensitive], "finance"),
        ("\u{212A}elvin", [.caseInsensitive], "kelvin"),
        ("Café", [.diacriticInsensitive], "Cafe"),
        ("Cafe\u{301}", [.diacriticInsensitive], "Cafe"),
        ("Cafe\u{301}", [.caseInsensitive], "caf\u{E9}"),
        ("Ångström", [.caseInsensitive, .diacriticInsensitive], "angstrom"),
        ("ÀÉÎÕÜ", [.caseInsensitive, .diacriticInsensitive], "aeiou"),
        ("Øresund", [.caseInsensitive, .diacriticInsensitive], "øresund"),
        ("Ελληνικά", [.caseInsensitive, .diacriticInsensitive], "ελληνικα"),
        ("Hello", [], "Hello"),
        ("HELLO 42!", [.caseInsensitive], "hello 42!"),
        ("HELLO", [.diacriticInsensitive], "HELLO"),
        ("👩‍👩‍👧 ABC", [.caseInsensitive], "👩‍👩‍👧 abc"),
    ] as [(String, StringOptions, String)])
    func fold(text: String, options: StringOptions, expected: String) {
        let folded = PredicateText.fold(text, options: options)
        #expect(Array(folded.unicodeScalars) == Array(expected.unicodeScalars))
    }

    @Test func foldingMakesCanonicalEquivalentsEqual() {
        #expect(PredicateText.compare("Café", "Cafe\u{301}") != .orderedSame)
        #expect(PredicateText.compare("Café", "CAFE\u{301}", options: .caseInsensitive) == .orderedSame)
        #expect(PredicateText.compare("Straße", "STRASSE", options: .caseInsensitive) == .orderedSame)
        #expect(PredicateText.compare("Straße", "STRASSE") == .orderedDescending)
    }

    @Test(arguments: [
        ("abc", "abc", [], true),
        ("abc", "a*", [], true),
        ("abc", "*c", [], true),
        ("abc", "*b*", [], true),
        ("abc", "a?c", [], true),
        ("abc", "a??c", [], false),
        ("abc", "ab", [], false),
        ("", "*", [], true),
        ("", "?", [], false),
        ("ABC", "a*", [], false),
        ("ABC", "a*", [.caseInsensitive], true),
        ("Straße", "STRA*SE", [.caseInsensitive], true),
        ("Café", "cafe", [.caseInsensitive, .diacriticInsensitive], true),
        ("é", "?", [], true),
        // Unicode scalars, as SQL's LIKE counts: a character of several scalars is several `?`.
        ("e\u{301}", "?", [], false),
        ("e\u{301}", "??", [], true),
        ("e\u{301}", "?", [.caseInsensitive], true),
        ("👩‍👩‍👧", "?", [], false),
        ("👩‍👩‍👧", "?????", [], true),
        ("e\u{301}x", "e*", [], true),
        ("100%", "100%", [], true),
        ("1000", "100%", [], false),
        ("a_b", "a_b", [], true),
        ("axb", "a_b", [], false),
        ("a*b", "a\\*b", [], true),
        ("axb", "a\\*b", [], false),
        ("a?", "a\\?", [], true),
        ("a\\", "a\\", [], true),
        ("mississippi", "*sip*", [], true),
        ("mississippi", "m*iss*ppi", [], true),
        ("mississippi", "m*x*", [], false),
    ] as [(String, String, StringOptions, Bool)])
    func like(value: String, pattern: String, options: StringOptions, expected: Bool) {
        #expect(PredicateText.like(value, pattern: pattern, options: options) == expected)
    }

    @Test func likeIsLinearEnoughForLongHostileInput() {
        let value = String(repeating: "a", count: 10_000)
        #expect(!PredicateText.like(value, pattern: String(repeating: "*a", count: 50) + "b", options: []))
        #expect(PredicateText.like(value, pattern: "*a*a*", options: .caseInsensitive))
    }

    @Test(arguments: [
        ("abc", "abc", [], true),
        ("abc", "b", [], false),
        ("abc", "a|ab|abc", [], true),
        ("ab", "a|ab", [], true),
        ("ABC", "[a-z]+", [], false),
        ("ABC", "[a-z]+", [.caseInsensitive], true),
        ("Café", "Cafe", [.diacriticInsensitive], true),
        ("line\nbreak", "line.break", [], false),
        ("abc\n", "abc", [], false),
        ("abc", "a)|(b", [], false),
        ("abc", "(", [], false),
        ("Straße", "stra(ss|ß)e", [.caseInsensitive], true),
    ] as [(String, String, StringOptions, Bool)])
    func matches(value: String, regex: String, options: StringOptions, expected: Bool) throws {
        #expect(try PredicateText.matches(value, regex: regex, options: options) == expected)
    }

    /// ICU stops such a match without an error; answering "no match" would be wrong (the
    /// second alternative matches), so the match throws.
    @Test func catastrophicBacktrackingThrowsInsteadOfAnsweringNo() throws {
        let value = String(repeating: "a", count: 30) + "!"
        let error = #expect(throws: ObjectPredicateError.self) {
            try PredicateText.matches(value, regex: "((a+)+c)|a*!", options: [])
        }
        #expect(error?.code == .regexGaveUp)
        #expect(error?.message.contains("gave up after 5000000 steps on a value of 31 UTF-16 units") == true)
        #expect(error?.description.hasPrefix("predicate evaluation failed: the regular expression \"((a+)+c)|a*!\"") == true)
        // A shorter value is decided within the budget, and matches.
        #expect(try PredicateText.matches(String(repeating: "a", count: 12) + "!", regex: "((a+)+c)|a*!", options: []))
    }

    @Test func aBacktrackingStackThatRunsOutThrows() {
        let error = #expect(throws: ObjectPredicateError.self) {
            try PredicateText.matches(String(repeating: "a", count: 1_000_000), regex: "(a|b)*", options: [])
        }
        #expect(error?.code == .regexGaveUp)
        #expect(error?.message.contains("ran out of backtracking stack") == true)
    }

    @Test func compiledPatternsAreBoundedByCount() throws {
        for index in 0..<(RegexMatcher.cacheCapacity + 50) {
            #expect(try PredicateText.matches("x\(index)", regex: "x\(index)", options: []))
        }
        #expect(RegexMatcher.cachedPatternCount <= RegexMatcher.cacheCapacity)
    }

    @Test func aPatternIsAtMostTheLongestThatIsCompiledOnce() throws {
        let longest = String(repeating: "a", count: RegexMatcher.maximumPatternLength)
        #expect(RegexMatcher.problem(with: longest) == nil)
        #expect(try PredicateText.matches(longest, regex: longest, options: []))
        let tooLong = longest + "a"
        let limit = RegexMatcher.maximumPatternLength
        #expect(RegexMatcher.problem(with: tooLong)?.contains("is \(limit + 1) UTF-16 units long, over the \(limit) a pattern may have") == true)
        // One read from a value (not checked before) fails the evaluation rather than matching nothing.
        let error = #expect(throws: ObjectPredicateError.self) { try PredicateText.matches(tooLong, regex: tooLong, options: []) }
        #expect(error?.code == .tooLarge)
    }

    /// Foundation keeps a copy of each pattern over 256 UTF-16 units it compiles: checking a
    /// pattern and matching it many times must compile it once, so memory does not grow per row.
    @Test func aLongPatternIsCompiledOnceForCheckingAndMatching() throws {
        let pattern = "(" + String(repeating: "ab", count: 200) + ")|x\\d+"
        let compilations = try RegexMatcher.compilations(of: pattern) { () throws -> Void in
            #expect(RegexMatcher.problem(with: pattern) == nil)
            for index in 0..<1_000 {
                #expect(try PredicateText.matches("x\(index)", regex: pattern, options: []))
            }
            #expect(RegexMatcher.problem(with: pattern) == nil)
        }
        // Once alone (so that `a)|(b` cannot pair with the anchoring group), once anchored: 2.
        // Tests running at the same time share the bounded cache and may push the pattern out
        // once or twice; compiled per row, it would be 2,000 or more.
        #expect((2...6).contains(compilations), "checked and matched from the cache, not per row: \(compilations)")
    }

    @Test func localizedStandardOrder() {
        let names = ["file10", "File2", "file1", "éclair", "Eclair", "apple", "file02", "Zebra", ""]
        let sorted = names.sorted { PredicateText.localizedStandardCompare($0, $1) == .orderedAscending }
        #expect(sorted == ["", "apple", "Eclair", "éclair", "file1", "File2", "file02", "file10", "Zebra"])
    }

    /// The sort key's byte order, its ties broken by the texts' bytes, is
    /// localizedStandardCompare's order: every pair of 3,000 random texts built from pieces that
    /// differ in case, accents, digit runs (leading zeros, long runs) and byte order around digits.
    @Test func localizedSortKeyOrdersAsLocalizedStandardCompare() {
        let pieces = ["a", "B", "é", "e\u{301}", "E", "0", "1", "9", "00", "007", "12", "123456789", "1234567890123", "ß", "SS",
                      " ", "/", ":", "z", "İ", "ı", "~", "😀", "x"]
        var generator = SeededGenerator(seed: 22)
        func text() -> String {
            (0..<Int.random(in: 0...5, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
        }
        func bytes(_ a: String, _ b: String) -> ComparisonResult {
            if a.utf8.elementsEqual(b.utf8) { return .orderedSame }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? .orderedAscending : .orderedDescending
        }
        for _ in 0..<3_000 {
            let a = text(), b = text()
            let byKey = bytes(PredicateText.localizedStandardSortKey(a), PredicateText.localizedStandardSortKey(b))
            let expected = PredicateText.localizedStandardCompare(a, b)
            #expect((byKey == .orderedSame ? bytes(a, b) : byKey) == expected, "\(a.debugDescription) against \(b.debugDescription)")
        }
    }

    /// Canonically equivalent patterns are two patterns: ICU matches `"é"` and `"e\u{301}"` by
    /// their scalars, and the cache of compiled patterns keeps them apart.
    @Test func canonicallyEquivalentPatternsMatchByTheirOwnScalars() throws {
        #expect(try !PredicateText.matches("e\u{301}", regex: "\u{E9}", options: []))
        #expect(try PredicateText.matches("e\u{301}", regex: "e\u{301}", options: []))
        #expect(try PredicateText.matches("\u{E9}", regex: "\u{E9}", options: []))
        #expect(try !PredicateText.matches("\u{E9}", regex: "e\u{301}", options: []))
    }

    @Test func predicatesUseTheSameFolding() throws {
        let library = try PhotoLibrary()
        #expect(try library.ids("Photo", "title CONTAINS[c] %@", "STRASSE") == ["p1"])
        #expect(try library.ids("Photo", "title CONTAINS %@", "STRASSE") == [])
        #expect(try library.ids("Photo", "title BEGINSWITH[c] %@", "i\u{307}stanbul") == ["p4"])
        #expect(try library.ids("Photo", "title BEGINSWITH[c] %@", "istanbul") == [])
        #expect(try library.ids("Photo", "title BEGINSWITH[cd] %@", "ISTANBUL") == ["p4"])
        #expect(try library.ids("Photo", "title ==[d] %@", "Cafe Noir") == ["p2"])
        #expect(try library.ids("Photo", "title ==[d] %@", "Cafe\u{301} Noir") == ["p2"])
        #expect(try library.ids("Photo", "title == %@", "Cafe\u{301} Noir") == [])
        #expect(try library.ids("Photo", "title LIKE[cd] %@", "*STRASSE") == ["p1"])
    }
}
