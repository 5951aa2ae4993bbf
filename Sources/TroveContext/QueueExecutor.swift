import Dispatch

/// A serial executor on a dispatch queue of its own: the executor of a ``BackgroundContext``,
/// as Core Data gives each private context its own queue.
///
/// A context's store work blocks its thread (SQLite does). On Swift's cooperative thread pool,
/// which has one thread per core, a few contexts waiting for the disk or for another process's
/// write lock would stall every task of the app; a queue's thread is not one of the pool's, so
/// blocking it stalls nothing else.
package final class QueueExecutor: SerialExecutor {
    private let queue: DispatchQueue
    /// Marks the queues of these executors.
    private static let marker = DispatchSpecificKey<Bool>()

    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.marker, value: true)
    }

    /// Whether the caller runs on such an executor's queue (for tests).
    package static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: marker) == true
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

extension QueueExecutor {
    /// Runs `work` on a queue of its own, not on Swift's cooperative pool: for one piece of
    /// blocking store work (a document's open, create, and the write of its saves).
    package static func run<T: Sendable>(_ label: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: label).async { continuation.resume(with: Result { try work() }) }
        }
    }
}
