import Foundation
import TroveModel

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
public final class SQLRecorder: Sendable {
    private let recorded = Locked<[String]>([])

    /// Creates an empty recorder.
    public init() {}

    /// The observer to pass as `SQLiteStore.Options.statementObserver`.
    public var observer: @Sendable (String) -> Void {
        { [recorded] sql in recorded.withLock { $0.append(sql) } }
    }

    /// Every statement recorded since the last ``reset()``.
    public var statements: [String] {
        recorded.withLock { $0 }
    }

    /// The `SELECT` statements that read the store's data since the last ``reset()``
    /// (GRDB's own look at `sqlite_master` when it opens a connection is left out).
    public var selects: [String] {
        statements.filter { $0.hasPrefix("SELECT") && !$0.contains("sqlite_master") }
    }

    /// Forgets what was recorded.
    public func reset() {
        recorded.withLock { $0.removeAll() }
    }
}
