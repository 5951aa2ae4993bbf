#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TroveModel

/// The cross-process write lock of a store file: an exclusive `flock(2)` on `STORE-lock`,
/// a file of its own beside the store.
///
/// Every write transaction and every WAL checkpoint of a file store runs while this lock is
/// held, because the SQLite linked here (3.40.1) has the WAL-reset bug (fixed in 3.51.3): two
/// connections that write or checkpoint at the same instant can corrupt the database.
///
/// Why `flock` on a dedicated file:
/// - SQLite takes POSIX (`fcntl`) locks on the store file itself. `flock` locks on another file
///   never interact with them (on NFS, Linux emulates `flock` with `fcntl` locks, which would
///   collide with SQLite's if taken on the store file).
/// - A `flock` lock belongs to the open file description, so two stores opened on one file in
///   one process exclude each other just as two processes do. POSIX locks would not: they are
///   per process, and any `close` of the file by the process drops them.
/// - The kernel drops the lock when the process dies, even by `SIGKILL`: a killed writer never
///   blocks the next one.
///
/// The lock file is never deleted: a process that opened a file since deleted would lock an
/// inode nobody else sees. Within a process, holders are serialized by a recursive lock first,
/// since `flock` on one descriptor does not exclude two threads; a thread holding the lock may
/// take it again (a save inside ``SQLiteStore/writingExclusively(_:)``), and the `flock` is
/// taken by the outermost hold only.
final class WriteLock: Sendable {
    /// The lock file, `STORE-lock`.
    let path: String
    /// The store file the lock guards, for messages.
    let storePath: String
    private let descriptor: Int32
    private let holder = NSRecursiveLock()
    /// How many holds the thread holding `holder` has nested (changed only by that thread).
    private let depth = Locked<Int>(0)

    /// Opens (creating if needed) the lock file of the store at `storePath`.
    /// - Throws: ``StoreError/Code/fileAccess`` when the file can be neither created nor opened.
    init(storePath: String) throws {
        self.storePath = storePath
        self.path = storePath + "-lock"
        var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        var failure = errno
        if descriptor < 0, failure == EACCES || failure == EROFS {
            // flock needs no write access: a lock file made by another user still serves.
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            // No lock file to fall back on: why it could not be made is the reason to give.
            if descriptor < 0, errno != ENOENT { failure = errno }
        }
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(failure))
            throw StoreError(.fileAccess,
                "cannot create or open the write-lock file \(path) of \(storePath): \(reason); the folder must be writable for the store to be written")
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Runs `body` holding the lock, waiting for it at most `timeout` seconds; at once when this
    /// thread holds it already.
    ///
    /// The wait for another process (or another store on the same file) is measured on `clock`,
    /// which also pauses between attempts; the wait for another thread of this store is the
    /// lock's own, woken when that thread lets go.
    /// - Parameter doing: what the caller is doing, for the error message ("saving").
    /// - Throws: ``StoreError/Code/busy`` naming the store and the wait when the lock stayed
    ///   held by another process (or another store on the same file) for `timeout`; whatever
    ///   `body` throws.
    func withLock<T>(timeout: TimeInterval, clock: TimeSource, doing: String, _ body: () throws -> T) throws -> T {
        let limit = Duration.seconds(max(timeout, 0))
        let start = clock.now
        guard holder.lock(before: Date(timeIntervalSinceNow: max(timeout, 0))) else {
            throw busy(doing: doing, waited: clock.now - start)
        }
        defer { holder.unlock() }
        let outermost = depth.withLock { depth in
            depth += 1
            return depth == 1
        }
        defer { depth.withLock { $0 -= 1 } }
        if outermost { try acquire(until: start + limit, clock: clock, doing: doing, since: start) }
        defer { if outermost { release() } }
        return try body()
    }

    /// Takes the `flock`, polling with a growing pause (1 ms to 20 ms) until `deadline` on
    /// `clock`: `flock` itself has no timeout, and an alarm signal is no tool for a library.
    private func acquire(until deadline: Duration, clock: TimeSource, doing: String, since start: Duration) throws {
        var pause = Duration.milliseconds(1)
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return }
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else {
                throw StoreError(.fileAccess,
                    "\(doing): cannot lock \(path), the write lock of \(storePath): \(String(cString: strerror(code)))")
            }
            let left = deadline - clock.now
            guard left > .zero else { throw busy(doing: doing, waited: clock.now - start) }
            clock.sleep(for: min(pause, left))
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    private func release() {
        while flock(descriptor, LOCK_UN) != 0, errno == EINTR {}
    }

    private func busy(doing: String, waited: Duration) -> StoreError {
        let (seconds, attoseconds) = waited.components
        let text = String(format: "%.2f", Double(seconds) + Double(attoseconds) / 1e18)
        return StoreError(.busy,
            "\(doing): another process is writing to \(storePath) (waited \(text) s for its write lock \(path)); try again when it has finished")
    }
}
