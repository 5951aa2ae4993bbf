import Foundation
import Testing
import Trove
import TrovePostgres
import TroveTesting

/// The writing connection, ended by the server (a restart, an administrator, a failover), is
/// opened again for the next call; under `writingExclusively`, whose lock ended with it, the
/// call fails saying so instead.
@Suite(.enabled(if: PostgresServer.isConfigured, PostgresServer.skipMessage))
struct PostgresReconnectTests {
    /// Ends every connection to the test's database, as a server restart does, and gives the
    /// client a moment to learn of it (postgres-nio can wait forever on a query sent on a
    /// connection the server ended before the client noticed).
    static func endConnections(to location: PostgresLocation) throws {
        try PostgresStore.administer("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
                                     [.string(location.database)], on: location)
        Thread.sleep(forTimeInterval: 1)
    }

    /// Runs `work` on a thread of its own and returns its result, or `nil` when it has not
    /// returned within 30 s (a hang fails the test instead of the whole run).
    static func finishing<T: Sendable>(_ work: @escaping @Sendable () throws -> T) -> Result<T, any Error>? {
        let result = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let outcome = Result { try work() }
            result.withLock { $0 = outcome }
            done.signal()
        }
        guard done.wait(timeout: .now() + 30) == .success else { return nil }
        return result.withLock { $0 }
    }

    static func insertPhoto(_ id: String, into store: PostgresStore) throws {
        let context = try Container(store: store).newBackgroundContext()
        let photo = try context.insert("Photo")
        try photo.setValue(id, forKey: "id")
        try context.save()
    }

    @Test func theNextSaveAfterTheServerEndedTheConnectionLands() throws {
        let database = try TemporaryDatabase()
        let store = try PostgresStore(location: database.location, model: SampleModels.photos())
        try Self.insertPhoto("p1", into: store)
        try Self.endConnections(to: database.location)

        let saved = Self.finishing { try Self.insertPhoto("p2", into: store) }
        #expect(saved != nil, "the save did not return within 30 s")
        #expect(throws: Never.self) { try saved?.get() }
        #expect(try store.count(of: "Photo") == 2)
        #expect(try PostgresStore(location: database.location).count(of: "Photo") == 2, "committed, as another store sees")
    }

    @Test func aSaveUnderAWriteLockThatEndedWithItsConnectionFailsSayingSo() throws {
        let database = try TemporaryDatabase()
        let store = try PostgresStore(location: database.location, model: SampleModels.photos())
        let location = database.location
        let outcome = Self.finishing {
            try store.writingExclusively {
                try Self.endConnections(to: location)
                try Self.insertPhoto("p1", into: store)
            }
        }
        #expect(outcome != nil, "the work did not return within 30 s")
        #expect {
            try outcome?.get()
        } throws: { error in
            (error as? StoreError)?.code == .unreachable
                && (error as? StoreError)?.message.contains("that held the write lock was closed, and the lock with it") == true
        }
        #expect(try store.count(of: "Photo") == 0)
        let saved = Self.finishing { try Self.insertPhoto("p2", into: store) }
        #expect(throws: Never.self) { try saved?.get() }
        #expect(try store.count(of: "Photo") == 1, "out of writingExclusively, the store writes again")
    }

    /// A statement sent on a connection the server ended fails within about a second (postgres-nio
    /// alone never answers it), and the store's next call connects again.
    @Test func aStatementOnAnEndedConnectionFailsInsteadOfWaitingForever() throws {
        let database = try TemporaryDatabase()
        let store = try PostgresStore(location: database.location, model: SampleModels.photos())
        try Self.insertPhoto("p1", into: store)
        try Self.endConnections(to: database.location)

        // `query` sends on the writing connection as it is, without looking whether it closed.
        let sent = Self.finishing { try store.query("SELECT 1") }
        #expect(sent != nil, "the statement did not return within 30 s")
        #expect(throws: (any Error).self) { try sent?.get() }
        let saved = Self.finishing { try Self.insertPhoto("p2", into: store) }
        #expect(throws: Never.self) { try saved?.get() }
        #expect(try store.count(of: "Photo") == 2)
    }
}
