import Foundation
import GRDBSQLite
import Synchronization

/// A point in a store's history of commits: take one now, ask later whether anything was
/// committed since, without reading any row.
///
/// ```swift
/// var seen = try store.changeToken()
/// // … later, e.g. when the app becomes active or a staleness interval ran out:
/// if try store.hasChanged(since: seen) {
///     seen = try store.changeToken()
///     // re-read the rows of the objects in memory
/// }
/// ```
///
/// A token compares only with tokens of the same open store: a token from another store
/// instance (even on the same file) counts as changed.
public struct StoreChangeToken: Sendable, Hashable, CustomStringConvertible {
    /// Which open store made the token.
    let storeID: UInt64
    /// The store's change counter when the token was taken.
    let version: Int64

    /// Creates the token of the open store `storeID` (from ``nextStoreID()``, taken once per
    /// open store) at its change counter `version`: for stores other than ``SQLiteStore``.
    public init(storeID: UInt64, version: Int64) {
        self.storeID = storeID
        self.version = version
    }

    public var description: String { "change token \(version) of store #\(storeID)" }

    /// A number for each open store, so that tokens of two stores never compare equal.
    public static func nextStoreID() -> UInt64 {
        storeCounter.wrappingAdd(1, ordering: .relaxed).newValue
    }
}

private let storeCounter = Atomic<UInt64>(0)

/// A read-only SQLite connection of its own that answers `PRAGMA data_version`: a number that
/// changes whenever *another* connection — in another process, or this process's writer —
/// commits to the file.
///
/// Reading it costs a look at the WAL index header (and page 1 when something changed); no table
/// is read. A `TRUNCATE`/`RESTART` checkpoint rewrites the log header, which also changes the
/// number: a rare change that changed no row, never a missed commit. The statement is reset at
/// once, so the connection never holds a read snapshot that would keep a checkpoint from
/// finishing. A read-only connection never checkpoints, not even when it is the last to close.
final class DataVersionObserver: @unchecked Sendable {  // @unchecked: the connection and statement are used only under `lock`.
    private let lock = NSLock()
    private var connection: OpaquePointer?
    private var statement: OpaquePointer?
    private let path: String

    /// Opens the connection to the (existing) store file at `path`.
    init(path: String, busyTimeout: TimeInterval) throws {
        self.path = path
        var connection: OpaquePointer?
        var code = sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
        if code == SQLITE_OK {
            sqlite3_busy_timeout(connection, Int32(clamping: Int(busyTimeout * 1000)))
            code = sqlite3_prepare_v2(connection, "PRAGMA data_version", -1, &statement, nil)
        }
        guard code == SQLITE_OK else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_finalize(statement)
            sqlite3_close(connection)
            throw StoreError(.sqlite, "opening the change observer of \(path): SQLite error \(code): \(message)")
        }
        self.connection = connection
    }

    deinit {
        close()
    }

    /// The current `data_version` of the file as this connection sees it.
    func dataVersion() throws -> Int64 {
        try lock.withLock {
            guard let statement, let connection else {
                throw StoreError(.sqlite, "reading the change token of \(path): the store is closed")
            }
            defer { sqlite3_reset(statement) }
            let code = sqlite3_step(statement)
            guard code == SQLITE_ROW else {
                let reason = String(cString: sqlite3_errmsg(connection))
                if code == SQLITE_BUSY {
                    throw StoreError(.busy, "reading the change token of \(path): the file is locked (\(reason)); try again")
                }
                throw StoreError(.sqlite, "reading the change token of \(path): SQLite error \(code): \(reason)")
            }
            return sqlite3_column_int64(statement, 0)
        }
    }

    /// Closes the connection; later reads throw. Safe to call twice.
    func close() {
        lock.withLock {
            sqlite3_finalize(statement)
            sqlite3_close(connection)
            statement = nil
            connection = nil
        }
    }
}
