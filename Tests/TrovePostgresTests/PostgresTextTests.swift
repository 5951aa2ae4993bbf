import Foundation
import Testing
import Trove
import TrovePostgres
import TroveTesting

/// `[c]`, `[d]`, the string operators, `LIKE` and the string sorts on PostgreSQL, through the
/// text forms kept beside each text attribute: the answers of ``PredicateText``, computed in
/// memory over the same texts, and the forms kept current when a value changes.
@Suite(.enabled(if: PostgresServer.isConfigured, PostgresServer.skipMessage))
struct PostgresTextTests {
    /// Texts that tell byte, scalar and folded semantics apart, and LIKE's and SQL's wildcards.
    static let titles = [
        "Sunset", "sunset", "SUNSET", "Straße", "STRASSE", "café", "cafe\u{301}", "CAFÉ", "cafe", "İstanbul", "istanbul",
        "100%", "1000", "a_b", "axb", "a*b", "a?", "a\\", "back\\slash", "👩‍👩‍👧", "e\u{301}", "", "ΣΊΣΥΦΟΣ", "σίσυφος",
        "file2", "file10", "File1", "file02", "x%_\\*?y", "O'Brien", "\u{1}control", "tab\tinside", "line\nbreak",
    ]

    static let patterns = [
        "*", "?", "??", "?????", "caf?", "caf??", "CAF*", "*é", "*e\u{301}", "100%", "100*", "a_b", "a?b", "a\\*b", "a\\?",
        "a\\\\", "*\\\\*", "*%*", "*_*", "x%_\\*\\?y", "s*e", "*ss*", "*SS*", "file*", "file?", "*'*", "σ*ς", "", "\\",
        "*\n*", "tab?inside",
    ]

    private func store() throws -> (ObjectContext, TemporaryDatabase) {
        let database = try TemporaryDatabase()
        let model = try Model {
            Entity("Item") {
                Attribute("title", .string)
                Attribute("rank", .integer64)
            }
        }
        let context = try Container(store: PostgresStore(location: database.location, model: model)).newBackgroundContext()
        for (rank, title) in Self.titles.enumerated() {
            let item = try context.insert("Item")
            try item.setValue(title, forKey: "title")
            try item.setValue(Int64(rank), forKey: "rank")
        }
        let untitled = try context.insert("Item")
        try untitled.setValue(Int64(Self.titles.count), forKey: "rank")
        try context.save()
        return (context, database)
    }

