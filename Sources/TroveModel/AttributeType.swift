/// The type of an attribute, as named in the model file (`"type": "integer64"`).
///
/// Each type decides how a value is checked when set, how it is stored in SQLite and how the
/// importer coerces JSON into it.
public enum AttributeType: String, Sendable, Hashable, CaseIterable, Codable {
    case string
    case integer16
    case integer32
    case integer64
    case double
    case float
    case decimal
    case boolean
    case date
    case binary
    case uuid
    case uri
    case character
    case json

    /// Whether values of this type are integers (`integer16`, `integer32`, `integer64`).
    public var isInteger: Bool {
        switch self {
        case .integer16, .integer32, .integer64: true
        default: false
        }
    }

    /// Whether values of this type are numbers (integers, `double`, `float`, `decimal`).
    public var isNumeric: Bool {
        isInteger || self == .double || self == .float || self == .decimal
    }

    /// The inclusive range an integer type holds, or `nil` for other types.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        case .integer64: Int64.min...Int64.max
        default: nil
        }
    }
}

extension AttributeType {
    /// "a string", "an integer64", for messages.
    package var withArticle: String {
        ("aeiou".contains(rawValue.prefix(1)) ? "an " : "a ") + rawValue
    }
}
