import Foundation
import Testing
import Trove
import TroveTesting

/// `[c]` and `[d]` beyond ASCII, in SQL and in memory alike: full case folding (`ß` is `ss`,
/// final sigma is sigma), diacritics removed, precomposed and decomposed forms equal once
/// folded, and no locale rule (`İ` folds to `i` + combining dot, which only `[d]` drops).
@Suite struct DifferentialUnicodeTests {
    struct Pair: Sendable, CustomTestStringConvertible {
        var stored: String
        var argument: String
        /// Whether `stored ==[options] argument`, for [], [c], [d], [cd].
        var equal: [Bool]
        var testDescription: String { "\(stored.debugDescription) vs \(argument.debugDescription)" }
    }

    static let pairs: [Pair] = [
        Pair(stored: "Straße", argument: "STRASSE", equal: [false, true, false, true]),
        Pair(stored: "straße", argument: "strasse", equal: [false, true, false, true]),
        Pair(stored: "İstanbul", argument: "istanbul", equal: [false, false, false, true]),
        Pair(stored: "İstanbul", argument: "i\u{307}stanbul", equal: [false, true, false, true]),
        Pair(stored: "İstanbul", argument: "Istanbul", equal: [false, false, true, true]),
        // Dotless ı upper-cases to I, which lower-cases to i (fold's upper-then-lower, no locale).
        Pair(stored: "ıstanbul", argument: "istanbul", equal: [false, true, false, true]),
        Pair(stored: "caf\u{E9}", argument: "cafe\u{301}", equal: [false, true, true, true]),
        Pair(stored: "caf\u{E9}", argument: "cafe", equal: [false, false, true, true]),
        Pair(stored: "CAF\u{C9}", argument: "cafe", equal: [false, false, false, true]),
        Pair(stored: "CAF\u{C9}", argument: "caf\u{E9}", equal: [false, true, false, true]),
        Pair(stored: "ΣΊΣΥΦΟΣ", argument: "σίσυφος", equal: [false, true, false, true]),
        Pair(stored: "\u{212A}elvin", argument: "kelvin", equal: [false, true, false, true]),
        Pair(stored: "\u{FB03}", argument: "FFI", equal: [false, true, false, true]),
        Pair(stored: "Ångström", argument: "angstrom", equal: [false, false, false, true]),
        Pair(stored: "A\u{30A}ngstro\u{308}m", argument: "\u{C5}ngstr\u{F6}m", equal: [false, true, true, true]),
        Pair(stored: "👍🏽", argument: "👍", equal: [false, false, false, false]),
        Pair(stored: "📷", argument: "📷", equal: [true, true, true, true]),
        Pair(stored: "Ǆ", argument: "ǆ", equal: [false, true, false, true]),
    ]

    static let optionSuffixes = ["", "[c]", "[d]", "[cd]"]

    @Test(arguments: pairs) func foldsAlike(_ pair: Pair) throws {
        let model = try Model {
            Entity("Word") {
                Attribute("text", .string)
            }
        }
        let decoys = ["", "x", "stra", "caf"]
        let store = try DifferentialStore(model: model) { context in
            for text in [pair.stored] + decoys {
                try context.insert("Word").setValue(text, forKey: "text")
            }
        }
        for (suffix, equal) in zip(Self.optionSuffixes, pair.equal) {
            let expected = equal ? 1 : 0
            try store.expectSameResults("Word", ObjectPredicate(format: "text ==\(suffix) %@", pair.argument), expected: expected)
            try store.expectSameResults("Word", ObjectPredicate(format: "text !=\(suffix) %@", pair.argument), expected: 4 + 1 - expected)
            try store.expectSameResults("Word", ObjectPredicate(format: "text IN\(suffix) %@", [pair.argument]), expected: expected)
            try store.expectSameResults("Word", ObjectPredicate(format: "text LIKE\(suffix) %@", pair.argument), expected: expected)
            // Equal strings contain, begin and end with each other; the others only may.
            for op in ["CONTAINS", "BEGINSWITH", "ENDSWITH"] {
                let matched = try store.expectSameResults("Word", ObjectPredicate(format: "text \(op)\(suffix) %@", pair.argument), expected: nil)
                if equal { #expect(store.labels(matched).contains(pair.stored), "\(op)\(suffix)") }
            }
            // Ordering with the same options: equal strings are neither less nor greater.
            let less = try store.expectSameResults("Word", ObjectPredicate(format: "text <\(suffix) %@", pair.argument), expected: nil)
            let greater = try store.expectSameResults("Word", ObjectPredicate(format: "text >\(suffix) %@", pair.argument), expected: nil)
            if equal { #expect(!store.labels(less + greater).contains(pair.stored), "<\(suffix) / >\(suffix)") }
        }
        // MATCHES: [c] is the regex's case-insensitivity, [d] strips diacritics first.
        try store.expectSameResults("Word", ObjectPredicate(format: "text MATCHES[cd] %@", NSRegularExpression.escapedPattern(for: pair.argument)),
                                    expected: nil)
    }
}
