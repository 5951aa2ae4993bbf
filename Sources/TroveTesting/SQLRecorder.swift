import Foundation

/// Records the SQL of every statement a store runs, for tests that count queries.
///
/// ```swift
/// let recorder = SQLRecorder()
/// let store = try SQLiteStore(url: url, model: model, options: .init(statementObserver: recorder.observer))
/// recorder.reset()
/// _ = try context.fetch(request)
/// #expect(recorder.selects.count == 1)
/// ```
///
/// `@unchecked`: `recorded` is guarded by `lock` (an `NSLock`, which Thread Sanitizer sees; it
/// reports the statements of two connections recorded at once under a `Mutex` as a race).
public final class SQLRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    /// Creates an empty recorder.
    public init() {}

    /// The observer to pass as `SQLiteStore.Options.statementObserver`.
    public var observer: @Sendable (String) -> Void {
        { [self] sql in lock.withLock { recorded.append(sql) } }
    }

    /// Every statement recorded since the last ``reset()``.
    public var statements: [String] {
        lock.withLock { recorded }
    }

    /// The `SELECT` statements that read the store's data since the last ``reset()``
    /// (GRDB's own look at `sqlite_master` when it opens a connection is left out).
    public var selects: [String] {
        statements.filter { $0.hasPrefix("SELECT") && !$0.contains("sqlite_master") }
    }

    /// Forgets what was recorded.
    public func reset() {
        lock.withLock { recorded.removeAll() }
    }
}
