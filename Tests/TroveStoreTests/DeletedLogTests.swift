import Foundation
import Testing
import TroveModel
import TroveStore
import TroveTesting

/// The `-wal` file of an open store deleted under it (by a careless cleanup): the next
/// operation that notices fails with an error that says what happened and what to do, not
/// SQLite's bare "disk I/O error".
@Suite struct DeletedLogTests {
    @Test func aDeletedLogIsExplained() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("s.trove")
        let model = try SampleModels.photos()
        // The saves stay in the log: nothing copies them into the store file.
        let store = try SQLiteStore(url: url, model: model, options: .init(autoCheckpointPages: 0))
        let entity = try #require(model.entity(named: "Photographer"))
        _ = try store.save(ChangeSet(inserts: [.init(objectID: .temporary(entity: entity), values: ["p1", nil])]))
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        try FileManager.default.removeItem(atPath: url.path + "-wal")
        // A reader opened now finds the log's index (-shm) naming frames the new -wal lacks.
        let error = try #require(throws: StoreError.self) {
            try SQLiteStore(url: url, options: .init(readOnly: true)).count(of: "Photographer")
        }
        #expect(error.message.contains("-wal or -shm file) was deleted or moved while the store was open"), "\(error)")
        #expect(!error.message.hasSuffix("disk I/O error"))
    }
}
