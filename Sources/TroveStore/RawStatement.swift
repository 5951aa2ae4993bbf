import GRDB
import GRDBSQLite
import TroveModel

/// A prepared statement run through SQLite's C API: bind values, step, read columns.
///
/// GRDB (or a ``ReadingConnection``) prepares and caches the statement and owns the connection
/// and its transactions; binding and reading go through ``ValueCoding`` so that every value
/// round-trips exactly.
struct RawStatement {
    let handle: SQLiteStatement
    /// The statement's connection, for its error messages and change counts.
    private let connection: OpaquePointer?
    private let sql: String

    private init(handle: SQLiteStatement, connection: OpaquePointer?, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    /// Runs `body` with the cached statement for `sql`, and resets it afterwards: a statement
    /// left stepping would hold its connection's read snapshot open.
    static func with<T>(_ db: Database, sql: String, _ body: (RawStatement) throws -> T) throws -> T {
        try with(db.cachedStatement(sql: sql).sqliteStatement, of: db, sql: sql, body)
    }

    /// Runs `body` with `handle`, a statement of `db` prepared from `sql` and held by the caller
    /// (saving the cache's lookup of `sql` when one statement runs many times), as above.
    static func with<T>(_ handle: SQLiteStatement, of db: Database, sql: String, _ body: (RawStatement) throws -> T) throws -> T {
        try with(handle, connection: db.sqliteConnection, sql: sql, body)
    }

    /// Runs `body` with `handle`, a statement of `connection` prepared from `sql`, as above.
    static func with<T>(_ handle: SQLiteStatement, connection: OpaquePointer?, sql: String, _ body: (RawStatement) throws -> T) throws -> T {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        return try body(RawStatement(handle: handle, connection: connection, sql: sql))
    }

    /// Binds values to the parameters, in order.
    func bind(_ values: some Sequence<AttributeValue>) throws {
        var index: Int32 = 1
        for value in values {
            try check(ValueCoding.bind(value, to: handle, at: index))
            index += 1
        }
    }

    /// Binds an integer to parameter `index` (1-based).
    func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds a text to parameter `index` (1-based).
    func bind(_ value: String, at index: Int32) throws {
        try check(ValueCoding.bindText(value, to: handle, at: index))
    }

    /// Runs the statement to its end; returns the number of rows it changed.
    @discardableResult
    func execute() throws -> Int {
        while try step() {}
        return Int(sqlite3_changes(connection))
    }

    /// Moves to the next row; `false` when there is none.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let message = String(cString: sqlite3_errmsg(connection))
            let extended = sqlite3_extended_errcode(connection)
            throw DatabaseError(resultCode: ResultCode(rawValue: extended), message: message, sql: sql)
        }
    }

    /// The integer in column `index` (0-based) of the current row.
    func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Whether column `index` (0-based) of the current row is NULL.
    func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// The text in column `index` (0-based) of the current row.
    func text(at index: Int32) -> String {
        ValueCoding.text(handle, index)
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
    }
}
