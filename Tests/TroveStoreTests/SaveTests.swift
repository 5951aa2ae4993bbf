import Foundation
import GRDB
import Testing
@testable import TroveStore
import TroveModel
import TrovePredicate
import TroveTesting

@Suite struct SaveTests {
    let dir: TemporaryDirectory
    let store: SQLiteStore

    init() throws {
        dir = try TemporaryDirectory()
        store = try SQLiteStore(url: dir.file("s.trove"), model: SampleModels.photos())
    }

    func insert(_ id: String, title: String = "t") throws -> ObjectID {
        let temp = ObjectID.temporary(entity: try #require(store.model.entity(named: "Photo")))
        let result = try store.save(ChangeSet(inserts: [.init(objectID: temp, values: [.string(id), .string(title), .null, 0])]))
        return try #require(result.permanentIDs[temp])
    }

    @Test func insertUpdateDeleteWithVersions() throws {
        let id = try insert("a")
        #expect(try store.row(for: id)?.version == 1)
        let result = try store.save(ChangeSet(updates: [.init(objectID: id, expectedVersion: 1, changes: [1: "new"])]))
        #expect(result.versions[id] == 2)
        let row = try #require(try store.row(for: id))
        #expect(row.version == 2)
        #expect(row.values[1] == "new")
        _ = try store.save(ChangeSet(deletes: [.init(objectID: id, expectedVersion: 2)]))
        #expect(try store.row(for: id) == nil)
    }

    @Test func findingRowsByKeyReadsEveryMatchOnceInSlicesOfAnySize() throws {
        let photo = try #require(store.model.entity(named: "Photo"))
        let inserts = (0..<700).map { n in
            ChangeSet.Insert(objectID: .temporary(entity: photo), values: [.string("p\(n)"), .string(n.isMultiple(of: 2) ? "even" : "odd"), .null, .integer(Int64(n))])
        }
        _ = try store.save(ChangeSet(inserts: inserts))
        // 600 keys (more than one slice, neither slice a power of two): every other one stored.
        let keys: [[AttributeValue]] = (0..<600).map { [.string("p\($0 * 2)")] }
        let found = try store.fetchBeforeWriting(photo, attributes: ["id"], keys: keys)
        #expect(found.map { $0.values[0] }.sorted { "\($0)" < "\($1)" } == (0..<350).map { AttributeValue.string("p\($0 * 2)") }.sorted { "\($0)" < "\($1)" })
        #expect(found.allSatisfy { $0.values[1] == "even" && $0.version == 1 })
        // A key of several attributes matches on all of them.
        let pairs = try store.fetchBeforeWriting(photo, attributes: ["id", "title"],
                                                 keys: [["p1", "odd"], ["p2", "odd"], ["p4", "even"], ["p9999", "odd"]])
        #expect(Set(pairs.map { $0.values[0] }) == ["p1", "p4"])
        #expect(try store.fetchBeforeWriting(photo, attributes: ["id"], keys: []).isEmpty)
    }

    @Test func longRunsOfInsertsLandWholeAndAConstraintInTheMiddleNamesItsObject() throws {
        let photo = try #require(store.model.entity(named: "Photo"))
        // 150 rows: two statements of many rows, then the rest one by one.
        let inserts = (0..<150).map { n in
            ChangeSet.Insert(objectID: .temporary(entity: photo), values: [.string("p\(n)"), .string("t\(n)"), .null, .integer(Int64(n))])
        }
        let result = try store.save(ChangeSet(inserts: inserts))
        let ids = inserts.compactMap { result.permanentIDs[$0.objectID] }
        #expect(ids.count == 150)
        let rows = Dictionary(uniqueKeysWithValues: try store.rows(for: ids).map { ($0.objectID, $0) })
        for (n, id) in ids.enumerated() {
            #expect(rows[id]?.values == [.string("p\(n)"), .string("t\(n)"), .null, .integer(Int64(n))], "row \(n)")
            #expect(rows[id]?.version == 1)
        }

        // The 100th of 150 new rows repeats a stored key: the error names it, nothing is written.
        let more = (0..<150).map { n in
            ChangeSet.Insert(objectID: .temporary(entity: photo), values: [.string(n == 99 ? "p7" : "q\(n)"), nil, nil, 0])
        }
        let error = try #require(throws: StoreError.self) { try store.save(ChangeSet(inserts: more)) }
        #expect(error.message.contains(more[99].objectID.description))
        #expect(try store.count(StoreQuery(FetchRequest(entityName: "Photo"), model: store.model)) == 150)
    }

    @Test func updatesOfDifferentColumnsInOneSaveEachWriteTheirOwn() throws {
        let (a, b, c) = (try insert("a"), try insert("b"), try insert("c"))
        _ = try store.save(ChangeSet(updates: [.init(objectID: a, expectedVersion: 1, changes: [1: "A"]),
                                               .init(objectID: b, expectedVersion: 1, changes: [1: "B", 3: 7]),
                                               .init(objectID: c, expectedVersion: 1, changes: [1: "C"])]))
        #expect(try store.row(for: a)?.values == ["a", "A", .null, 0])
        #expect(try store.row(for: b)?.values == ["b", "B", .null, 7])
        #expect(try store.row(for: c)?.values == ["c", "C", .null, 0])
        #expect(try [a, b, c].map { try store.row(for: $0)?.version } == [2, 2, 2])
    }

    @Test func staleVersionsConflictAndWriteNothing() throws {
        let a = try insert("a")
        let b = try insert("b")
        _ = try store.save(ChangeSet(updates: [.init(objectID: a, expectedVersion: 1, changes: [1: "moved on"])]))
        let error = try #require(throws: ConflictError.self) {
            try store.save(ChangeSet(updates: [.init(objectID: b, expectedVersion: 1, changes: [1: "b2"]),
                                               .init(objectID: a, expectedVersion: 1, changes: [1: "stale"])]))
        }
        #expect(error.conflicts == [.init(objectID: a, expectedVersion: 1, storeVersion: 2)])
        #expect(try store.row(for: b)?.values[1] == "t", "the whole save was rolled back")
        _ = try store.save(ChangeSet(deletes: [.init(objectID: b, expectedVersion: 1)]))
        let gone = try #require(throws: ConflictError.self) {
            try store.save(ChangeSet(deletes: [.init(objectID: b, expectedVersion: 1)]))
        }
        #expect(gone.conflicts.first?.storeVersion == nil)
        #expect(gone.description.contains("deleted from the store"))
    }

    @Test func uniqueKeyViolationNamesTheObjectAndWritesNothing() throws {
        _ = try insert("dup")
        let first = ObjectID.temporary(entity: try #require(store.model.entity(named: "Photo")))
        let second = ObjectID.temporary(entity: try #require(store.model.entity(named: "Photo")))
        let error = try #require(throws: StoreError.self) {
            try store.save(ChangeSet(inserts: [.init(objectID: first, values: ["fresh", nil, nil, 0]),
                                               .init(objectID: second, values: ["dup", nil, nil, 0])]))
        }
        #expect(error.code == .constraintViolation)
        #expect(error.message.contains(second.description))
        #expect(try store.count(of: "Photo") == 1)
    }

    @Test func primaryKeysAreNeverReused() throws {
        let a = try insert("a")
        _ = try store.save(ChangeSet(deletes: [.init(objectID: a, expectedVersion: 1)]))
        let b = try insert("b")
        #expect(try #require(b.primaryKey) > #require(a.primaryKey))
    }

    @Test func rowsInsertedTogetherGetIncreasingKeys() throws {
        let photo = try #require(store.model.entity(named: "Photo"))
        let ids = (0..<5).map { _ in ObjectID.temporary(entity: photo) }
        let result = try store.save(ChangeSet(inserts: ids.enumerated().map { .init(objectID: $1, values: [.string("k\($0)"), nil, nil, 0]) }))
        let keys = ids.compactMap { result.permanentIDs[$0]?.primaryKey }
        #expect(keys == Array(1...5))
    }

    @Test func aValueChangedOutsideTroveIsReportedNotCrashed() throws {
        let id = try insert("a")
        try store.writer.write { try $0.execute(sql: "UPDATE Photo SET uploadDate = NULL, id = NULL, views = NULL WHERE _pk = ?", arguments: [id.primaryKey]) }
        #expect(try store.row(for: id)?.values[0] == .null)
        let other = try SQLiteStore(url: dir.file("loose.trove"), model: Model { Entity("E") { Attribute("flag", .boolean) } })
        try other.writer.write { try $0.execute(sql: "INSERT INTO E (_pk, flag) VALUES (1, 7)") }
        let error = try #require(throws: StoreError.self) { try other.fetch(StoreQuery(FetchRequest(entityName: "E"), model: other.model)) }
        #expect(error.code == .corruptValue)
        #expect(error.message.contains("E/1: column flag holds INTEGER 7"))
    }

    @Test func anIntegerOutOfItsAttributesRangeIsAStoreError() throws {
        let store = try SQLiteStore(url: dir.file("ranges.trove"), model: Model {
            Entity("E") { Attribute("small", .integer16); Attribute("medium", .integer32) }
        })
        try store.writer.write { try $0.execute(sql: "INSERT INTO E (_pk, small, medium) VALUES (1, 32767, -2147483648), (2, 100000, 0), (3, 0, 2147483648)") }
        let one = try StoreQuery(FetchRequest(entityName: "E", predicate: ObjectPredicate(format: "small = 32767")), model: store.model)
        #expect(try store.fetch(one).count == 1, "the ends of the ranges read")
        let error = try #require(throws: StoreError.self) { try store.fetch(StoreQuery(FetchRequest(entityName: "E"), model: store.model)) }
        #expect(error.code == .corruptValue)
        #expect(error.message.contains("E/2: column small holds INTEGER 100000, which is not a valid integer16"), "\(error)")
    }
}
