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

    /// MATCHES with every option selects what the in-memory ICU match selects: the subset of
    /// ICU's syntax PostgreSQL reads alike as PostgreSQL's `~`, the rest (and `[c]`) by matching
    /// the column's texts first.
    @Test func matchesSelectsWhatICUMatches() throws {
        let (context, database) = try store()
        defer { withExtendedLifetime(database) {} }
        let translated = [
            ".*", ".", "..", "S.*", "[a-z]+", "[^a-z]+", "[A-Za-z]*", "caf.", "cafe.?", "caf(e|é).*", "(?:a|b).*", "a.b", "a\\*b",
            "a\\?", "100%", "a_b", "[%_*?\\\\]+.*", ".*[\\\\].*", "σ.*ς", ".*👧", "file[0-9]{1,2}", "file0?[0-9]+", "x{0}.*",
            ".+?", "[-a]+", "line.break", "tab\\tinside", "é", "e\u{301}", "(Sun|sun)set", "...?.?.?",
        ]
        // Beyond what PostgreSQL reads alike: matched in Swift.
        let readFirst = ["\\d+", "\\w+", "\\s", "^a", "a$", "(?i)s.*", "a*+", "[[a-z]&&[^b]]", "\\bsun.*", "(a)\\1", "\\p{L}+",
                         "strasse", "STRASSE", "İstanbul", "σίσυφος", "CAFÉ", "file\\d+", ".*\\s.*"]
        for options in ["", "[c]", "[d]", "[cd]"] {
            let parsed: StringOptions = [options.contains("c") ? .caseInsensitive : [], options.contains("d") ? .diacriticInsensitive : []]
            for pattern in translated + readFirst {
                // Compared scalar by scalar: Swift's == holds "café" and "cafe\u{301}" equal.
                let matched = try Self.titles.map { try PredicateText.matches($0, regex: pattern, options: parsed) }
                let expected = zip(Self.titles, matched).filter(\.1).map { Array($0.0.unicodeScalars) }
                let selected = try titles(context, "title MATCHES\(options) %@", pattern).map { Array($0.unicodeScalars) }
                #expect(selected == expected, "MATCHES\(options) \(Array(pattern.unicodeScalars)): \(selected), in memory \(expected)")
                let unmatched = zip(Self.titles, matched).filter { !$0.1 }.map { Array($0.0.unicodeScalars) } + [Array("nil".unicodeScalars)]
                let negated = try titles(context, "NOT (title MATCHES\(options) %@)", pattern).map { Array($0.unicodeScalars) }
                #expect(negated == unmatched, "NOT MATCHES\(options) \(pattern.debugDescription)")
            }
        }
    }

    /// A MATCHES that needs the texts read first works through a to-one key path, and is
    /// refused on a derived value, which has no column to read.
    @Test func matchesReadingTextsFirstFollowsKeyPathsAndRefusesDerivedValues() throws {
        let database = try TemporaryDatabase()
        defer { withExtendedLifetime(database) {} }
        let model = try Model {
            Entity("Owner") {
                Attribute("name", .string)
                Relationship("items", to: "Item", toMany: true, inverse: "owner")
            }
            Entity("Item") {
                Attribute("title", .string)
                Attribute("ownerName", .string, derivation: "owner.name")
                Relationship("owner", to: "Owner", inverse: "items")
            }
        }
        let context = try Container(store: PostgresStore(location: database.location, model: model)).newBackgroundContext()
        for (name, titles) in [("Ada", ["a1", "a2"]), ("ADAM", ["m1"]), ("Grace", ["g1"])] {
            let owner = try context.insert("Owner")
            try owner.setValue(name, forKey: "name")
            for title in titles {
                let item = try context.insert("Item")
                try item.setValue(title, forKey: "title")
                _ = try item.setRelatedObject(owner, forKey: "owner")
            }
        }
        try context.save()
        func titles(_ format: String) throws -> [String] {
            var request = FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: format), sortDescriptors: try SortKey.parse("title"))
            request.includesPendingChanges = false
            return try context.fetch(request).map { try $0.value(forKey: "title").text ?? "nil" }
        }
        #expect(try titles("owner.name MATCHES[c] 'ada'") == ["a1", "a2"])
        #expect(try titles("owner.name MATCHES[c] 'ada.*' AND title MATCHES '\\\\w\\\\d'") == ["a1", "a2", "m1"])
        #expect(try titles("NOT (owner.name MATCHES '\\\\p{Lu}+')") == ["a1", "a2", "g1"])
        #expect(try context.count(for: FetchRequest(entityName: "Owner", predicate: ObjectPredicate(format: "ANY items.title MATCHES[c] 'A\\\\d'"))) == 1)
        #expect {
            try titles("ownerName MATCHES[c] 'ada'")
        } throws: { error in
            (error as? StoreError)?.code == .unsupportedFormat && "\(error)".contains("stored text attribute")
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

    @Test func aPatternFromAKeyPathIsRefusedWithATypedError() throws {
        let (context, database) = try store()
        defer { withExtendedLifetime(database) {} }
        for format in ["title LIKE title", "title MATCHES title", "title MATCHES[c] title"] {
            #expect {
                try context.fetch(FetchRequest(entityName: "Item", predicate: try ObjectPredicate(format: format)))
            } throws: { error in
                (error as? StoreError)?.code == .unsupportedFormat && "\(error)".contains("PostgreSQL")
            }
        }
    }
}
