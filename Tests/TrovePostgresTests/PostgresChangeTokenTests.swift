import Foundation
import Testing
import Trove
import TrovePostgres
import TroveTesting

/// `changeTokens(pollingEvery:)` on PostgreSQL: tokens pushed by `LISTEN`/`NOTIFY` as other
/// stores commit, never polled.
@Suite(.enabled(if: PostgresServer.isConfigured, PostgresServer.skipMessage))
struct PostgresChangeTokenTests {
    /// Another store's save and batch update each arrive as the watcher's token after them,
    /// though the interval (an hour) would never let a poll see them.
    @Test(.timeLimit(.minutes(1))) func anotherStoresCommitsArriveAsTheyHappen() async throws {
        let database = try TemporaryDatabase()
        let model = try SampleModels.photos()
        let watcher = try PostgresStore(location: database.location, model: model)
        let writer = try Container(store: PostgresStore(location: database.location, model: model)).newBackgroundContext()
        var tokens = watcher.changeTokens(pollingEvery: .seconds(3600)).makeAsyncIterator()
        let first = try await tokens.next()
        #expect(first == (try watcher.changeToken()))

        let photo = try writer.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try writer.save()
        let saved = try await tokens.next()
        #expect(saved == (try watcher.changeToken()) && saved != first)

        _ = try writer.execute(BatchUpdateRequest(entityName: "Photo", values: ["title": .string("updated")]))
        let updated = try await tokens.next()
        #expect(updated == (try watcher.changeToken()) && updated != saved)
    }

    /// A consumer that stops iterating ends the stream, and its listening connection closes.
    @Test(.timeLimit(.minutes(1))) func aStreamEndsWithItsConsumerAndClosesItsConnection() async throws {
        let database = try TemporaryDatabase()
        let store = try PostgresStore(location: database.location, model: SampleModels.photos())
        func connections() throws -> Int {
            try store.run("counting connections") {
                try store.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database()").rows.count
            }
        }
        let before = try connections()
        let consumer = Task {
            for try await _ in store.changeTokens(pollingEvery: .seconds(3600)) {}
        }
        while try connections() == before { try await Task.sleep(for: .milliseconds(20)) }
        consumer.cancel()
        _ = await consumer.result
        while try connections() != before { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try connections() == before)
    }
}
