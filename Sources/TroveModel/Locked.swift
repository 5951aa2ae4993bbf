import Foundation

/// A value shared across threads, reached only under a lock: the one lock type of the project
/// for shared state (`NSCondition` where a thread must wait for a change).
///
/// It holds an `NSLock` (a `pthread_mutex_t`), not the standard library's `Mutex`. On Linux,
/// `Mutex` waits on a priority-inheritance futex, and Thread Sanitizer sees neither that wait
/// nor the unlock that ends it: each contended `withLock` looks to it like an unsynchronized
/// access. Two threads adding 1 to a `Mutex<Int>` 200,000 times each under TSan end with the
/// exact total and a "Swift access race" report (5 runs out of 5); with `NSLock`, no report.
/// False reports would hide real ones, so every lock here is one TSan understands.
package final class Locked<Value>: @unchecked Sendable {  // @unchecked: `value` is reached only under `lock`.
    private let lock = NSLock()
    private var value: Value

    /// Guards `value`, which no one else may hold a reference into (`sending`).
    package init(_ value: consuming sending Value) {
        self.value = value
    }

    /// Runs `body` on the value, holding the lock; keep `body` short, and never take the same
    /// lock inside it (the lock is not recursive).
    package func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
