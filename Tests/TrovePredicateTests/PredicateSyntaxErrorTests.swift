import Foundation
import Testing
import TrovePredicate

/// Syntax and argument errors: message, column, and the caret drawn under the predicate.
struct PredicateSyntaxErrorTests {
    @Test func caretUnderTheColumn() {
        let error = #expect(throws: ObjectPredicateError.self) { try ObjectPredicate(format: "title = AND views > 3") }
        #expect(error?.code == .syntax)
        #expect(error?.column == 9)
        #expect(error?.description == """
            syntax error at column 9: expected a value after '=', found 'AND'
              title = AND views > 3
                      ^
            """)
    }

    @Test(arguments: [
        ("", 1, "the predicate is empty (write TRUEPREDICATE to match everything)"),
        ("   ", 4, "the predicate is empty (write TRUEPREDICATE to match everything)"),
        ("title =", 8, "expected a value after '=', but the predicate ends"),
        ("title", 6, "expected an operator (=, !=, <, >, CONTAINS, IN, …) after 'title', but the predicate ends"),
        ("whoTook.name 'x'", 14, "expected an operator (=, !=, <, >, CONTAINS, IN, …) after 'whoTook.name', found ''x''"),
        ("title = 'x' views > 3", 13, "unexpected 'views' after a complete condition (join conditions with AND or OR)"),
        ("(title = 'x'", 13, "expected ')' to close the '(' at column 1, but the predicate ends"),
        ("title = 'x')", 12, "unexpected ')' after a complete condition (join conditions with AND or OR)"),
        ("title = 'abc", 9, "unterminated string: add the closing '"),
        (#"title = "a\qb""#, 11, #"unknown escape '\q' in a string (use \\ for a backslash)"#),
        (#"title = "\u12""#, 10, #"'\u' must be followed by four hex digits naming a Unicode scalar"#),
        (#"title = "\uD800x""#, 10, #"'\u' must be followed by four hex digits naming a Unicode scalar"#),
        ("title CONTAINS[x] 'a'", 16, "unknown option 'x' (use [c], [d] or [cd])"),
        ("title CONTAINS[c 'a'", 18, "expected ']' after the options, found ''a''"),
        ("views > 1 +", 11, "unexpected '+' after a complete condition (join conditions with AND or OR)"),
        ("views = 3 + 4", 11, "unexpected '+' after a complete condition (join conditions with AND or OR)"),
        ("views = - x", 11, "expected a number after '-' (arithmetic is not supported), found 'x'"),
        ("first = 1", 1, "'first' is a reserved word: write #first for a key of that name"),
        ("whoTook.size = 1", 9, "'size' is a reserved word: write #size for a key of that name"),
        ("views IN {1, 2", 15, "expected ',' or '}' to close the '{' at column 10, but the predicate ends"),
        ("photos.@median.views > 1", 8, "unknown function @median (use @count, @sum, @avg, @min or @max)"),
        ("photos.@count.views > 1", 8, "@count takes no key after it"),
        ("photos.@avg > 1", 8, "@avg needs the key to aggregate, as in photos.@avg.views"),
        ("@count > 1", 1, "@count must follow a to-many key path, as in photos.@count"),
        ("SUBQUERY(photos, $p, $p.views > 1) > 0", 1, "a SUBQUERY is a collection: follow it with .@count, as in SUBQUERY(…).@count > 0"),
        ("SUBQUERY(photos, p, p.views > 1).@count > 0", 18, "expected a variable such as $x after the SUBQUERY's key path, found 'p'"),
        ("$x.views > 1", 1, "$x is not a SUBQUERY variable, so it cannot start a key path"),
        ("title = %x", 9, "unknown format specifier '%x' (use %@ for a value, %K for a key path)"),
        ("title = ~", 9, "unexpected character '~'"),
        ("title = 'a' AND", 16, "expected a condition after 'AND', but the predicate ends"),
        ("title = 'a' ||", 15, "expected a condition after '||', but the predicate ends"),
        ("NOT", 4, "expected a condition after 'NOT', but the predicate ends"),
        ("whoTook. = 1", 10, "expected a key after '.', found '='"),
        ("views = 0x", 9, "expected digits after '0x'"),
        ("views = 0xFFFFFFFFFFFFFFFFFF", 9, "the number 0xFFFFFFFFFFFFFFFFFF is too large"),
        ("when = CAST('x', 'NSString')", 8, "CAST supports only CAST(<seconds since 2001-01-01>, \"NSDate\")"),
    ])
    func syntaxErrors(format: String, column: Int, message: String) {
        let error = #expect(throws: ObjectPredicateError.self) { try ObjectPredicate(format: format) }
        #expect(error?.code == .syntax)
        #expect(error?.message == message)
        #expect(error?.column == column)
        #expect(error?.source == format)
    }

    @Test func caretCountsCharactersOfTheTextBeforeIt() {
        let error = #expect(throws: ObjectPredicateError.self) { try ObjectPredicate(format: "titre = \"é\u{301}\" ~") }
        #expect(error?.column == 14)
        #expect(error?.description.hasSuffix("\n  titre = \"é\u{301}\" ~\n              ^") == true)
    }

    @Test(arguments: [
        ("title = %@", [AttributeValue](), 9, "missing argument for %@ (it is argument 1; 0 given)"),
        ("title = %@", ["a", "b"], nil, "2 arguments given, but the format uses 1"),
        ("views = %d", ["3"], 9, "%d needs an integer, got a string (argument 1)"),
        ("views = %f", ["3"], 9, "%f needs a number, got a string (argument 1)"),
        ("title = %s", [3], 9, "%s needs a string, got an integer (argument 1)"),
        ("%K = 1", [3], 1, "%K needs a key path given as a String (argument 1)"),
        ("%K = 1", ["a..b"], 1, "the %K argument \"a..b\" is not a key path"),
    ] as [(String, [AttributeValue], Int?, String)])
    func argumentErrors(format: String, arguments: [AttributeValue], column: Int?, message: String) {
        let error = #expect(throws: ObjectPredicateError.self) { try ObjectPredicate(format: format, arguments: arguments) }
        #expect(error?.code == .argument)
        #expect(error?.message == message)
        #expect(error?.column == column)
    }

    @Test(arguments: [("", "("), ("", "NOT "), ("", "!"), ("a IN ", "{"), ("", "SUBQUERY(p, $p, ")])
    func deepNestingIsAnErrorNotAStackOverflow(prefix: String, opener: String) {
        let format = prefix + String(repeating: opener, count: 100_000) + "a = 1"
        let error = #expect(throws: ObjectPredicateError.self) { try ObjectPredicate(format: format) }
        #expect(error?.code == .tooLarge)
        #expect(error?.message == "the predicate nests deeper than 100 levels; write it with less nesting")
        let fine = String(repeating: "(", count: 99) + "a = 1" + String(repeating: ")", count: 99)
        #expect(throws: Never.self) { try ObjectPredicate(format: fine) }
    }

    /// Garbage never crashes: every prefix of some predicates, and random bytes, parse or throw.
    @Test func garbageThrowsInsteadOfCrashing() {
        let samples = [
            #"SUBQUERY(photos, $p, ANY $p.tags.name ==[cd] "x\u00e9" AND $p.views BETWEEN {1, 2}).@avg.views > -0.5"#,
            #"NOT (whoTook.name LIKE[c] 'a*?' OR %K IN %@) && !(#first = 0x1F)"#,
        ]
        for sample in samples {
            var prefix = ""
            for character in sample {
                prefix.append(character)
                _ = try? ObjectPredicate(format: prefix, "title", [1, 2])
            }
        }
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"()[]{}.,$%@#'"\ =<>!&|*?-+0123456789abcANDORNOTSUBQUERY@count"#) + ["\u{0}", "é", "\u{301}", "😀"]
        for _ in 0..<2000 {
            let length = Int.random(in: 0..<40, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
            _ = try? ObjectPredicate(format: text, "x")
        }
    }
}
