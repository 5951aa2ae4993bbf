import Foundation
import NIOCore
import PostgresNIO
import TroveModel
import TrovePredicate
import TroveStore

/// How attribute values are kept in PostgreSQL columns.
///
/// | type | column | stored as |
/// |---|---|---|
/// | string, character, uri | `text COLLATE "C"` | the text (`URL.absoluteString`); sorted by code point, as SQLite's `BINARY` |
/// | integer16, integer32, integer64 | `smallint`, `integer`, `bigint` | the integer |
/// | boolean | `smallint` | 0 / 1, so that it compares with numbers as in SQLite and in memory |
/// | double, float | `double precision` | the value |
/// | decimal | `numeric` | the exact decimal (sent and read as its text) |
/// | date | `double precision` | seconds since 2001-01-01T00:00:00Z, exactly `Date`'s own value (`timestamptz` keeps microseconds only) |
/// | binary | `bytea` | the bytes |
/// | uuid | `text COLLATE "C"` | the canonical upper-case form, as in SQLite |
/// | json | `text COLLATE "C"` | compact JSON with sorted keys |
///
/// PostgreSQL's text cannot hold the NUL character: a string holding one is refused by the save
/// with ``StoreError/Code/constraintViolation``, naming the object and the attribute.
enum PostgresValues {
    static func columnType(of type: AttributeType) -> String {
        switch type {
        case .string, .character, .uri, .uuid, .json: "text COLLATE \"C\""
        case .integer16, .boolean: "smallint"
        case .integer32: "integer"
        case .integer64: "bigint"
        case .double, .float, .date: "double precision"
        case .decimal: "numeric"
        case .binary: "bytea"
        }
    }

    /// Appends `value` to `bindings`.
    /// - Throws: ``StoreError/Code/constraintViolation`` for text holding NUL.
    static func bind(_ value: AttributeValue, to bindings: inout PostgresBindings) throws {
        switch value {
        case .null: bindings.appendNull()
        case .string(let s): bindings.append(try text(s))
        case .integer(let i): bindings.append(i)
        case .double(let d): bindings.append(d)
        case .decimal(let d): bindings.append(NumericText(d))
        case .boolean(let b): bindings.append(Int64(b ? 1 : 0))
        case .date(let d): bindings.append(d.timeIntervalSinceReferenceDate)
        case .binary(let data): bindings.append(ByteBuffer(bytes: data))
        case .uuid(let u): bindings.append(u.uuidString)
        case .uri(let u): bindings.append(try text(u.absoluteString))
        case .character(let c): bindings.append(try text(String(c)))
        case .json(let j): bindings.append(try text(j.serialized()))
        }
    }

    private static func text(_ s: String) throws -> String {
        guard !s.utf8.contains(0) else { throw NULInText() }
        return s
    }

    /// The error ``bind(_:to:)`` throws for text with a NUL character; the caller names the place.
    struct NULInText: Error {}

    /// Reads `cell` as a value of `type`; `nil` when it holds no valid value of that type.
    static func read(_ cell: PostgresCell, as type: AttributeType) -> AttributeValue? {
        guard var bytes = cell.bytes else { return .null }
        switch type {
        case .string:
            return (try? cell.decode(String.self)).map { .string($0) }
        case .integer16, .integer32, .integer64:
            guard let i = try? cell.decode(Int64.self), type.integerRange?.contains(i) ?? true else { return nil }
            return .integer(i)
        case .boolean:
            guard let i = try? cell.decode(Int64.self), i == 0 || i == 1 else { return nil }
            return .boolean(i == 1)
        case .double, .float:
            return (try? cell.decode(Double.self)).map { .double($0) }
        case .date:
            return (try? cell.decode(Double.self)).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .decimal:
            return NumericText.decimal(from: &bytes, format: cell.format).map { .decimal($0) }
        case .binary:
            return .binary(Data(bytes.readableBytesView))
        case .uuid:
            return (try? cell.decode(String.self)).flatMap(UUID.init(uuidString:)).map { .uuid($0) }
        case .uri:
            return (try? cell.decode(String.self)).flatMap { URL(string: $0) }.map { .uri($0) }
        case .character:
            guard let s = try? cell.decode(String.self), s.count == 1, let c = s.first else { return nil }
            return .character(c)
        case .json:
            return (try? cell.decode(String.self)).flatMap { try? JSONValue(parsing: $0) }.map { .json($0) }
        }
    }

    /// What a cell holds, for an error message.
    /// A value of an aggregate's result of `type`: as ``read(_:as:)``, except that a sum of
    /// integers (PostgreSQL's `numeric`) is an integer while it fits in `Int64` and a double past
    /// that, as ``PredicateAccumulator`` keeps it.
    static func readAggregate(_ cell: PostgresCell, as type: AttributeType) -> AttributeValue? {
        guard type == .integer64, cell.dataType == .numeric, var bytes = cell.bytes else { return read(cell, as: type) }
        guard let decimal = NumericText.decimal(from: &bytes, format: cell.format) else { return nil }
        let text = decimal.description
        if let integer = Int64(text) { return .integer(integer) }
        return Double(text).map { .double($0) }
    }

    static func describe(_ cell: PostgresCell) -> String {
        guard let bytes = cell.bytes else { return "NULL" }
        return "a \(cell.dataType) value of \(bytes.readableBytes) bytes"
    }
}

/// A decimal sent to PostgreSQL as its exact text, typed `numeric`: the server parses it, so
/// no digit is lost on the way (its binary form would go through a conversion of our own).
struct NumericText: PostgresNonThrowingEncodable {
    let text: String

    init(_ decimal: Decimal) {
        text = decimal.description
    }

    static var psqlType: PostgresDataType { .numeric }
    static var psqlFormat: PostgresFormat { .text }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeString(text)
    }

    /// Reads a `numeric` in PostgreSQL's binary form (digit count, weight, sign, display scale,
    /// then base-10000 digits) or as text, into an exact `Decimal`; `nil` for NaN, infinities
    /// or a malformed value.
    static func decimal(from buffer: inout ByteBuffer, format: PostgresFormat) -> Decimal? {
        if format == .text {
            return buffer.readString(length: buffer.readableBytes).flatMap { Decimal(string: $0, locale: posix) }
        }
        guard let count = buffer.readInteger(as: Int16.self), let weight = buffer.readInteger(as: Int16.self),
              let sign = buffer.readInteger(as: UInt16.self), buffer.readInteger(as: Int16.self) != nil,
              count >= 0, sign == 0x0000 || sign == 0x4000 else { return nil }
        var digits = ""
        for _ in 0..<count {
            guard let group = buffer.readInteger(as: Int16.self), (0..<10_000).contains(group) else { return nil }
            let text = String(group)
            digits += String(repeating: "0", count: 4 - text.count) + text
        }
        // The first group's value is scaled by 10000^weight: the number is the digits times
        // 10^(4 * (weight - count + 1)). Zeros at either end are dropped (the exponent takes
        // the trailing ones), so that no more than the value's own digits reach the parser.
        var exponent = 4 * (Int(weight) - Int(count) + 1)
        while digits.last == "0" {
            digits.removeLast()
            exponent += 1
        }
        digits = String(digits.drop { $0 == "0" })
        if digits.isEmpty { return Decimal(0) }
        return Decimal(string: (sign == 0x4000 ? "-" : "") + digits + "e" + String(exponent), locale: posix)
    }

    private static let posix = Locale(identifier: "en_US_POSIX")
}
