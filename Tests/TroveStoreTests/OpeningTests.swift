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
            let id = ObjectID.temporary(entityName: "Photographer")
            _ = try store.save(ChangeSet(inserts: [.init(objectID: id, values: ["p1", "Ann"])]))
        }
        let again = try SQLiteStore(url: url, model: SampleModels.photos())
        #expect(try again.count(FetchRequest(entityName: "Photographer")) == 1)
    }

    @Test func anotherModelIsRefused() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("s.trove")
        _ = try SQLiteStore(url: url, model: SampleModels.photos())
        let other = try Model { Entity("Photo") { Attribute("id", .integer64) } }
        let error = try #require(throws: StoreError.self) { try SQLiteStore(url: url, model: other) }
        #expect(error.code == .modelMismatch)
        #expect(error.message.contains("created with another model"))
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
