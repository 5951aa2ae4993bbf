public import Foundation

/// A JSON value, parsed strictly by RFC 8259 (see ``JSONValue/init(parsing:)``).
///
/// Numbers keep their literal text, so an integer beyond 2^53 or a long decimal keeps every
/// digit; read them with ``int64Value``, ``doubleValue`` or ``decimalValue``. An object's
/// member names compare by their bytes (see ``JSONObject``); a repeated name keeps its last value.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, as its literal JSON text (`"42"`, `"-3.5e2"`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A number value holding `value` exactly.
    public static func integer(_ value: Int64) -> JSONValue { .number(String(value)) }

    /// A number value holding `value` in its shortest round-trip form; `nil` for NaN or infinity,
    /// which JSON cannot hold.
    public static func double(_ value: Double) -> JSONValue? {
        guard value.isFinite else { return nil }
        return .number(JSONValue.numberText(value))
    }

    /// The shortest text that reads back as `value`, without a trailing `.0` for integral values.
    public static func numberText(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return String(value)
    }

    /// The number as an `Int64` when its literal is an integer (no fraction, no exponent) that
    /// fits; `nil` otherwise.
    public var int64Value: Int64? {
        guard case .number(let text) = self else { return nil }
        return Int64(text)
    }

    /// The number as a `Double` (nearest value); `nil` when this is not a number.
    public var doubleValue: Double? {
        guard case .number(let text) = self else { return nil }
        return Double(text)
    }

    /// The number as an exact `Decimal`; `nil` when this is not a number or Decimal cannot hold it.
    public var decimalValue: Decimal? {
        guard case .number(let text) = self else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The JSON kind as a word for messages: "object", "array", "string", "number", "boolean", "null".
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

// MARK: - Serialization

extension JSONValue {
    /// The value as JSON text with object keys sorted, so equal values give equal text.
    ///
    /// - Parameter pretty: indent with two spaces and put members on their own lines.
    public func serialized(pretty: Bool = false) -> String {
        var out = ""
        write(to: &out, pretty: pretty, indent: 0)
        return out
    }

    private func write(to out: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let elements):
            if elements.isEmpty { out += "[]"; return }
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                element.write(to: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            // In the order of the names' bytes: canonically equivalent names are two, and in one order.
            for (i, member) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
                if i > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                JSONValue.writeString(member.key, to: &out)
                out += pretty ? ": " : ":"
                member.value.write(to: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "}"
        }
    }

    /// Appends `s` as a JSON string literal, escaping quotes, backslashes and control characters.
    public static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .number(String(value)) }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
}
