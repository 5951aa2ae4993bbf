import Foundation
import GRDB
import TroveModel

/// How attribute values are kept in SQLite columns.
///
/// | type | column | stored as |
/// |---|---|---|
/// | string, character, uri | TEXT | the text (`URL.absoluteString`) |
/// | integer16/32/64, boolean | INTEGER | the integer (booleans 0 / 1) |
/// | double, float | REAL | the value |
/// | decimal | TEXT | the exact decimal text (`"12.50"` keeps no binary rounding) |
/// | date | REAL | seconds since 2001-01-01T00:00:00Z, exactly `Date`'s own value |
/// | binary | BLOB | the bytes |
/// | uuid | TEXT | the canonical upper-case form |
/// | json | TEXT | compact JSON with sorted keys |
enum ValueCoding {
    static func columnType(of type: AttributeType) -> String {
        switch type {
        case .string, .character, .uri, .decimal, .uuid, .json: "TEXT"
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .double, .float, .date: "REAL"
        case .binary: "BLOB"
        }
    }

    static func databaseValue(_ value: AttributeValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .string(let s): s.databaseValue
        case .integer(let i): i.databaseValue
        case .double(let d): d.databaseValue
        case .decimal(let d): d.description.databaseValue
        case .boolean(let b): (b ? 1 as Int64 : 0).databaseValue
        case .date(let d): d.timeIntervalSinceReferenceDate.databaseValue
        case .binary(let d): d.databaseValue
        case .uuid(let u): u.uuidString.databaseValue
        case .uri(let u): u.absoluteString.databaseValue
        case .character(let c): String(c).databaseValue
        case .json(let j): j.serialized().databaseValue
        }
    }

    /// Reads a stored value as `type`; `nil` when the stored value cannot be one.
    static func attributeValue(_ dbValue: DatabaseValue, as type: AttributeType) -> AttributeValue? {
        switch (type, dbValue.storage) {
        case (_, .null): return .null
        case (.string, .string(let s)): return .string(s)
        case (.integer16, .int64(let i)), (.integer32, .int64(let i)), (.integer64, .int64(let i)):
            return .integer(i)
        case (.double, .double(let d)), (.float, .double(let d)): return .double(d)
        case (.double, .int64(let i)), (.float, .int64(let i)): return .double(Double(i))
        case (.decimal, .string(let s)):
            return Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")).map { .decimal($0) }
        case (.boolean, .int64(let i)) where i == 0 || i == 1: return .boolean(i == 1)
        case (.date, .double(let d)): return .date(Date(timeIntervalSinceReferenceDate: d))
        case (.date, .int64(let i)): return .date(Date(timeIntervalSinceReferenceDate: Double(i)))
        case (.binary, .blob(let d)): return .binary(d)
        case (.uuid, .string(let s)): return UUID(uuidString: s).map { .uuid($0) }
        case (.uri, .string(let s)): return URL(string: s).map { .uri($0) }
        case (.character, .string(let s)) where s.count == 1: return s.first.map { .character($0) }
        case (.json, .string(let s)): return (try? JSONValue(parsing: s)).map { .json($0) }
        default: return nil
        }
    }
}