    private func titles(_ context: ObjectContext, _ format: String, _ arguments: any PredicateArgument...) throws -> [String] {
        var request = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: format, arguments: arguments))
        request.sortDescriptors = try SortKey.parse("rank")
        request.includesPendingChanges = false
        return try context.fetch(request).map { try $0.value(forKey: "title").text ?? "nil" }
    }

    @Test func likeSelectsWhatPredicateTextMatches() throws {
        let (context, database) = try store()
        defer { withExtendedLifetime(database) {} }
        for options in ["", "[c]", "[d]", "[cd]"] {
            let parsed: StringOptions = [options.contains("c") ? .caseInsensitive : [], options.contains("d") ? .diacriticInsensitive : []]
            for pattern in Self.patterns {
                let expected = Self.titles.filter { PredicateText.like($0, pattern: pattern, options: parsed) }
                #expect(try titles(context, "title LIKE\(options) %@", pattern) == expected, "LIKE\(options) \(pattern.debugDescription)")
            }
        }
    }

    /// MATCHES in the subset of ICU's syntax PostgreSQL reads alike: what the in-memory ICU
    /// match selects, with and without [d]; the rest refused, never answered differently.
    @Test func matchesSelectsWhatICUMatchesOrIsRefused() throws {
        let (context, database) = try store()
        defer { withExtendedLifetime(database) {} }
        let translated = [
            ".*", ".", "..", "S.*", "[a-z]+", "[^a-z]+", "[A-Za-z]*", "caf.", "cafe.?", "caf(e|é).*", "(?:a|b).*", "a.b", "a\\*b",
            "a\\?", "100%", "a_b", "[%_*?\\\\]+.*", ".*[\\\\].*", "σ.*ς", ".*👧", "file[0-9]{1,2}", "file0?[0-9]+", "x{0}.*",
            ".+?", "[-a]+", "line.break", "tab\\tinside", "é", "e\u{301}", "(Sun|sun)set", "...?.?.?",
        ]
        for options in ["", "[d]"] {
            let parsed: StringOptions = options.isEmpty ? [] : .diacriticInsensitive
            for pattern in translated {
                let expected = try Self.titles.filter { try PredicateText.matches($0, regex: pattern, options: parsed) }
                let selected = try titles(context, "title MATCHES\(options) %@", pattern)
                #expect(selected == expected, "MATCHES\(options) \(Array(pattern.unicodeScalars)): \(selected.map { Array($0.unicodeScalars) }), in memory \(expected.map { Array($0.unicodeScalars) })")
            }
        }
        let refused = ["\\d+", "\\w+", "\\s", "^a", "a$", "(?i)a", "a*+", "[[a-z]&&[^b]]", "\\bword", "(a)\\1", "\\p{L}+"]
        for pattern in refused {
            #expect {
                try context.fetch(FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "title MATCHES %@", pattern)))
            } throws: { error in
                (error as? StoreError)?.code == .unsupportedFormat && "\(error)".contains("MATCHES")
            }
        }
    }

    @Test func stringOperatorsSelectWhatPredicateTextSelects() throws {
        let (context, database) = try store()
        defer { withExtendedLifetime(database) {} }
        let parts = ["", "s", "SS", "ß", "é", "e\u{301}", "caf", "\\", "%", "_", "👧", "σ", "ς", "İ", "i", "0", "\n"]
        for options in ["", "[c]", "[d]", "[cd]"] {
            let parsed: StringOptions = [options.contains("c") ? .caseInsensitive : [], options.contains("d") ? .diacriticInsensitive : []]
            for part in parts {
                #expect(try titles(context, "title CONTAINS\(options) %@", part) == Self.titles.filter { PredicateText.contains($0, part, options: parsed) },
                        "CONTAINS\(options) \(part.debugDescription)")
                #expect(try titles(context, "title BEGINSWITH\(options) %@", part) == Self.titles.filter { PredicateText.hasPrefix($0, part, options: parsed) },
                        "BEGINSWITH\(options) \(part.debugDescription)")
                #expect(try titles(context, "title ENDSWITH\(options) %@", part) == Self.titles.filter { PredicateText.hasSuffix($0, part, options: parsed) },
                        "ENDSWITH\(options) \(part.debugDescription)")
                #expect(try titles(context, "title ==\(options) %@", part) == Self.titles.filter { PredicateText.compare($0, part, options: parsed) == .orderedSame },
                        "==\(options) \(part.debugDescription)")
                #expect(try titles(context, "title <\(options) %@", part) == Self.titles.filter { PredicateText.compare($0, part, options: parsed) == .orderedAscending },
                        "<\(options) \(part.debugDescription)")
            }
        }
    }

    @Test func stringSortsGivePredicateTextsOrder() throws {
        let (context, database) = try store()
        defer { withExtendedLifetime(database) {} }
        func sorted(_ sort: String) throws -> [String] {
            var request = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "title != nil"), sortDescriptors: try SortKey.parse(sort + ",rank"))
            request.includesPendingChanges = false
            return try context.fetch(request).map { try $0.value(forKey: "title").text ?? "nil" }
        }
        // Stable sorts of the titles (in rank order) by each comparison: ties keep rank order, as the fetch's second key does.
        #expect(try sorted("title:localized") == Self.titles.sorted { PredicateText.localizedStandardCompare($0, $1) == .orderedAscending })
        #expect(try sorted("title:ci") == Self.titles.sorted { PredicateText.compare($0, $1, options: .caseInsensitive) == .orderedAscending })
        #expect(try sorted("title") == Self.titles.sorted { PredicateText.compare($0, $1) == .orderedAscending })
        #expect(try sorted("-title:localized") == Self.titles.sorted { PredicateText.localizedStandardCompare($0, $1) == .orderedDescending })
    }

    /// The forms follow the value: an update, a nil and a value equal to its forms.
    @Test func changedTextIsFoundByItsNewForms() throws {
        let (context, database) = try store()
        defer { withExtendedLifetime(database) {} }
        let item = try #require(try context.fetch(FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: "title == 'Straße'"))).first)
        try item.setValue("CAFÉ AU LAIT", forKey: "title")
        try context.save()
        #expect(try titles(context, "title ==[c] 'strasse'") == ["STRASSE"])
        #expect(try titles(context, "title BEGINSWITH[cd] 'cafe au'") == ["CAFÉ AU LAIT"])
        try item.setValue("plain", forKey: "title")
        try context.save()
        #expect(try titles(context, "title ==[cd] 'cafe au lait'").isEmpty)
        #expect(try titles(context, "title ==[cd] 'PLAIN'") == ["plain"])
        try item.setValue(String?.none, forKey: "title")
        try context.save()
        #expect(try titles(context, "title ==[c] 'plain'").isEmpty)
        #expect(try titles(context, "title ==[c] nil") == ["nil", "nil"])
    }

    @Test func aPatternFromAKeyPathOrMatchesWithCaseOptionIsRefusedWithATypedError() throws {
        let (context, database) = try store()
        defer { withExtendedLifetime(database) {} }
        for format in ["title LIKE title", "title MATCHES title", "title MATCHES[c] 'S.*'"] {
            #expect {
                try context.fetch(FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: format)))
            } throws: { error in
                (error as? StoreError)?.code == .unsupportedFormat && "\(error)".contains("PostgreSQL")
            }
        }
    }
}
