import Foundation
import Testing
import Trove
import TrovePostgres
import TroveTesting

/// The reading connections of a PostgreSQL store: reads at once, bounded, and never behind a
/// save.
@Suite(.enabled(if: PostgresServer.isConfigured, PostgresServer.skipMessage))
struct PostgresReadersTests {
    let database: TemporaryDatabase
    let store: PostgresStore

    init() throws {
        database = try TemporaryDatabase()
        store = try PostgresStore(location: database.location, model: SampleModels.photos(), maximumReaderCount: 3)
    }

    /// The connections to the test database, this store's and others'.
    static func connections(_ store: PostgresStore) throws -> Int {
        try store.run("counting connections") {
            try store.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database()").rows.count
        }
    }

    static func insertPhotos(_ ids: Range<Int>, in context: ObjectContext) throws {
        for index in ids {
            let photo = try context.insert("Photo")
            try photo.setValue("p\(index)", forKey: "id")
        }
        try context.save()
    }

    /// While one thread holds the write lock (as an import's find-or-create does), another
    /// thread's fetch runs on a reading connection and returns.
    @Test func aReadDoesNotWaitForTheWriteLock() throws {
        let context = try Container(store: store).newBackgroundContext()
        try Self.insertPhotos(0..<3, in: context)
        let finished = DispatchSemaphore(value: 0)
        let counted = Locked<Int?>(nil)
        let waited = try store.writingExclusively {
            Thread.detachNewThread { [store] in
                counted.withLock { $0 = try? store.count(of: "Photo") }
                finished.signal()
            }
            return finished.wait(timeout: .now() + 20)
        }
        #expect(waited == .success, "the fetch waited for the write lock")
        #expect(counted.withLock { $0 } == 3)
    }

    /// Eight readers and a writer at once: every count is one the writer committed (a multiple
    /// of 10, never going back for a reader), and the store never opens more than its three
    /// reading connections beside the one it writes on.
    @Test func manyReadersAtOnceSeeCommittedStatesOnBoundedConnections() async throws {
        let store = store
        let before = try Self.connections(store)
        let container = try Container(store: store)
        let peak = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let writer = container.newBackgroundContext()
                for round in 0..<20 { try Self.insertPhotos(round * 10..<(round + 1) * 10, in: writer) }
            }
            for _ in 0..<8 {
                group.addTask {
                    var last = 0
                    for _ in 0..<30 {
                        let count = try store.count(of: "Photo")
                        #expect(count % 10 == 0 && count >= last, "count \(count) after \(last)")
                        last = count
                        let open = try Self.connections(store) - before
                        peak.withLock { $0 = max($0, open) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.count(of: "Photo") == 200)
        // The writing connection was open before; the readers are at most three.
        #expect(peak.withLock { $0 } <= 3)
    }
}
