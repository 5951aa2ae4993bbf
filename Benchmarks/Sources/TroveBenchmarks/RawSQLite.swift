import Foundation
import GRDBSQLite
import Trove

/// The baselines' side: SQLite's C API with nothing between it and the caller, as a hand-written
/// program would use it. Kept thin on purpose: these few wrappers inline in a release build.
struct SQLiteFailure: Error, CustomStringConvertible {
    let description: String
}

/// A connection opened with `sqlite3_open_v2`.
final class RawDatabase {
    let handle: OpaquePointer

    init(path: String) throws {
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "code \(code)"
            sqlite3_close_v2(db)
            throw SQLiteFailure(description: "cannot open \(path): \(message)")
        }
        handle = db
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw SQLiteFailure(description: "\(sql): \(message)")
        }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw SQLiteFailure(description: "cannot prepare \(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        return RawStatement(handle: statement, db: handle)
    }

    /// `EXPLAIN QUERY PLAN` of `sql`, one step per line.
    func queryPlan(_ sql: String, arguments: [AttributeValue]) throws -> String {
        let statement = try prepare("EXPLAIN QUERY PLAN " + sql)
        try statement.bind(arguments)
        var lines: [String] = []
        while try statement.step() { lines.append(statement.text(3)) }
        return lines.joined(separator: "; ")
    }
}

/// A prepared statement, finalized when released.
final class RawStatement {
    let handle: OpaquePointer
    private let db: OpaquePointer

    init(handle: OpaquePointer, db: OpaquePointer) {
        self.handle = handle
        self.db = db
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// The names of the result columns.
    var columnNames: [String] {
        (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds Trove's arguments as a hand-written program would bind the same values.
    func bind(_ values: [AttributeValue]) throws {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let i): code = sqlite3_bind_int64(handle, index, i)
            case .boolean(let b): code = sqlite3_bind_int64(handle, index, b ? 1 : 0)
            case .double(let d): code = sqlite3_bind_double(handle, index, d)
            case .date(let d): code = sqlite3_bind_double(handle, index, d.timeIntervalSinceReferenceDate)
            case .string(let s): code = bind(s, at: index)
            default: throw SQLiteFailure(description: "the baseline binds no \(value.kindName)")
            }
            guard code == SQLITE_OK else { throw SQLiteFailure(description: "bind: \(String(cString: sqlite3_errmsg(db)))") }
        }
    }

    @inline(__always)
    func bind(_ text: String, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), Self.transient) }
    }

    @inline(__always)
    func bind(_ value: Int64, at index: Int32) -> Int32 { sqlite3_bind_int64(handle, index, value) }

    @inline(__always)
    func bind(_ value: Double, at index: Int32) -> Int32 { sqlite3_bind_double(handle, index, value) }

    /// Moves to the next row; `false` at the end.
    @inline(__always)
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteFailure(description: "step: \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    @inline(__always)
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    @inline(__always)
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    @inline(__always)
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    @inline(__always)
    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
