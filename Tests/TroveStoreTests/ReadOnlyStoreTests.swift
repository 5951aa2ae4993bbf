import Foundation
import Testing
import TroveModel
import TroveStore
import TroveTesting

/// Stores opened for reading only (``SQLiteStore/Options/readOnly``): they read where nothing
/// can be written, create no file, and refuse writes saying why.
@Suite struct ReadOnlyStoreTests {
    /// A store of two photographers in `dir`, closed (so without -wal and -shm files).
    private func makeStore(in dir: TemporaryDirectory) throws -> URL {
        let url = dir.file("s.trove")
        let model = try SampleModels.photos()
        let store = try SQLiteStore(url: url, model: model)
        let entity = try #require(model.entity(named: "Photographer"))
        _ = try store.save(ChangeSet(inserts: [
            .init(objectID: .temporary(entity: entity), values: ["p1", "Ann"]),
            .init(objectID: .temporary(entity: entity), values: ["p2", "Bob"]),
        ]))
        try store.checkpoint()
        return url
    }

    private let readOnly = SQLiteStore.Options(readOnly: true)

    @Test func readingOpensNoFileAndWritingSaysWhy() throws {
        let dir = try TemporaryDirectory()
        let url = try makeStore(in: dir)
        try FileManager.default.removeItem(atPath: url.path + "-lock")
        let store = try SQLiteStore(url: url, model: SampleModels.photos(), options: readOnly)
        #expect(try store.count(of: "Photographer") == 2)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-lock"), "reading needs no lock file")
        let entity = try #require(store.model.entity(named: "Photographer"))
        let error = try #require(throws: StoreError.self) {
            try store.save(ChangeSet(inserts: [.init(objectID: .temporary(entity: entity), values: ["p3", "Cy"])]))
        }
        #expect(error.code == .readOnly)
        #expect(error.message.contains("opened for reading only"), "\(error)")
        #expect(try store.count(of: "Photographer") == 2)
    }

    @Test func aMissingStoreIsNotCreatedForReading() throws {
        let dir = try TemporaryDirectory()
        let error = try #require(throws: StoreError.self) {
            try SQLiteStore(url: dir.file("none.trove"), model: SampleModels.photos(), options: readOnly)
        }
        #expect(error.code == .notFound)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == [])
    }

    @Test(.enabled(if: MountedFolder.isAvailable, "a read-only mount needs root (root ignores file permissions)"))
    func aStoreInAReadOnlyFolderIsReadAsImmutable() throws {
        let dir = try TemporaryDirectory()
        let url = try makeStore(in: dir)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "closed cleanly, the store has no log")
        let view = try MountedFolder.readOnlyView(of: dir.url)
        let store = try SQLiteStore(url: view.file("s.trove"), options: readOnly)
        #expect(try store.count(of: "Photographer") == 2)
        #expect(try store.metadata()["trove.formatVersion"] == "1")
        let writable = try #require(throws: StoreError.self) { try SQLiteStore(url: view.file("s.trove")) }
        #expect(writable.message.contains("read-only") || writable.message.contains("Read-only"), "\(writable)")
    }

    @Test(.enabled(if: MountedFolder.isAvailable, "a read-only mount needs root (root ignores file permissions)"))
    func aStoreWithItsLogInAReadOnlyFolderIsRead() throws {
        let dir = try TemporaryDirectory()
        let url = try makeStore(in: dir)
        // An open store keeps its -wal and -shm: a reader uses them as they are.
        let writer = try SQLiteStore(url: url, model: SampleModels.photos())
        let entity = try #require(writer.model.entity(named: "Photographer"))
        _ = try writer.save(ChangeSet(inserts: [.init(objectID: .temporary(entity: entity), values: ["p3", "Cy"])]))
        #expect(FileManager.default.fileExists(atPath: url.path + "-shm"))
        let view = try MountedFolder.readOnlyView(of: dir.url)
        let store = try SQLiteStore(url: view.file("s.trove"), options: readOnly)
        #expect(try store.count(of: "Photographer") == 3)
    }

    @Test(.enabled(if: MountedFolder.isAvailable, "a read-only mount needs root (root ignores file permissions)"))
    func aLogWithoutItsIndexInAReadOnlyFolderIsRefusedSayingWhy() throws {
        let dir = try TemporaryDirectory()
        let url = try makeStore(in: dir)
        try Data("not a log".utf8).write(to: URL(fileURLWithPath: url.path + "-wal"))
        let view = try MountedFolder.readOnlyView(of: dir.url)
        let error = try #require(throws: StoreError.self) { try SQLiteStore(url: view.file("s.trove"), options: readOnly) }
        #expect(error.code == .readOnly)
        #expect(error.message.contains("has a write-ahead log"), "\(error)")
    }
}
