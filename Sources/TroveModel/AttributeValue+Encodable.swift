import Foundation

/// A value encodes as the single value it holds, so that any `Encoder` writes it in its own
/// style: `null`, a string, a number (integers with every digit; decimals exact as `Decimal`),
/// a boolean, a `Date`, `Data`, `UUID` or `URL` (as the encoder's strategies write them), a
/// character as a one-character string, and `json` as the JSON it holds.
extension AttributeValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .string(let s): try container.encode(s)
        case .integer(let i): try container.encode(i)
        case .double(let d): try container.encode(d)
        case .decimal(let d): try container.encode(d)
        case .boolean(let b): try container.encode(b)
        case .date(let d): try container.encode(d)
        case .binary(let d): try container.encode(d)
        case .uuid(let u): try container.encode(u)
        case .uri(let u): try container.encode(u)
        case .character(let c): try container.encode(String(c))
        case .json(let j): try container.encode(j)
        }
    }
}

/// A JSON value encodes as itself: a number keeps its literal (as a `Decimal` when it is not
/// an `Int64`, so no digit is lost to a `Double`).
extension JSONValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let b):
            var container = encoder.singleValueContainer()
            try container.encode(b)
        case .number(let text):
            var container = encoder.singleValueContainer()
            if let integer = Int64(text) {
                try container.encode(integer)
            } else if let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) {
                try container.encode(decimal)
            } else {
                try container.encode(Double(text) ?? 0)
            }
        case .string(let s):
            var container = encoder.singleValueContainer()
            try container.encode(s)
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .object(let members):
            var container = encoder.container(keyedBy: JSONKey.self)
            for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                try container.encode(value, forKey: JSONKey(key))
            }
        }
    }

    /// A member name of a JSON object, as a coding key.
    private struct JSONKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
