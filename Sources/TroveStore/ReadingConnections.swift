import Foundation
import TroveModel
import GRDB
import GRDBSQLite
import Synchronization

/// Where a read prepares its statements: one of a file store's ``ReadingConnections``, or a GRDB
/// connection (the writer's, or an in-memory store's only one).
protocol StatementSource {
    /// Runs `body` with the prepared statement for `sql`, reset afterwards (see
    /// ``RawStatement/with(_:sql:_:)``).
    func withStatement<T>(_ sql: String, _ body: (RawStatement) throws -> T) throws -> T
}

extension Database: StatementSource {
    func withStatement<T>(_ sql: String, _ body: (RawStatement) throws -> T) throws -> T {
        try RawStatement.with(self, sql: sql, body)
    }
}

/// The reading connections of a file store: SQLite opened read-only on the store file, each
/// keeping its prepared statements, lent to one reader at a time.
///
/// A fetch through GRDB's pool hopped onto the reader's dispatch queue and built key paths at
/// run time: about half of the time of a fetch by unique key. A read here takes an idle
/// connection under a lock (or opens one) and runs on the caller's thread. A connection opened
/// read-only never writes nor checkpoints, so it cannot take part in the WAL-reset race that the
/// store's write lock guards against.
///
/// The connection given back last waits in ``spare``, taken and given back with one atomic
/// exchange each (which Thread Sanitizer sees, as it sees the lock): a context reading again
/// and again — one fetch after another — takes no lock (its two turns were a measurable part
/// of a fetch by unique key: `Benchmarks/README.md`, fifth round). The others wait under the lock.
final class ReadingConnections: Sendable {
    private let path: String
    private let busyTimeout: TimeInterval
    private let statementObserver: (@Sendable (String) -> Void)?
    /// A retained idle connection's address, or 0 (an `Atomic` of a pointer is not `Sendable`).
    private let spare = Atomic<UInt>(0)
    private let idle = Locked<[ReadingConnection]>([])
    /// How many times a read took or gave back its connection under the lock (for tests).
    private let lockTurns = Atomic<Int>(0)

    init(path: String, options: SQLiteStore.Options) {
        self.path = path
        self.busyTimeout = options.busyTimeout
        self.statementObserver = options.statementObserver
    }

    deinit {
        _ = takeSpare()
    }

    /// Runs `body` on an idle connection (a new one when every connection is lent), each of its
    /// statements reading the store as of its own start.
    func read<T>(_ body: (ReadingConnection) throws -> T) throws -> T {
        let connection = try takeSpare() ?? takeIdle()
            ?? ReadingConnection(path: path, busyTimeout: busyTimeout, statementObserver: statementObserver)
        defer { giveBack(connection) }
        return try body(connection)
    }

    /// The spare connection, which leaves its place; `nil` when there is none.
    private func takeSpare() -> ReadingConnection? {
        UnsafeRawPointer(bitPattern: spare.exchange(0, ordering: .acquiringAndReleasing))
            .map { Unmanaged<ReadingConnection>.fromOpaque($0).takeRetainedValue() }
    }

    /// Makes `connection` the spare one, or an idle one under the lock when there is a spare.
    private func giveBack(_ connection: ReadingConnection) {
        let retained = Unmanaged.passRetained(connection)
        let address = UInt(bitPattern: retained.toOpaque())
        guard !spare.compareExchange(expected: 0, desired: address, ordering: .acquiringAndReleasing).exchanged else { return }
        retained.release()
        lockTurns.add(1, ordering: .relaxed)
        idle.withLock { $0.append(connection) }
    }

    /// An idle connection, taken under the lock; `nil` when there is none.
    private func takeIdle() -> ReadingConnection? {
        lockTurns.add(1, ordering: .relaxed)
        return idle.withLock { $0.popLast() }
    }

    /// How many times a read took or gave back its connection under the lock.
    var lockTurnCount: Int { lockTurns.load(ordering: .relaxed) }

    /// Runs `body` as ``read(_:)`` does, inside one read transaction: every statement reads the
    /// same snapshot of the store.
    func readConsistently<T>(_ body: (ReadingConnection) throws -> T) throws -> T {
        try read { connection in
            try connection.execute("BEGIN DEFERRED")
            defer {
                // Ending a read transaction cannot fail in a way that matters: nothing was written.
                _ = sqlite3_exec(connection.handle, "COMMIT", nil, nil, nil)
            }
            return try body(connection)
        }
    }

    /// Closes the idle connections (a lent one closes when it is given back and released).
    func close() {
        _ = takeSpare()
        idle.withLock { $0.removeAll() }
    }
}

/// One read-only SQLite connection and its prepared statements, by SQL text. Used by one thread
/// at a time: ``ReadingConnections`` lends it under a lock.
final class ReadingConnection: StatementSource, @unchecked Sendable {
    let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// The statement used last: a fetch repeated with other arguments passes the very string
    /// it passed before, which compares equal at once, where hashing it in `statements` cost
    /// a twentieth of a fetch by unique key.
    private var last: (sql: String, statement: SQLiteStatement)?
    /// Keeps the statement observer alive for SQLite's trace callback.
    private let observerBox: ObserverBox?

    /// The most statements a connection keeps prepared; past it, it starts over.
    static let statementLimit = 256

    init(path: String, busyTimeout: TimeInterval, statementObserver: (@Sendable (String) -> Void)?) throws {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot open \(path) for reading: \(message)")
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Int32(clamping: Int((busyTimeout * 1000).rounded())))
        SQLFunctions.register(on: handle)
        observerBox = statementObserver.map(ObserverBox.init)
        if let observerBox {
            sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_STMT), { _, context, statement, _ in
                guard let context, let statement, let sql = sqlite3_sql(OpaquePointer(statement)) else { return 0 }
                Unmanaged<ObserverBox>.fromOpaque(context).takeUnretainedValue().observer(String(cString: sql))
                return 0
            }, Unmanaged.passUnretained(observerBox).toOpaque())
        }
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    func withStatement<T>(_ sql: String, _ body: (RawStatement) throws -> T) throws -> T {
        try RawStatement.with(statement(sql), connection: handle, sql: sql, body)
    }

    /// Runs a statement that returns no rows (`BEGIN`, `COMMIT`).
    func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
    }

    private func statement(_ sql: String) throws -> SQLiteStatement {
        if let last, last.sql == sql { return last.statement }
        if let statement = statements[sql] {
            last = (sql, statement)
            return statement
        }
        if statements.count >= Self.statementLimit {
            for statement in statements.values { sqlite3_finalize(statement) }
            statements.removeAll()
            last = nil
        }
        var statement: SQLiteStatement?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
        statements[sql] = statement
        last = (sql, statement)
        return statement
    }

    final class ObserverBox: Sendable {
        let observer: @Sendable (String) -> Void
        init(_ observer: @escaping @Sendable (String) -> Void) { self.observer = observer }
    }
}
