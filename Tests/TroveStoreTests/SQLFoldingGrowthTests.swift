import Foundation
import Testing
import TroveModel
import TrovePredicate
import TroveStore
import TroveTesting

/// The store's SQL functions (`trove_fold`, `trove_contains`, `trove_like`, the
/// `trove_localized` collation) cost work in proportion to the text, as the in-memory evaluator
/// does (`FoldingGrowthTests`): counted, not timed. A file store reads on the caller's thread,
/// so the SQLite functions count into the test's counter.
@Suite struct SQLFoldingGrowthTests {
    /// Text of about `length` characters, mostly not ASCII, with no `z`.
    static func text(_ length: Int) -> String {
        let unit = "Ünïcödé Straße e\u{301}\u{308} ΟΔΟΣ Ёлка "
        return String(repeating: unit, count: max(length / unit.count, 1))
    }

    /// The work of running `predicate` (or sorting by `sort`) over two photographers whose names
    /// are `text(length)` and its upper-case form, in a store of their own; `matching` of them
    /// must be found.
    static func work(length: Int, predicate: ObjectPredicate? = nil, sort: String? = nil, matching: Int = 2) throws -> Int {
        let dir = try TemporaryDirectory()
        let store = try SQLiteStore(url: dir.file("s.trove"), model: SampleModels.photos())
        let entity = try #require(store.model.entity(named: "Photographer"))
        let names = [text(length), text(length).uppercased()]
        _ = try store.save(ChangeSet(inserts: names.enumerated().map { index, name in
            .init(objectID: .temporary(entity: entity), values: [.string("p\(index)"), .string(name)])
        }))
        let request = FetchRequest(entityName: "Photographer", predicate: predicate, sortDescriptors: try sort.map(SortKey.parse) ?? [])
        let counter = PredicateText.WorkCounter()
        let rows = try PredicateText.$work.withValue(counter) { try store.fetch(StoreQuery(request, model: store.model)) }
        #expect(rows.count == matching)
        return counter.count
    }

    @Test(arguments: [
        ("name ==[c] %@", true),
        ("name ==[cd] %@", true),
        ("name CONTAINS[c] 'ZZZ'", false),
        ("name CONTAINS[cd] 'ÉLKAZ'", false),
        ("name BEGINSWITH[c] 'ÜNÏCÖDÉ STRASSE Z'", false),
        ("name ENDSWITH[cd] 'ЕЛКАZ'", false),
        ("name LIKE[c] '*STRASSE*Z'", false),
        ("name LIKE[cd] 'ü*ÉLKA ?'", false),
    ])
    func comparisonWorkGrowsLinearly(format: String, comparesWithTheText: Bool) throws {
        func work(_ length: Int) throws -> Int {
            let predicate = try ObjectPredicate(format: format, arguments: comparesWithTheText ? [Self.text(length).lowercased()] : [])
            return try Self.work(length: length, predicate: predicate, matching: comparesWithTheText ? 2 : 0)
        }
        let small = try work(4_000), large = try work(32_000)
        #expect(small > 4_000, "the SQL functions counted their work")
        let ratio = Double(large) / Double(small)
        #expect((7.5...8.5).contains(ratio), "\(format): work \(small) → \(large) for 8× the text (×\(ratio))")
    }

    @Test(arguments: ["name:ci", "-name:ci", "name:localized"])
    func sortWorkGrowsLinearly(key: String) throws {
        let small = try Self.work(length: 4_000, sort: key), large = try Self.work(length: 32_000, sort: key)
        #expect(small > 4_000, "the SQL functions counted their work")
        let ratio = Double(large) / Double(small)
        #expect((7.5...8.5).contains(ratio), "\(key): work \(small) → \(large) for 8× the text (×\(ratio))")
    }
}
