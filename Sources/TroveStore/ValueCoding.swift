import Foundation
import GRDB
import GRDBSQLite
import TroveModel

/// How attribute values are kept in SQLite columns, bound and read with SQLite's C API.
///
/// | type | column | stored as |
/// |---|---|---|
/// | string, character, uri | TEXT | the text (`URL.absoluteString`) |
/// | integer16/32/64, boolean | INTEGER | the integer (booleans 0 / 1) |
/// | double, float | REAL | the value |
/// | decimal | TEXT | the exact decimal text (no binary rounding) |
/// | date | REAL | seconds since 2001-01-01T00:00:00Z, exactly `Date`'s own value |
/// | binary | BLOB | the bytes |
/// | uuid | TEXT | the canonical upper-case form |
/// | json | TEXT | compact JSON with sorted keys |
///
/// Text is bound and read with its byte length, so a string holding NUL characters keeps them
/// (GRDB's `String` conversions stop at the first NUL).
enum ValueCoding {
    static func columnType(of type: AttributeType) -> String {
        switch type {
        case .string, .character, .uri, .decimal, .uuid, .json: "TEXT"
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .double, .float, .date: "REAL"
        case .binary: "BLOB"
        }
    }

    /// Binds `value` to parameter `index` (1-based) of `statement`.
    static func bind(_ value: AttributeValue, to statement: SQLiteStatement, at index: Int32) -> Int32 {
        switch value {
        case .null: sqlite3_bind_null(statement, index)
        case .string(let s): bindText(s, to: statement, at: index)
        case .integer(let i): sqlite3_bind_int64(statement, index, i)
        case .double(let d): sqlite3_bind_double(statement, index, d)
        case .decimal(let d): bindText(d.description, to: statement, at: index)
        case .boolean(let b): sqlite3_bind_int64(statement, index, b ? 1 : 0)
        case .date(let d): sqlite3_bind_double(statement, index, d.timeIntervalSinceReferenceDate)
        case .binary(let data):
            data.withUnsafeBytes { raw in
                // A zero-length blob needs a non-nil pointer, or SQLite stores NULL.
                sqlite3_bind_blob(statement, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count), transient)
            }
        case .uuid(let u): bindText(u.uuidString, to: statement, at: index)
        case .uri(let u): bindText(u.absoluteString, to: statement, at: index)
        case .character(let c): bindText(String(c), to: statement, at: index)
        case .json(let j): bindText(j.serialized(), to: statement, at: index)
        }
    }

    static func bindText(_ text: String, to statement: SQLiteStatement, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { utf8 in
            sqlite3_bind_text(statement, index, utf8.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(utf8.count), transient)
        }
    }

    /// Reads column `index` (0-based) of the current row as `type`; `nil` when the stored value
    /// cannot be one.
    static func read(_ statement: SQLiteStatement, column index: Int32, as type: AttributeType) -> AttributeValue? {
        let storage = sqlite3_column_type(statement, index)
        if storage == SQLITE_NULL { return .null }
        switch (type, storage) {
        case (.string, SQLITE_TEXT): return .string(text(statement, index))
        case (.integer64, SQLITE_INTEGER): return .integer(sqlite3_column_int64(statement, index))
        case (.integer32, SQLITE_INTEGER):
            let i = sqlite3_column_int64(statement, index)
            return Int32(exactly: i) != nil ? .integer(i) : nil
        case (.integer16, SQLITE_INTEGER):
            let i = sqlite3_column_int64(statement, index)
            return Int16(exactly: i) != nil ? .integer(i) : nil
        case (.double, SQLITE_FLOAT), (.float, SQLITE_FLOAT): return .double(sqlite3_column_double(statement, index))
        case (.double, SQLITE_INTEGER), (.float, SQLITE_INTEGER): return .double(Double(sqlite3_column_int64(statement, index)))
        case (.decimal, SQLITE_TEXT):
            return Decimal(string: text(statement, index), locale: posix).map { .decimal($0) }
        case (.boolean, SQLITE_INTEGER):
            let i = sqlite3_column_int64(statement, index)
            return i == 0 || i == 1 ? .boolean(i == 1) : nil
        case (.date, SQLITE_FLOAT), (.date, SQLITE_INTEGER):
            return .date(Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, index)))
        case (.binary, SQLITE_BLOB):
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return .binary(Data()) }
            return .binary(Data(bytes: bytes, count: count))
        case (.uuid, SQLITE_TEXT): return UUID(uuidString: text(statement, index)).map { .uuid($0) }
        case (.uri, SQLITE_TEXT): return URL(string: text(statement, index)).map { .uri($0) }
        case (.character, SQLITE_TEXT):
            let s = text(statement, index)
            return s.count == 1 ? s.first.map { .character($0) } : nil
        case (.json, SQLITE_TEXT): return (try? JSONValue(parsing: text(statement, index))).map { .json($0) }
        default: return nil
        }
    }

    static func text(_ statement: SQLiteStatement, _ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// What a column holds, for an error message: `INTEGER 7`, `TEXT "abc"`.
    static func describeColumn(_ statement: SQLiteStatement, _ index: Int32) -> String {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: "INTEGER \(sqlite3_column_int64(statement, index))"
        case SQLITE_FLOAT: "REAL \(sqlite3_column_double(statement, index))"
        case SQLITE_TEXT: "TEXT \"\(text(statement, index).prefix(40))\""
        case SQLITE_BLOB: "BLOB of \(sqlite3_column_bytes(statement, index)) bytes"
        default: "NULL"
        }
    }

    private static let posix = Locale(identifier: "en_US_POSIX")
    /// SQLite copies the bytes before the bind call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
