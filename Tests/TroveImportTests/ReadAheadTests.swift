import Foundation
import TroveModel
import Testing
@testable import TroveImport

/// Items handed back to a ``ReadAhead`` are freed on its producing thread — also those handed
/// back after it made its last item — and none is freed there once `stop()` returned.
@Suite struct ReadAheadTests {
    /// The threads that freed garbage, in order, and the producing thread.
    final class Log: Sendable {
        private let freed = Locked<[pthread_t]>([])
        private let producing = Locked<pthread_t?>(nil)
        var freedOn: [pthread_t] { freed.withLock { $0 } }
        var producer: pthread_t? { producing.withLock { $0 } }
        func free() { freed.withLock { $0.append(pthread_self()) } }
        func produce() { producing.withLock { $0 = pthread_self() } }
    }

    /// Notes in its log the thread that frees it.
    final class Garbage: Sendable {
        let log: Log
        init(_ log: Log) { self.log = log }
        deinit { log.free() }
    }

    @Test(.timeLimit(.minutes(1))) func handedBackItemsAreFreedOnTheProducingThreadEvenAfterItsLastItem() throws {
        let log = Log()
        let items = ReadAhead<Int>(name: "test.producer", depth: 2) { push in
            log.produce()
            for n in 0..<3 { guard push(n) else { return } }
        }
        var received: [Int] = []
        while let n = items.next() {
            received.append(n)
            items.recycle(Garbage(log))
        }
        #expect(received == [0, 1, 2])
        // The producer made its last item before the last hand-back: it frees that one too.
        // As long as it takes (the time limit cancels the wait for a producer that never frees
        // it), never a fixed time.
        while log.freedOn.count < 3 && !Task.isCancelled { Thread.sleep(forTimeInterval: 0.001) }
        let producer = try #require(log.producer)
        #expect(log.freedOn.count == 3)
        #expect(log.freedOn.allSatisfy { pthread_equal($0, producer) != 0 })
        items.stop()
    }

    @Test func stopFreesWhatIsStillHandedBackOnTheCallersThread() throws {
        let log = Log()
        let gate = Locked(false)
        // A producer still busy (as one reading a slow pipe) when the consumer stops.
        let items = ReadAhead<Int>(name: "test.busy", depth: 1) { push in
            guard push(0) else { return }
            while !gate.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.001) }
            _ = push(1)
        }
        #expect(items.next() == 0)
        items.recycle(Garbage(log))
        items.stop()
        #expect(log.freedOn.count == 1)
        #expect(log.freedOn.allSatisfy { pthread_equal($0, pthread_self()) != 0 }, "stop() frees it: the producer is busy")
        gate.withLock { $0 = true }
    }
}
