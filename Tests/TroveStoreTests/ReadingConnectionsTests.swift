import Foundation
import Testing
@testable import TroveStore
import TroveModel
import TroveTesting

/// A file store's reading connections: one reader after another takes the connection given back
/// last without the lock; readers at once each get a connection of their own.
@Suite struct ReadingConnectionsTests {
    /// A store of two photographers in `dir`.
    private func makeStore(in dir: TemporaryDirectory) throws -> SQLiteStore {
        let model = try SampleModels.photos()
        let store = try SQLiteStore(url: dir.file("s.trove"), model: model)
        let entity = try #require(model.entity(named: "Photographer"))
        _ = try store.save(ChangeSet(inserts: [
            .init(objectID: .temporary(entity: entity), values: ["p1", "Ann"]),
            .init(objectID: .temporary(entity: entity), values: ["p2", "Bob"]),
        ]))
        return store
    }

    @Test func readsOneAfterAnotherTakeNoLock() throws {
        let dir = try TemporaryDirectory()
        let store = try makeStore(in: dir)
        let readers = try #require(store.readers)
        let before = readers.lockTurnCount
        for _ in 0..<50 {
            #expect(try store.count(of: "Photographer") == 2)
        }
        // The first read may find no spare connection (the lock, once); every later one takes
        // the one given back before it.
        #expect(readers.lockTurnCount - before <= 1, "50 reads took the lock \(readers.lockTurnCount - before) times")
    }

    @Test func readsAtOnceEachGetTheirOwnConnection() throws {
        let dir = try TemporaryDirectory()
        let store = try makeStore(in: dir)
        let readers = try #require(store.readers)
        try readers.read { outer in
            try readers.read { inner in
                #expect(outer !== inner, "a connection is lent to one reader at a time")
                try readers.read { innermost in
                    #expect(innermost !== inner && innermost !== outer)
                }
            }
        }
        // Three connections given back: one spare, two idle under the lock; each is lent again.
        try readers.read { first in
            try readers.read { second in
                try readers.read { third in
                    #expect(Set([ObjectIdentifier(first), ObjectIdentifier(second), ObjectIdentifier(third)]).count == 3)
                }
            }
        }
        #expect(try store.count(of: "Photographer") == 2)
    }

    @Test func readersOnManyThreadsSeeEveryRow() throws {
        let dir = try TemporaryDirectory()
        let store = try makeStore(in: dir)
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<200 {
                if (try? store.count(of: "Photographer")) != 2 { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }
}
