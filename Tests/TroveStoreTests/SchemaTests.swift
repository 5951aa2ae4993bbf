import Foundation
import GRDB
import Testing
@testable import TroveStore
import TroveModel
import TroveTesting

@Suite struct SchemaTests {
    static func graphModel() throws -> Model {
        try Model {
            Entity("Person", uniqueBy: [["email"]]) {
                Attribute("email", .string, optional: false)
                Relationship("friends", to: "Person", toMany: true, inverse: "friends")
                Relationship("albums", to: "Album", toMany: true, inverse: "owner", deleteRule: .cascade)
                Relationship("tags", to: "Tag", toMany: true, inverse: "people")
                Relationship("playlist", to: "Album", toMany: true, ordered: true, inverse: "listedBy")
            }
            Entity("Album") {
                Attribute("title", .string)
                Relationship("owner", to: "Person", inverse: "albums")
                Relationship("listedBy", to: "Person", inverse: "playlist")
            }
            Entity("Tag", uniqueBy: [["name", "kind"]]) {
                Attribute("name", .string)
                Attribute("kind", .integer16)
                Relationship("people", to: "Person", toMany: true, inverse: "tags")
            }
            Entity("Media", abstract: true, uniqueBy: [["url"]]) {
                Attribute("url", .uri)
            }
            Entity("Video", parent: "Media", uniqueBy: [["codec", "length"]]) {
                Attribute("codec", .string)
                Attribute("length", .double)
            }
        }
    }

    func schemaSQL(_ store: SQLiteStore) throws -> [String: String] {
        try store.writer.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL")
            return Dictionary(uniqueKeysWithValues: rows.map { ($0[0] as String, $0[1] as String) })
        }
    }

    @Test func tablesColumnsAndIndexesFollowTheModel() throws {
        let dir = try TemporaryDirectory()
        let store = try SQLiteStore(url: dir.file("s.trove"), model: Self.graphModel())
        let sql = try schemaSQL(store)

        // One table per hierarchy: Video lives in Media's table, with an _entity column.
        #expect(sql["Video"] == nil)
        let media = try #require(sql["Media"])
        #expect(media.contains("\"_entity\" TEXT NOT NULL"))
        #expect(media.contains("\"codec\" TEXT") && media.contains("\"length\" REAL") && media.contains("\"url\" TEXT"))
        #expect(media.hasSuffix("STRICT"))

        // Version column for optimistic locking; foreign key on the to-one side of one-to-many.
        let album = try #require(sql["Album"])
        #expect(album.contains("\"_version\" INTEGER NOT NULL DEFAULT 1"))
        #expect(album.contains("\"owner\" INTEGER REFERENCES \"Person\"(\"_pk\") ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED"))
        #expect(!album.contains("\"listedBy\""), "an ordered to-many and its inverse use a join table")
        #expect(sql["_idx_Album_owner"] != nil)

        // Join tables: many-to-many, reflexive, ordered.
        #expect(sql["_join_Person_friends"] != nil)
        #expect(sql["_join_Person_tags"] != nil)
        #expect(sql["_join_Tag_people"] == nil, "a many-to-many pair shares one join table")
        let playlist = try #require(sql["_join_Person_playlist"], "the ordered side owns the join table")
        #expect(playlist.contains("\"position\" INTEGER NOT NULL"))

        // Unique indexes, compound and scoped to a sub-entity.
        #expect(sql["_unique_Person_0"]?.contains("(\"email\")") == true)
        #expect(sql["_unique_Tag_0"]?.contains("(\"name\", \"kind\")") == true)
        #expect(sql["_unique_Media_1"]?.contains("WHERE \"_entity\" IN ('Video')") == true)

        let metadata = try store.metadata()
        #expect(metadata["trove.formatVersion"] == "1")
        #expect(metadata["trove.modelHash"] == store.model.versionHash)
    }

    @Test func relationshipStorageIsDecidedTheSameFromBothSides() throws {
        let schema = StoreSchema(model: try Self.graphModel())
        #expect(schema.relationshipStorage["Album.owner"] == .foreignKey(column: "owner"))
        #expect(schema.relationshipStorage["Person.albums"] == .inverseForeignKey(table: "Album", column: "owner"))
        #expect(schema.relationshipStorage["Person.tags"] == .joinTable(name: "_join_Person_tags", sourceIsFirst: true))
        #expect(schema.relationshipStorage["Tag.people"] == .joinTable(name: "_join_Person_tags", sourceIsFirst: false))
        #expect(schema.relationshipStorage["Person.friends"] == .joinTable(name: "_join_Person_friends", sourceIsFirst: true))
        #expect(schema.relationshipStorage["Person.playlist"] == .joinTable(name: "_join_Person_playlist", sourceIsFirst: true))
        #expect(schema.relationshipStorage["Album.listedBy"] == .joinTable(name: "_join_Person_playlist", sourceIsFirst: false))
    }

    @Test func durabilityIsFullByDefaultAndNormalOnRequest() throws {
        let dir = try TemporaryDirectory()
        let model = try SampleModels.photos()
        let full = try SQLiteStore(url: dir.file("full.trove"), model: model)
        #expect(try full.writer.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 2)
        #expect(try full.writer.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
        let normal = try SQLiteStore(url: dir.file("normal.trove"), model: model,
                                     options: SQLiteStore.Options(durability: .normal))
        #expect(try normal.writer.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 1)
    }

    @Test func inMemoryStoreIsSQLite() throws {
        let store = try SQLiteStore(inMemoryWith: SampleModels.photos())
        #expect(store.url == nil)
        #expect(try store.sqliteVersion().hasPrefix("3."))
        #expect(try store.count(of: "Photo") == 0)
    }
}
