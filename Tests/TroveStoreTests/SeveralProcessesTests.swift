import Foundation
import GRDB
import Testing
@testable import TroveStore
import TroveModel
import TrovePredicate
import TroveTesting

/// Several writers on one store file: two stores in this process (as two processes would have
/// them), the real `trove` executable, and a `flock` helper holding the write lock.
@Suite struct SeveralProcessesTests {
    let dir: TemporaryDirectory
    let url: URL
    let model: Model

    init() throws {
        dir = try TemporaryDirectory()
        url = dir.file("s.trove")
        model = try SampleModels.photos()
    }

    // MARK: Helpers

    /// Inserts one photographer with the given `id`.
    @discardableResult
    func insert(_ id: String, name: String = "", into store: SQLiteStore) throws -> SaveResult {
        let entity = try #require(model.entity(named: "Photographer"))
        return try store.save(ChangeSet(inserts: [.init(objectID: .temporary(entity: entity), values: [.string(id), .string(name)])]))
    }

    func integrity(of store: SQLiteStore) throws -> [String] {
        try store.writer.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
    }

    func ids(in store: SQLiteStore) throws -> Set<String> {
        try Set(store.writer.read { try String.fetchAll($0, sql: "SELECT id FROM Photographer") })
    }

    var walSize: Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path + "-wal"))?[.size] as? Int) ?? 0
    }

    // MARK: Two stores on one file

    /// `changeTokens(pollingEvery:)` on SQLite: the watcher's token when it starts, then its
    /// token after another store's commit, found by polling.
    @Test(.timeLimit(.minutes(1))) func anotherStoresCommitArrivesAsAChangeToken() async throws {
        let watcher = try SQLiteStore(url: url, model: model)
        let writer = try SQLiteStore(url: url, model: model)
        var tokens = watcher.changeTokens(pollingEvery: .milliseconds(10)).makeAsyncIterator()
        let first = try await tokens.next()
        #expect(first == (try watcher.changeToken()))
        try insert("ann", into: writer)
        let next = try await tokens.next()
        #expect(next == (try watcher.changeToken()) && next != first)
    }

    @Test func twoStoresWritingAlternatelyKeepTheFileConsistent() throws {
        let first = try SQLiteStore(url: url, model: model)
        let second = try SQLiteStore(url: url, model: model)
        for round in 0..<20 {
            try insert("a\(round)", into: first)
            #expect(try second.count(of: "Photographer") == 2 * round + 1)
            try insert("b\(round)", into: second)
            #expect(try first.count(of: "Photographer") == 2 * round + 2)
        }
        // An update of a row the other store wrote goes through its version check.
        let row = try #require(try first.fetch(StoreQuery(FetchRequest(entityName: "Photographer", predicate: try ObjectPredicate(format: "id == 'b3'")), model: model)).first)
        _ = try first.save(ChangeSet(updates: [.init(objectID: row.objectID, expectedVersion: row.version, changes: [1: "renamed"])]))
        let stale = ChangeSet(updates: [.init(objectID: row.objectID, expectedVersion: row.version, changes: [1: "again"])])
        #expect(throws: ConflictError.self) { try second.save(stale) }
        #expect(try integrity(of: second) == ["ok"])
        #expect(try ids(in: first).count == 40)
    }

    @Test func twoStoresWritingAtOnceOnTwoThreadsLoseNothing() throws {
        let stores = [try SQLiteStore(url: url, model: model), try SQLiteStore(url: url, model: model)]
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            for round in 0..<25 {
                do { try insert("\(index)-\(round)", into: stores[index]) } catch { failures.add(error) }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(try ids(in: stores[0]).count == 50)
        #expect(try integrity(of: stores[1]) == ["ok"])
    }

    // MARK: Change tokens

    @Test func theTokenChangesWithEveryCommitAndOnlyThen() throws {
        let store = try SQLiteStore(url: url, model: model)
        let other = try SQLiteStore(url: url, model: model)
        let start = try store.changeToken()
        #expect(try store.changeToken() == start)
        #expect(try !store.hasChanged(since: start))
        _ = try store.fetch(StoreQuery(FetchRequest(entityName: "Photographer"), model: model))
        #expect(try !store.hasChanged(since: start), "a read is no change")

        // Its own save: the tokens around it tell the save from anyone else's commits.
        let own = try insert("p1", into: store)
        #expect(own.changeTokenBefore == start)
        let afterOwn = try #require(own.changeTokenAfter)
        #expect(afterOwn != start)
        #expect(try store.changeToken() == afterOwn)

        // Another store's save (another connection, as another process would be).
        try insert("p2", into: other)
        #expect(try store.hasChanged(since: afterOwn))
        let next = try insert("p3", into: store)
        #expect(next.changeTokenBefore != afterOwn, "someone committed between the two saves")

        // Tokens of two stores never compare equal, even on one file.
        #expect(try other.changeToken() != store.changeToken())
        #expect(try other.hasChanged(since: store.changeToken()))
        // An empty change set writes nothing and reports no tokens.
        #expect(try store.save(ChangeSet()).changeTokenAfter == nil)
    }

    @Test func anInMemoryStoreCountsItsCommits() throws {
        let store = try SQLiteStore(inMemoryWith: model)
        let start = try store.changeToken()
        #expect(try !store.hasChanged(since: start))
        let saved = try insert("p1", into: store)
        #expect(saved.changeTokenBefore == start)
        #expect(try store.changeToken() == saved.changeTokenAfter)
        #expect(try store.hasChanged(since: start))
    }

    // MARK: The real trove executable

    @Test func anotherProcessWritingIsDetectedAndItsRowsAreThere() throws {
        let store = try SQLiteStore(url: url, model: model)
        try insert("local-0", into: store)
        let seen = try store.changeToken()
        let records = (0..<3).map { #"{"id": "remote-\#($0)", "name": "R\#($0)"}"# }
        let result = try CLIRunner.run(["import", url.path, "-", "--entity", "Photographer", "--quiet"],
                                       input: Data("[\(records.joined(separator: ","))]".utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try store.hasChanged(since: seen))
        #expect(try ids(in: store) == ["local-0", "remote-0", "remote-1", "remote-2"])
        let now = try store.changeToken()
        #expect(try !store.hasChanged(since: now))
    }

    @Test func anotherProcessWritingWhileThisOneReadsAndWrites() throws {
        let store = try SQLiteStore(url: url, model: model)
        let count = 150, rounds = 100
        let records = (0..<count).map { #"{"id": "remote-\#($0)", "name": "R\#($0)"}"# }
        var token = try store.changeToken()
        // One transaction per record, so the two processes take turns at the lock many times.
        let importer = try CLIRunner.start(["import", url.path, "-", "--entity", "Photographer", "--batch-size", "1", "--quiet"],
                                           input: Data("[\(records.joined(separator: ","))]".utf8))
        // Start writing once the importer has (bounded wait: 10 s).
        for _ in 0..<1000 where try store.count(of: "Photographer") == 0 { Thread.sleep(forTimeInterval: 0.01) }

        // The importer's commits fall between this store's saves, never inside one (the lock):
        // each gap where the token moved saw some of them.
        var gapsWithOtherCommits = 0
        var lastSeen = 0
        for round in 0..<rounds {
            let saved = try insert("local-\(round)", into: store)
            if saved.changeTokenBefore != token { gapsWithOtherCommits += 1 }
            token = try #require(saved.changeTokenAfter)
            let seen = try store.count(of: "Photographer")
            #expect(seen >= lastSeen + 1, "rows never vanish")
            lastSeen = seen
        }
        let result = importer.wait()
        #expect(result.status == 0, "\(result.stderr)")
        if try store.hasChanged(since: token) { gapsWithOtherCommits += 1 }
        #expect(gapsWithOtherCommits >= 1, "the importer's commits were detected")

        let all = try ids(in: store)
        #expect(all.count == count + rounds)
        #expect(all.contains("remote-\(count - 1)") && all.contains("local-\(rounds - 1)"))
        #expect(try integrity(of: store) == ["ok"])
    }

    // MARK: Lock contention

    @Test(.enabled(if: FileLockHolder.isAvailable, "needs util-linux flock"))
    func aWriteWaitsForTheLockThenFailsAsBusyAndSucceedsOnceItIsFree() throws {
        // The wait runs on a clock that each pause moves forward: no real time passes, and the
        // message says how long it waited: the timeout, not more.
        let clock = ManualClock()
        let store = try SQLiteStore(url: url, model: model, options: .init(busyTimeout: 0.3, clock: clock.timeSource))
        let holder = try FileLockHolder(file: dir.file("s.trove-lock"))
        let error = try #require(throws: StoreError.self) { try insert("p1", into: store) }
        #expect(error.code == .busy)
        #expect(error.message.contains("another process is writing to \(url.path) (waited 0.30 s"))
        #expect(error.message.contains("s.trove-lock"))
        #expect(error.message.contains("try again"))
        // Opening needs the lock too (GRDB and the schema check write at open).
        let opening = try #require(throws: StoreError.self) {
            try SQLiteStore(url: url, model: model, options: .init(busyTimeout: 0.1, clock: clock.timeSource))
        }
        #expect(opening.code == .busy)
        // Reads never wait for it.
        #expect(try store.count(of: "Photographer") == 0)

        holder.release()
        try insert("p1", into: store)
        #expect(try store.count(of: "Photographer") == 1)
    }

    @Test(.enabled(if: FileLockHolder.isAvailable, "needs util-linux flock"))
    func aKilledProcessHoldingTheLockDoesNotBlockTheNextWriter() throws {
        let store = try SQLiteStore(url: url, model: model, options: .init(busyTimeout: 0.2))
        let holder = try FileLockHolder(file: dir.file("s.trove-lock"))
        #expect(throws: StoreError.self) { try insert("p1", into: store) }
        holder.kill()
        #expect(holder.process.terminationReason == .uncaughtSignal)
        try insert("p1", into: store)
        #expect(try ids(in: store) == ["p1"])
    }

    // MARK: Checkpoints

    @Test func theLastStoreToCloseLeavesNoLog() throws {
        do {
            let store = try SQLiteStore(url: url, model: model)
            try insert("p1", into: store)
            #expect(walSize > 0)
        }
        // Closed under the write lock; the last connection's checkpoint emptied and removed it.
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        #expect(FileManager.default.fileExists(atPath: url.path + "-lock"), "the lock file stays")
        #expect(try ids(in: SQLiteStore(url: url, model: model)) == ["p1"])
    }


    @Test func savesCheckpointSoTheLogDoesNotGrowWithoutBound() throws {
        let name = String(repeating: "x", count: 600)
        func writeMany(pages: Int) throws -> (store: SQLiteStore, largestLog: Int) {
            let store = try SQLiteStore(url: url, model: model, options: .init(durability: .normal, autoCheckpointPages: pages))
            var largest = 0
            for round in 0..<150 {
                let entity = try #require(model.entity(named: "Photographer"))
                let inserts = (0..<4).map { ChangeSet.Insert(objectID: .temporary(entity: entity), values: [.string("\(pages)-\(round)-\($0)"), .string(name)]) }
                _ = try store.save(ChangeSet(inserts: inserts))
                largest = max(largest, walSize)
            }
            return (store, largest)
        }
        let frame = 4096 + 24
        let bounded = try writeMany(pages: 16)
        // Sixteen pages plus one save's pages, never the ~600 pages all the saves wrote.
        #expect(bounded.largestLog <= 64 * frame, "log reached \(bounded.largestLog) bytes")
        let unbounded = try writeMany(pages: 0)
        #expect(unbounded.largestLog > 200 * frame, "without automatic checkpoints the log keeps every save")

        try unbounded.store.checkpoint()
        #expect(walSize == 0, "a TRUNCATE checkpoint empties the log")
        #expect(try ids(in: bounded.store).count == 1200)
        #expect(try integrity(of: bounded.store) == ["ok"])
    }
}

/// Errors gathered from several threads.
private final class Failures: Sendable {
    private let list = Locked<[String]>([])

    func add(_ error: any Error) { list.withLock { $0.append("\(error)") } }
    var all: [String] { list.withLock { $0 } }
}
