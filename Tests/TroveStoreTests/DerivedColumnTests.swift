import Foundation
import GRDB
import Testing
@testable import TroveStore
import TroveModel
import TrovePredicate
import TroveTesting

/// Transient and derived attributes in the store's tables and statements.
@Suite struct DerivedColumnTests {
    static func model() throws -> Model {
        try Model {
            Entity("Owner") {
                Attribute("name", .string)
                Attribute("itemCount", .integer64, derivation: "items.@count")
                Attribute("scratch", .string, default: .string("-"), transient: true)
                Relationship("items", to: "Item", toMany: true, inverse: "owner")
            }
            Entity("Item") {
                Attribute("size", .integer32)
                Attribute("ownerName", .string, derivation: "owner.name")
                Relationship("owner", to: "Owner", inverse: "items")
            }
            Entity("BigItem", parent: "Item") {
                Attribute("weight", .double)
                Attribute("note", .string, transient: true)
                Attribute("ownerAgain", .string, derivation: "owner.name")
            }
        }
    }

    @Test func neitherKindHasAColumn() throws {
        let dir = try TemporaryDirectory()
        let store = try SQLiteStore(url: dir.file("s.trove"), model: Self.model())
        let ddl = try store.writer.read { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name IN ('Owner', 'Item')")
        }
        #expect(ddl.count == 2)
        let all = ddl.joined(separator: "\n")
        #expect(all.contains(#""name" TEXT"#) && all.contains(#""size" INTEGER"#) && all.contains(#""weight" REAL"#))
        for name in ["itemCount", "scratch", "ownerName", "note"] {
            #expect(!all.contains(name), "\(all)")
        }
    }

    /// Rows carry a derived attribute's computed value and a transient attribute's default;
    /// a change set's values for either are not written.
    @Test func rowsCarryComputedValuesAndDefaults() throws {
        let store = try SQLiteStore(inMemoryWith: Self.model())
        let model = store.model
        let owner = try #require(model.entity(named: "Owner"))
        let big = try #require(model.entity(named: "BigItem"))
        let plain = try #require(model.entity(named: "Item"))
        let ownerID = ObjectID.temporary(entity: owner), bigID = ObjectID.temporary(entity: big), plainID = ObjectID.temporary(entity: plain)
        let saved = try store.save(ChangeSet(inserts: [
            .init(objectID: ownerID, values: [.string("Ann"), .integer(42), .string("kept in memory")]),
            .init(objectID: bigID, values: [.integer(3), .string("not Ann"), .double(1.5), .string("a note"), .string("x")],
                  relationships: [.toOne(0, .object(ownerID))]),
            .init(objectID: plainID, values: [.integer(1), .null]),
        ]))
        let ids = try [ownerID, bigID, plainID].map { try #require(saved.permanentIDs[$0]) }
        let rows = try store.rows(for: ids)
        #expect(ids.map { id in rows.first { $0.objectID == id }?.values } == [
            [.string("Ann"), .integer(1), .string("-")],
            [.integer(3), .string("Ann"), .double(1.5), .null, .string("Ann")],
            [.integer(1), .null],
        ])
        // A fetch of the parent entity reads each row as its own entity.
        var request = FetchRequest(entityName: "Item")
        request.sortDescriptors = [SortKey("ownerName", ascending: false)]
        #expect(try store.fetch(StoreQuery(request, model: model)).map(\.values.count) == [5, 2])
        // An update of nothing but a transient attribute writes nothing and keeps the version.
        let ownerRow = try #require(rows.first { $0.objectID == ids[0] })
        let result = try store.save(ChangeSet(updates: [
            .init(objectID: ownerRow.objectID, expectedVersion: ownerRow.version, changes: [2: .string("x")]),
        ]))
        #expect(result.versions[ownerRow.objectID] == ownerRow.version)
        #expect(try store.row(for: ownerRow.objectID) == ownerRow)
    }
}
