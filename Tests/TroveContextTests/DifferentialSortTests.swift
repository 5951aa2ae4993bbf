import Foundation
import Testing
import Trove
import TroveTesting

/// SQL `ORDER BY` against the in-memory order (`[CheckedSortKey].compare`, the primary key
/// breaking ties), over ``DifferentialDataSet``: the same sequence, and the same windows.
@Suite struct DifferentialSortTests {
    struct SortCase: Sendable, CustomTestStringConvertible {
        var entity: String
        var sort: String
        var testDescription: String { "\(entity) by \(sort)" }
    }

    static let orders = DifferentialPredicates.sorts.map { SortCase(entity: $0.entity, sort: $0.sort) }

    @Test(arguments: orders) func sameOrder(_ test: SortCase) throws {
        let store = try DifferentialStore()
        let descriptors = try SortKey.parse(test.sort)
        let sql = try store.sqlObjects(FetchRequest(entityName: test.entity, sortDescriptors: descriptors))
        let memory = try store.memorySorted(store.allObjects(test.entity), by: descriptors, entity: test.entity)
        #expect(store.labels(sql) == store.labels(memory))
        #expect(sql.map(\.objectID) == memory.map(\.objectID))

        // Windows: the same slices of the same order.
        for (limit, offset) in [(3, 0), (5, 4), (1, memory.count - 1), (4, memory.count), (0, 2), (100, 0)] {
            var request = FetchRequest(entityName: test.entity, sortDescriptors: descriptors)
            request.fetchLimit = limit
            request.fetchOffset = offset
            let window = try store.sqlObjects(request).map(\.objectID)
            let end = limit == 0 ? memory.count : min(offset + limit, memory.count)
            let expected = memory[min(offset, memory.count)..<max(min(offset, memory.count), end)].map(\.objectID)
            #expect(window == Array(expected), "limit \(limit) offset \(offset)")
            #expect(try store.context.count(for: request) == expected.count, "count, limit \(limit) offset \(offset)")
        }
    }

    /// Orders known by hand, so that both sides cannot be wrong alike.
    @Test func handCheckedOrders() throws {
        let store = try DifferentialStore()
        func ids(_ entity: String, _ sort: String, where format: String = "TRUEPREDICATE", _ arguments: any PredicateArgument...) throws -> [String] {
            let request = FetchRequest(entityName: entity, predicate: try ObjectPredicate(format: format, arguments: arguments),
                                       sortDescriptors: try SortKey.parse(sort))
            let sql = store.labels(try store.sqlObjects(request))
            let memory = store.labels(try store.memorySorted(
                store.memoryObjects(entity, request.predicate ?? ObjectPredicate(format: "TRUEPREDICATE")),
                by: request.sortDescriptors, entity: entity))
            #expect(sql == memory, "\(entity) \(format) by \(sort)")
            return sql
        }
        // The lecture's query: any photos.uploadDate > date, sorted by name (UTF-8 bytes: capitals first).
        #expect(try ids("Photographer", "name", where: "any photos.uploadDate > %@", DifferentialDataSet.date("2011-01-01T00:00:00Z"))
            == ["ada", "grace", "strasse2", "strasse1", "ist2", "ist1"])
        // Nil first ascending, last descending.
        #expect(try ids("Photo", "views", where: "views < 5 OR views = nil") == ["p12", "p5", "p3", "p2", "p10"])
        #expect(try ids("Photo", "-views", where: "views < 5 OR views = nil") == ["p10", "p2", "p3", "p5", "p12"])
        // Case-insensitive: Straße and STRASSE tie (both fold to "strasse") and keep primary-key order.
        #expect(try ids("Photographer", "name:ci", where: "name CONTAINS[c] 'ss'") == ["strasse1", "strasse2"])
        #expect(try ids("Photographer", "-name:ci", where: "name CONTAINS[c] 'ss'") == ["strasse1", "strasse2"])
        // Localized standard: case and accents ignored, ties broken by bytes: cafe, cafe + U+0301, café, CAFÉ...
        #expect(try ids("Photographer", "name:localized", where: "name BEGINSWITH[cd] 'cafe'") == ["cafe3", "cafe2", "cafe4", "cafe1"])
        // Decimals by value (1.10 = 1.1 tie, primary key), not as text.
        #expect(try ids("Thing", "decimalValue", where: "decimalValue != nil") == ["t5", "t1", "t8", "t2", "t3", "t6", "t7"])
        // Through a to-one, nils (no owner) first.
        #expect(try ids("Photo", "whoTook.name,uniqueId", where: "views > 40 OR whoTook = nil") == ["p6", "p4", "p9"])
    }
}
