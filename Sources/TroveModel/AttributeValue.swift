public import Foundation

/// A value of an attribute: what a ``ManagedObject`` holds, what a store reads and writes.
///
/// Integers of every width are ``integer(_:)``, `double` and `float` attributes are
/// ``double(_:)`` (a `float` attribute holds a value that a `Float` represents exactly).
/// ``null`` is the absence of a value. Use ``Attribute/checked(_:)`` to learn whether a value
/// fits an attribute.
public enum AttributeValue: Sendable, Hashable {
    case null
    case string(String)
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case boolean(Bool)
    case date(Date)
    case binary(Data)
    case uuid(UUID)
    case uri(URL)
    case character(Character)
    case json(JSONValue)

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name of the value's kind, for error messages ("string", "integer", …).
    public var kindName: String {
        switch self {
        case .null: "null"
        case .string: "string"
        case .integer: "integer"
        case .double: "double"
        case .decimal: "decimal"
        case .boolean: "boolean"
        case .date: "date"
        case .binary: "binary"
        case .uuid: "uuid"
        case .uri: "uri"
        case .character: "character"
        case .json: "json"
        }
    }
}

// MARK: - Literals

extension AttributeValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension AttributeValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension AttributeValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension AttributeValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
}

extension AttributeValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

// MARK: - Description

extension AttributeValue: CustomStringConvertible {
    /// The value as a person reads it in a message: strings quoted, dates in ISO 8601.
    public var description: String {
        switch self {
        case .null: "nil"
        case .string(let s): "\"\(s)\""
        case .integer(let i): String(i)
        case .double(let d): String(d)
        case .decimal(let d): d.description
        case .boolean(let b): String(b)
        case .date(let d): d.formatted(.iso8601)
        case .binary(let d): "<\(d.count) bytes>"
        case .uuid(let u): u.uuidString
        case .uri(let u): u.absoluteString
        case .character(let c): "'\(c)'"
        case .json(let j): j.serialized()
        }
    }
}
