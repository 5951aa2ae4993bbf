import Foundation
import Testing
import Trove
import TroveTesting

/// Values that would break a query built by splicing text: stored, then used as arguments.
/// They must match literally, in SQL and in memory alike, and never alter the statement.
@Suite struct DifferentialHostileTests {
    static let longString = String(repeating: "x", count: 100_000) + "'; DROP TABLE Photo; --"

    static let hostile: [String] = [
        "'", "\"", "''", "'; DROP TABLE Photo; --", "\"; DROP TABLE \"Photo\"; --", "Robert'); DROP TABLE Photo;--",
        "' OR '1'='1", "%", "_", "*", "?", "%_*?", "\\", "\\\\", "\\'", "a\u{0}b", "\u{0}", "🧨💥", "e\u{301}",
        "$VARIABLE", "%@", "%K", "[c]", "?1", ":name", "\n\t\r", longString,
    ]

    /// Decoys that the hostile values must not match: what a wildcard or a truncation at NUL
    /// would match instead.
    static let decoys = ["", "a", "ab", "b", "x", "anything", "1", "Photo", "e", "é", "OR"]

    static func makeStore() throws -> DifferentialStore {
        let model = try Model {
            Entity("Photo") {
                Attribute("title", .string)
                Attribute("views", .integer64)
            }
        }
        return try DifferentialStore(model: model) { context in
            for (index, title) in (hostile + decoys).enumerated() {
                let photo = try context.insert("Photo")
                try photo.setValue(title, forKey: "title")
                try photo.setValue(Int64(index), forKey: "views")
            }
        }
    }

    /// The hostile value, and a short name for the test's label.
    struct Value: Sendable, CustomTestStringConvertible {
        var text: String
        var testDescription: String {
            text.count > 30 ? "\(text.count) characters" : text.debugDescription
        }
    }

    @Test(arguments: hostile.map(Value.init))
    func matchesLiterally(_ value: Value) throws {
        let store = try Self.makeStore()
        let all = Self.hostile + Self.decoys
        let s = value.text
        func bytesContain(_ haystack: String, _ needle: String) -> Bool {
            let h = Array(haystack.utf8), n = Array(needle.utf8)
            guard !n.isEmpty else { return true }
            guard n.count <= h.count else { return false }
            return (0...(h.count - n.count)).contains { Array(h[$0..<($0 + n.count)]) == n }
        }
        let cases: [(String, [any PredicateArgument], Int)] = [
            ("title = %@", [s], 1),
            ("title == %@ AND views >= 0", [s], 1),
            ("%K = %@", ["title", s], 1),
            ("title != %@", [s], all.count - 1),
            ("title IN %@", [[s, "no such title"]], 1),
            ("title BEGINSWITH %@", [s], all.filter { $0.utf8.starts(with: s.utf8) }.count),
            ("title ENDSWITH %@", [s], all.filter { $0.utf8.reversed().starts(with: s.utf8.reversed()) }.count),
            ("title CONTAINS %@", [s], all.filter { bytesContain($0, s) }.count),
            ("title MATCHES %@", [NSRegularExpression.escapedPattern(for: s)], 1),
            ("title = $T", [], 1),
        ]
        for (format, arguments, expected) in cases {
            var predicate = try ObjectPredicate(format: format, arguments: arguments)
            if format.contains("$T") { predicate = predicate.substituting(["T": s]) }
            try store.expectSameResults("Photo", predicate, expected: expected)
        }
        // The table is still there, whole.
        #expect(try store.context.count(for: FetchRequest(entityName: "Photo")) == all.count)
        #expect(try store.container.newBackgroundContext().count(for: FetchRequest(entityName: "Photo")) == all.count)
    }

    /// A hostile value given where a key path goes is an error naming the key, never SQL.
    @Test func hostileKeyPathIsRejected() throws {
        let store = try Self.makeStore()
        for key in ["title; DROP TABLE Photo", "title\" = \"title", "ti'tle", "title--"] {
            #expect(throws: (any Error).self) {
                try store.context.fetch(FetchRequest(entityName: "Photo", predicate: try ObjectPredicate(format: "%K = 1", key)))
            }
        }
        #expect(try store.context.count(for: FetchRequest(entityName: "Photo")) == Self.hostile.count + Self.decoys.count)
    }

    /// LIKE: `*` and `?` are the wildcards, escaped with a backslash; SQL's `%` and `_` are
    /// plain characters. `?` is one Unicode scalar: the one-character title of two scalars is
    /// not matched by it.
    @Test func likeWildcardsAndEscapes() throws {
        let store = try Self.makeStore()
        let cases: [(String, Int)] = [
            ("%", 1), ("_", 1), ("\\*", 1), ("\\?", 1), ("%_\\*\\?", 1), ("\\\\", 1), ("?", 14), ("*%*", 4),
            ("*_*", 2), ("a\u{0}b", 1), ("a?b", 1), ("'*", 4), ("*DROP TABLE*", 4),
        ]
        for (pattern, expected) in cases {
            try store.expectSameResults("Photo", ObjectPredicate(format: "title LIKE %@", pattern), expected: expected)
        }
    }
}
