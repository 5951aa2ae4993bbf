import Foundation
import GRDB
import Testing
@testable import TroveStore
import TroveModel
import TroveTesting

@Suite struct OpeningTests {
    @Test func reopeningWithTheSameModelKeepsTheData() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("s.trove")
        let model = try SampleModels.photos()
        do {
            let store = try SQLiteStore(url: url, model: model)
            let id = ObjectID.temporary(entity: try #require(model.entity(named: "Photographer")))
            _ = try store.save(ChangeSet(inserts: [.init(objectID: id, values: ["p1", "Ann"])]))
        }
        let again = try SQLiteStore(url: url, model: SampleModels.photos())
        #expect(try again.count(of: "Photographer") == 1)
    }

    @Test func theWriterKeepsThePageCacheItIsGiven() throws {
        let dir = try TemporaryDirectory()
        let model = try SampleModels.photos()
        let standard = try SQLiteStore(url: dir.file("a.trove"), model: model)
        #expect(try standard.writer.write { try Int.fetchOne($0, sql: "PRAGMA cache_size") } == -8192)
        #expect(try standard.writer.read { try Int.fetchOne($0, sql: "PRAGMA cache_size") } == -2000,
                "readers keep SQLite's default")
        let small = try SQLiteStore(url: dir.file("b.trove"), model: model, options: .init(writerCacheKiB: 1024))
        #expect(try small.writer.write { try Int.fetchOne($0, sql: "PRAGMA cache_size") } == -1024)
    }

    @Test func anotherModelIsRefused() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("s.trove")
        _ = try SQLiteStore(url: url, model: SampleModels.photos())
        let other = try Model { Entity("Photo") { Attribute("id", .integer64) } }
        let error = try #require(throws: StoreError.self) { try SQLiteStore(url: url, model: other) }
        #expect(error.code == .modelMismatch)
        #expect(error.message.contains("created with another model"))
        #expect(error.message.contains("entity Photographer is only in the store"))
        #expect(error.message.contains("attribute Photo.id: string in the store, integer64 in this model"))
        #expect(error.message.contains("attribute Photo.views is only in the store"))
    }

    @Test func aStoreOpensWithTheModelItKeeps() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("s.trove")
        let model = try SampleModels.photos()
        _ = try SQLiteStore(url: url, model: model)
        let reopened = try SQLiteStore(url: url)
        #expect(reopened.model == model)
        let missing = try #require(throws: StoreError.self) { try SQLiteStore(url: dir.file("none.trove")) }
        #expect(missing.code == .notFound)
        #expect(!FileManager.default.fileExists(atPath: dir.file("none.trove").path))
    }

    @Test func changedImportHintsKeepTheStoreAndAreRecorded() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("s.trove")
        _ = try SQLiteStore(url: url, model: SampleModels.photos())
        var entities = try SampleModels.photos().entities.map { entity in
            var declared = Entity(entity.name, uniqueBy: entity.uniqueBy, attributes: entity.attributes, relationships: entity.relationships)
            declared.remoteName = entity.name.lowercased()
            return declared
        }
        entities[1].attributes[1].remoteKeys = ["caption"]
        let hinted = try Model(keyStyle: .snakeCase, entities: entities)
        #expect(hinted.versionHash == (try SampleModels.photos().versionHash))
        _ = try SQLiteStore(url: url, model: hinted)
        #expect(try SQLiteStore(url: url).model == hinted)
    }

    @Test func aPlainSQLiteDatabaseIsNotAStore() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("plain.sqlite")
        try DatabaseQueue(path: url.path).write { try $0.execute(sql: "CREATE TABLE t (x)") }
        let error = try #require(throws: StoreError.self) { try SQLiteStore(url: url, model: SampleModels.photos()) }
        #expect(error.code == .notATroveStore)
        #expect(error.message.contains("not a Trove store"))
    }

    @Test func aFileThatIsNotSQLiteIsRefusedAndLeftAlone() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("notes.txt")
        let text = Data(String(repeating: "these are not the bytes of a database\n", count: 200).utf8)
        try text.write(to: url)
        let error = try #require(throws: StoreError.self) { try SQLiteStore(url: url, model: SampleModels.photos()) }
        #expect(error.code == .notATroveStore)
        #expect(try Data(contentsOf: url) == text)
    }

    @Test func aNewerFormatIsRefused() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("s.trove")
        let store = try SQLiteStore(url: url, model: SampleModels.photos())
        try store.writer.write { try $0.execute(sql: "UPDATE _trove_metadata SET value = '99' WHERE key = 'trove.formatVersion'") }
        let error = try #require(throws: StoreError.self) { try SQLiteStore(url: url, model: SampleModels.photos()) }
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.contains("format version 99"))
    }
}
