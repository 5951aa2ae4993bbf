import Foundation

/// Attribute values as a model file writes them (`default`, `min`, `max`).
extension Attribute {
    /// The value the JSON `json` stands for as this attribute's default, min or max.
    ///
    /// JSON that does not convert to the attribute's type comes back as ``AttributeValue/json(_:)``,
    /// so that the validators report it with the same message as a bad value built in code.
    /// `null` is no value, except for a `json` attribute, where it is the JSON `null`.
    func fileValue(from json: JSONValue, isBound: Bool) -> AttributeValue {
        if isBound, type == .string || type == .binary {
            return Self.integer(from: json).map(AttributeValue.integer) ?? .json(json)
        }
        let value: AttributeValue?
        switch (type, json) {
        case (.json, _): value = .json(json)
        case (_, .null): value = .null
        case (.integer16, _), (.integer32, _), (.integer64, _): value = Self.integer(from: json).map(AttributeValue.integer)
        case (.double, .number), (.float, .number): value = json.doubleValue.map(AttributeValue.double)
        case (.decimal, .number): value = json.decimalValue.map(AttributeValue.decimal)
        case (.boolean, .bool(let b)): value = .boolean(b)
        case (.string, .string(let s)), (.character, .string(let s)): value = .string(s)
        case (.date, .string(let s)): value = ISO8601Timestamp.date(from: s).map(AttributeValue.date)
        case (.binary, .string(let s)): value = Data(base64Encoded: s).map(AttributeValue.binary)
        case (.uuid, .string(let s)): value = UUID(uuidString: s).map(AttributeValue.uuid)
        case (.uri, .string(let s)): value = URL(string: s).map(AttributeValue.uri)
        default: value = nil
        }
        return value ?? .json(json)
    }

    /// An integral JSON number that fits `Int64` (`3`, also `3.0` or `3e2`), or `nil`.
    private static func integer(from json: JSONValue) -> Int64? {
        if let exact = json.int64Value { return exact }
        // An exact decimal prints without fraction or exponent when it is integral ("3.0" → "3").
        return json.decimalValue.flatMap { Int64($0.description) }
    }
}

extension AttributeValue {
    /// The value as a model file writes it; `nil` for ``null`` and for values a file cannot hold
    /// (the validators reject those).
    var fileJSON: JSONValue? {
        switch self {
        case .null: nil
        case .string(let s): .string(s)
        case .integer(let i): .integer(i)
        case .double(let d): .double(d)
        case .decimal(let d): d.isNaN ? nil : .number(d.description)
        case .boolean(let b): .bool(b)
        case .date(let d): ISO8601Timestamp.string(from: d).map(JSONValue.string)
        case .binary(let data): .string(data.base64EncodedString())
        case .uuid(let u): .string(u.uuidString)
        case .uri(let u): .string(u.absoluteString)
        case .character(let c): .string(String(c))
        case .json(let j): j
        }
    }
}
