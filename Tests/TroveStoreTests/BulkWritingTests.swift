import Foundation
import GRDB
import Testing
@testable import TroveStore
import TroveModel
import TroveTesting

@Suite struct BulkWritingTests {
    let dir: TemporaryDirectory
    let store: SQLiteStore

    init() throws {
        dir = try TemporaryDirectory()
        store = try SQLiteStore(url: dir.file("s.trove"), model: SampleModels.photos())
    }

    func checkpointPages() throws -> Int? {
        try store.writer.write { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") }
    }

    func savePhotos(_ count: Int, from first: Int) throws {
        let photo = try #require(store.model.entity(named: "Photo"))
        let inserts = (first..<(first + count)).map { n in
            ChangeSet.Insert(objectID: .temporary(entity: photo), values: [.string("p\(n)"), .string(String(repeating: "x", count: 500)), .null, .integer(Int64(n))])
        }
        _ = try store.save(ChangeSet(inserts: inserts))
    }

    @Test func aBulkRunRaisesTheCheckpointThresholdAndNestedRunsKeepIt() throws {
        #expect(try checkpointPages() == 1000)
        try store.bulkWriting { () throws in
            #expect(try checkpointPages() == SQLiteStore.bulkCheckpointPages)
            try store.bulkWriting { () throws in #expect(try checkpointPages() == SQLiteStore.bulkCheckpointPages) }
            #expect(try checkpointPages() == SQLiteStore.bulkCheckpointPages, "an inner run's end is not the end")
        }
        #expect(try checkpointPages() == 1000)
    }

    @Test func aBulkRunKeepsStatementJournalsInMemoryAndThenGivesThemBackToFiles() throws {
        func tempStore() throws -> Int? { try store.writer.write { try Int.fetchOne($0, sql: "PRAGMA temp_store") } }
        #expect(try tempStore() == 0, "the default: journals in files")
        try store.bulkWriting { () throws in
            #expect(try tempStore() == 2, "MEMORY")
            try savePhotos(200, from: 0)
        }
        #expect(try tempStore() == 0)
        #expect(try store.writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM Photo") } == 200)
    }

    @Test func theEndOfABulkRunCopiesTheLogIntoTheStoreFile() throws {
        let file = dir.file("s.trove")
        func size() throws -> Int { try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) }
        let before = try size()
        var during = 0
        try store.bulkWriting { () throws in
            // 3000 rows of 500 bytes: 1.5 MB, well under the bulk threshold (160 MB), so nothing
            // is copied into the file while the run lasts.
            for batch in 0..<3 { try savePhotos(1000, from: batch * 1000) }
            during = try size()
        }
        #expect(during == before, "the log is not copied during the run")
        #expect(try size() > before + 1_000_000, "the run's end copied the log into the file")
        #expect(try store.count(of: "Photo") == 3000)
    }

    @Test func aFailingBulkRunStillRestoresTheStore() throws {
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.bulkWriting { () throws in
                try savePhotos(10, from: 0)
                throw Stop()
            }
        }
        #expect(try checkpointPages() == 1000)
        #expect(try store.count(of: "Photo") == 10, "what was saved before the failure stays")
    }

    @Test func aStoreWithoutAutomaticCheckpointsKeepsThemOff() throws {
        let manual = try SQLiteStore(url: dir.file("manual.trove"), model: SampleModels.photos(),
                                     options: .init(autoCheckpointPages: 0))
        func pages() throws -> Int? { try manual.writer.write { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") } }
        try manual.bulkWriting { () throws in #expect(try pages() == 0) }
        #expect(try pages() == 0)
    }

    @Test func aStoreInMemoryRunsTheBodyAsItIs() throws {
        let memory = try SQLiteStore(inMemoryWith: SampleModels.photos())
        #expect(try memory.bulkWriting { 42 } == 42)
    }
}
