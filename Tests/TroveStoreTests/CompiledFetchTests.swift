import Foundation
import GRDB
import Testing
@testable import TroveStore
import TroveModel
import TrovePredicate
import TroveTesting

@Suite struct CompiledFetchTests {
    let dir: TemporaryDirectory
    let store: SQLiteStore

    init() throws {
        dir = try TemporaryDirectory()
        store = try SQLiteStore(url: dir.file("s.trove"), model: SampleModels.photos())
        let photo = try #require(store.model.entity(named: "Photo"))
        _ = try store.save(ChangeSet(inserts: (0..<5).map { i in
            .init(objectID: .temporary(entity: photo), values: [.string("p\(i)"), .string("t\(i)"), .null, .integer(Int64(i * 10))])
        }))
    }

    func query() throws -> StoreQuery {
        var request = FetchRequest(entityName: "Photo", predicate: try ObjectPredicate(format: "views > %d", 15),
                                   sortDescriptors: [SortKey("views", ascending: false)])
        request.fetchLimit = 2
        return try StoreQuery(request, model: store.model)
    }

    @Test func givesTheStatementAndArgumentsAFetchRuns() throws {
        let statement = try store.compiledFetch(query())
        #expect(statement.sql.hasPrefix("SELECT \"t\".\"_pk\", \"t\".\"_version\", "))
        #expect(statement.sql.hasSuffix(
            "FROM \"Photo\" AS \"t\" WHERE \"t\".\"views\" > ? ORDER BY \"t\".\"views\" DESC, \"t\".\"_pk\" LIMIT ? OFFSET ?"))
        #expect(statement.arguments == [15, 2, 0])
        #expect(!statement.sql.contains("15"))
        #expect(statement.description.hasSuffix("-- arguments: [15, 2, 0]"))
    }

    @Test func runOnAnotherConnectionItSelectsWhatFetchReturns() throws {
        let statement = try store.compiledFetch(query())
        let keys = try store.writer.read { db in
            try Int64.fetchAll(db, sql: "SELECT _pk FROM (\(statement.sql))",
                               arguments: StatementArguments(statement.arguments.map { value -> (any DatabaseValueConvertible)? in
                                   if case .integer(let i) = value { return i }
                                   return nil
                               }))
        }
        #expect(keys == (try store.fetch(query())).compactMap(\.objectID.primaryKey))
        #expect(keys.count == 2)
    }

    // MARK: Statements by shape

    func fetch(_ format: String, _ arguments: any PredicateArgument..., limit: Int = 0, offset: Int = 0) throws -> StoreQuery {
        var request = FetchRequest(entityName: "Photo", predicate: try ObjectPredicate(format: format, arguments: arguments))
        request.fetchLimit = limit
        request.fetchOffset = offset
        return try StoreQuery(request, model: store.model)
    }

    @Test func aQueryOfACompiledShapeRunsThatStatementWithItsOwnArguments() throws {
        let format = "id == %@ OR (views > %d AND title ==[c] %@)"
        let first = try store.compiledFetch(fetch(format, "p1", 5, "T1", limit: 3))
        let second = try store.compiledFetch(fetch(format, "p3", 35, "T4", limit: 2, offset: 1))
        #expect(second.sql == first.sql)
        #expect(first.arguments == ["p1", 5, "t1", 3, 0], "the [c] constant is folded as the compiler folds it")
        #expect(second.arguments == ["p3", 35, "t4", 2, 1])
        #expect(try store.fetch(fetch(format, "p3", 35, "T4", limit: 2, offset: 1))
            .map(\.objectID.primaryKey) == [5])
    }

    @Test func nilConstantsListLengthsAndWindowsAreShapesOfTheirOwn() throws {
        let withValue = try store.compiledFetch(fetch("title == %@", "t1"))
        let withNil = try store.compiledFetch(fetch("title == %@", Optional<String>.none))
        let again = try store.compiledFetch(fetch("title == %@", "t2"))
        #expect(withNil.sql != withValue.sql && withNil.arguments.isEmpty)
        #expect(again.sql == withValue.sql && again.arguments == ["t2"])
        let two = try store.compiledFetch(fetch("id IN %@", ["p1", "p2"]))
        let three = try store.compiledFetch(fetch("id IN %@", ["p1", "p2", "p3"]))
        let twoAndNil = try store.compiledFetch(fetch("id IN %@", ["p4", nil] as [String?]))
        #expect(two.sql != three.sql && two.arguments == ["p1", "p2"] && three.arguments == ["p1", "p2", "p3"])
        #expect(twoAndNil.sql.contains("IS NULL") && twoAndNil.arguments == ["p4"])
        let windowed = try store.compiledFetch(fetch("id IN %@", ["p1", "p2"], limit: 1))
        #expect(windowed.sql != two.sql && windowed.arguments == ["p1", "p2", 1, 0])
        #expect(try store.fetch(fetch("id IN %@", ["p4", nil] as [String?])).map(\.objectID.primaryKey) == [5])
    }

    /// Queries of one request shape, from a ``StoreQueryCache``, find their statement with that
    /// shape (kept per selection, window and kinds of constants), and it is the one their own
    /// shape finds.
    @Test func queriesOfACachedRequestShapeFindTheirStatementByThatShape() throws {
        let cache = StoreQueryCache()
        func cached(_ argument: any PredicateArgument, limit: Int = 0) throws -> StoreQuery {
            var request = FetchRequest(entityName: "Photo", predicate: try ObjectPredicate(format: "title == %@", argument))
            request.fetchLimit = limit
            return try cache.query(for: request, model: store.model)
        }
        for (argument, limit) in [("t1", 0), (nil, 0), ("t2", 0), ("t3", 1), (nil, 0), ("t4", 0)] as [(String?, Int)] {
            let query = try cached(argument, limit: limit)
            let expected = try store.compiledFetch(fetch("title == %@", argument, limit: limit))
            #expect(try store.compiledFetch(query) == expected, "\(String(describing: argument)) limit \(limit)")
            #expect(try store.compiledFetch(query, selecting: .objectIDs)
                == store.compiledFetch(fetch("title == %@", argument, limit: limit), selecting: .objectIDs))
        }
        // A request with a nil constant is a request shape of its own.
        let kept = try #require(try cached("t5").statements)
        #expect(kept.count == 4, "a statement per selection, without and with a window: \(kept.count)")
        #expect(try cached(String?.none).statements?.count == 2)
        #expect(try store.fetch(cached("t3")).map(\.objectID.primaryKey) == [4])
    }

    @Test func objectIDsSelectionSelectsOnlyTheKey() throws {
        let statement = try store.compiledFetch(query(), selecting: .objectIDs)
        #expect(statement.sql.hasPrefix("SELECT \"t\".\"_pk\" FROM \"Photo\" AS \"t\" WHERE"))
        #expect(statement.arguments == [15, 2, 0])
    }

    /// Objects compare by primary key, bound as parameters; a temporary ID names no row.
    @Test func objectsCompileToTheirKeys() throws {
        let photo = try #require(store.model.entity(named: "Photo"))
        let stored = [ObjectID(entity: photo, primaryKey: 2), ObjectID(entity: photo, primaryKey: 4)]
        func statement(_ format: String, _ argument: any PredicateArgument) throws -> CompiledStatement {
            try store.compiledFetch(StoreQuery(FetchRequest(entityName: "Photo", predicate: ObjectPredicate(format: format, argument)),
                                               model: store.model), selecting: .objectIDs)
        }
        let among = try statement("SELF IN %@", stored + [.temporary(entity: photo)])
        #expect(among.sql == "SELECT \"t\".\"_pk\" FROM \"Photo\" AS \"t\" WHERE \"t\".\"_pk\" IN (?, ?) ORDER BY \"t\".\"_pk\"")
        #expect(among.arguments == [2, 4])
        #expect(try store.fetchObjectIDs(StoreQuery(FetchRequest(entityName: "Photo", predicate: ObjectPredicate(format: "SELF IN %@", stored)),
                                                    model: store.model)).map { $0 } == stored)
        let other = try statement("SELF != %@", stored[0])
        #expect(other.sql.hasSuffix("WHERE \"t\".\"_pk\" IS NOT ? ORDER BY \"t\".\"_pk\""))
        #expect(try statement("SELF == %@", ObjectID.temporary(entity: photo)).sql.contains("WHERE FALSE ORDER BY"))
        #expect(try statement("SELF != %@", ObjectID.temporary(entity: photo)).sql.contains("WHERE TRUE ORDER BY"))
    }
}
