import Foundation
import Testing
@testable import TroveStore
import TroveModel
import TroveTesting

/// `writingExclusively`: reads and the save that depends on them with the write lock held, so
/// that no other writer commits in between; saves inside take the lock again.
extension SeveralProcessesTests {
    func count(in store: SQLiteStore) throws -> Int {
        try store.count(of: "Photographer")
    }

    @Test func aFileStoreSavesInsideWhileAnotherStoreOnTheFileWaits() throws {
        let mine = try SQLiteStore(url: url, model: model)
        let other = try SQLiteStore(url: url, model: model, options: SQLiteStore.Options(busyTimeout: 0.05))
        var refused: StoreError?
        try mine.writingExclusively {
            #expect(try count(in: mine) == 0)
            try insert("ann", into: mine)
            try insert("bob", into: mine)
            refused = #expect(throws: StoreError.self) { try insert("carl", into: other) }
            try mine.writingExclusively { _ = try insert("dora", into: mine) }
        }
        #expect(refused?.code == .busy)
        try insert("carl", into: other)
        #expect(try count(in: other) == 4)
    }

    @Test func anInMemoryStoreSavesAndReadsInsideWhileAnotherThreadWaits() throws {
        let store = try SQLiteStore(inMemoryWith: model)
        let finished = DispatchSemaphore(value: 0)
        var waited: DispatchTimeoutResult?
        try store.writingExclusively {
            try insert("ann", into: store)
            #expect(try count(in: store) == 1)
            Thread {
                _ = try? insert("bob", into: store)
                finished.signal()
            }.start()
            // The other thread's save cannot commit before this body ends.
            waited = finished.wait(timeout: .now() + 0.2)
            #expect(try count(in: store) == 1)
        }
        #expect(waited == .timedOut)
        finished.wait()
        #expect(try count(in: store) == 2)
    }
}
