import Foundation
import Testing
@testable import TroveContext
import TroveModel
import TrovePredicate
import TroveTesting

/// Aggregate requests through SQL (one statement) and in memory (over every object) on the
/// differential data set: both give the same results, in the same order.
@Suite struct DifferentialAggregateTests {
    static func request(_ entity: String, by groupBy: [String] = [], _ aggregates: [AggregateField], where format: String? = nil,
                        having: String? = nil, sort: [SortKey] = []) -> AggregateCase {
        AggregateCase(entity, by: groupBy, aggregates, where: format, having: having, sort: sort)
    }

    static let cases = DifferentialPredicates.aggregateRequests

    @Test(arguments: cases) func sqlAndMemoryAgree(_ test: AggregateCase) throws {
        let store = try DifferentialStore()
        let request = try test.request()
        let entity = try #require(store.model.entity(named: request.entityName))
        let checked = try CheckedAggregateRequest(request, entity: entity, in: store.model)
        let sql = try store.context.fetchAggregates(request)
        let memory = checked.dictionaries(try checked.evaluate(over: try store.allObjects(request.entityName)))
        #expect(sql.count == memory.count, "\(sql) vs \(memory)")
        for (a, b) in zip(sql, memory) {
            #expect(Self.same(a, b), "SQL \(a)\nmemory \(b)")
        }
        #expect(!sql.isEmpty, "the data set gives every case results")
    }

    /// Equal results, doubles within a rounding of their sums' order.
    static func same(_ a: [String: AttributeValue], _ b: [String: AttributeValue]) -> Bool {
        a.keys == b.keys && a.allSatisfy { key, value in
            guard case .double(let x) = value, case .double(let y)? = b[key] else { return value == b[key] }
            return x == y || abs(x - y) <= 1e-9 * max(abs(x), abs(y))
        }
    }

    static func integer(_ value: AttributeValue?) -> Int64? {
        if case .integer(let number)? = value { return number }
        return nil
    }

    @Test func countsAndSumsAreTheOnesCountedByHand() throws {
        let store = try DifferentialStore()
        let context = store.context
        let photos = try store.allObjects("Photo")
        let views: [Int64] = try photos.compactMap { Self.integer(try $0.value(forKey: "views")) }
        let positive = views.filter { $0 > 0 }
        // The data set's views reach Int64's edges: the sum of the small ones.
        let small = views.filter { $0 > -1_000_000 && $0 < 1_000_000 }
        #expect(try context.sum(of: "views", in: "Photo", where: "views BETWEEN {-999999, 999999}") == .integer(small.reduce(0, +)))
        #expect(try context.maximum(of: "views", in: "Photo") == .integer(try #require(views.max())))
        #expect(try context.minimum(of: "views", in: "Photo", where: "views > %d", 0) == .integer(try #require(positive.min())))
        #expect(try context.average(of: "views", in: "Photo", where: "FALSEPREDICATE") == .null)
        #expect(try context.aggregate(.count, of: "views", in: "Photo") == .integer(Int64(photos.count)))
        let request = AggregateRequest(entityName: "Photo", groupBy: ["whoTook.name"], aggregates: [.count()])
        let counts = try context.fetchAggregates(request).compactMap { Self.integer($0["count()"]) }
        #expect(counts.reduce(0, +) == Int64(photos.count))
    }

    @Test func unsavedChangesAreNotCounted() throws {
        let store = try DifferentialStore()
        let before = try store.context.fetchCount("Photo")
        try store.context.insert("Photo").setValue("new", forKey: "uniqueId")
        #expect(try store.context.aggregate(.count, of: "views", in: "Photo") == .integer(Int64(before)))
    }

    @Test(arguments: [
        (request("Photo", by: ["tags.name"], [.count()]), "to-many"),
        (request("Photo", by: ["whoTook"], [.count()]), "is a relationship"),
        (request("Photo", [.sum("title")]), "needs a number"),
        (request("Photo", [.sum("nope")]), "nope"),
        (request("Photo", []), "needs a group key or an aggregate"),
        (request("Photo", [.count(as: "n"), .sum("views", as: "n")]), "two results are named 'n'"),
        (request("Photo", [.sum("views")], having: "views > 1"), "having"),
        (request("Photo", by: ["whoTook.name"], [.count()], sort: [SortKey("views")]), "sort by a group key or an aggregate"),
    ]) func wrongRequestsSayWhatIsWrong(_ test: (AggregateCase, String)) throws {
        let store = try DifferentialStore()
        let error = #expect(throws: ObjectPredicateError.self) { try store.context.fetchAggregates(try test.0.request()) }
        #expect(error?.message.contains(test.1) == true, "\(error?.message ?? "")")
    }

    @Test func anUnknownEntityIsAnObjectError() throws {
        let store = try DifferentialStore()
        let error = #expect(throws: ObjectError.self) {
            try store.context.fetchAggregates(AggregateRequest(entityName: "Nope", aggregates: [.count()]))
        }
        #expect(error?.code == .unknownEntity)
    }
}
