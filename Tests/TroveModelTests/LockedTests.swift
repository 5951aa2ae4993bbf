import Foundation
import Testing
import TroveModel

/// `Locked` excludes threads from each other, and Thread Sanitizer sees it do so: `scripts/tsan`
/// runs this suite, where the standard library's `Mutex` draws a false "Swift access race"
/// report on Linux every time.
@Suite struct LockedTests {
    @Test func threadsAddingUnderTheLockLoseNoIncrement() {
        let counter = Locked(0)
        let rounds = 100_000
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread.detachNewThread {
                for _ in 0..<rounds { counter.withLock { $0 += 1 } }
                group.leave()
            }
        }
        group.wait()
        #expect(counter.withLock { $0 } == 2 * rounds)
    }

    @Test func anErrorThrownInsideLeavesTheLockFree() {
        struct Refused: Error {}
        let value = Locked([1])
        #expect(throws: Refused.self) {
            try value.withLock { (list: inout [Int]) throws(Refused) in
                list.append(2)
                throw Refused()
            }
        }
        #expect(value.withLock { $0 } == [1, 2], "what the body did before it threw stays")
    }
}
