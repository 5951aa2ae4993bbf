import Foundation

/// A typed property of an entity: its name, type, whether it may be nil, its default, the rules
/// a value must meet at save, and how the importer finds it in JSON.
public struct Attribute: Sendable, Hashable {
    /// The attribute's name, also its column name in the store.
    public var name: String
    /// The type every value must have.
    public var type: AttributeType
    /// Whether the attribute may be nil when the object is saved (default `true`).
    public var isOptional: Bool
    /// The value a newly inserted object starts with; ``AttributeValue/null`` for none.
    public var defaultValue: AttributeValue
    /// The least value (numbers, dates) or least length (strings in characters, binary in
    /// bytes) a saved value may have.
    public var minimum: AttributeValue?
    /// The greatest value (numbers, dates) or greatest length (strings, binary).
    public var maximum: AttributeValue?
    /// A regular expression a string value must match as a whole.
    public var regex: String?
    /// Import: the JSON keys or dotted key paths to read this attribute from, tried in order;
    /// empty means the attribute's name under the model's ``Model/keyStyle``.
    public var remoteKeys: [String]
    /// Import: how a string or number in JSON becomes a date.
    public var dateFormat: DateFormat?
    /// Import: the name of a registered value transformer applied before coercion.
    public var transformer: String?

    /// Declares an attribute.
    public init(
        _ name: String, _ type: AttributeType, optional: Bool = true, default defaultValue: AttributeValue = .null,
        min: AttributeValue? = nil, max: AttributeValue? = nil, regex: String? = nil,
        remoteKey: [String] = [], dateFormat: DateFormat? = nil, transformer: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = optional
        self.defaultValue = defaultValue
        self.minimum = min
        self.maximum = max
        self.regex = regex
        self.remoteKeys = remoteKey
        self.dateFormat = dateFormat
        self.transformer = transformer
    }
}

/// How the importer reads a date from JSON (`"dateFormat"` in the model file).
public enum DateFormat: Sendable, Hashable {
    /// ISO 8601, with or without fractional seconds and zone (UTC when absent).
    case iso8601
    /// A number (or numeric string) of seconds since 1970-01-01T00:00:00Z.
    case epochSeconds
    /// A number (or numeric string) of milliseconds since 1970-01-01T00:00:00Z.
    case epochMilliseconds
    /// A `DateFormatter` pattern such as `yyyy-MM-dd HH:mm:ss`, read in `en_US_POSIX`, UTC
    /// unless the pattern has a zone.
    case pattern(String)

    /// The format as written in a model file.
    public var name: String {
        switch self {
        case .iso8601: "iso8601"
        case .epochSeconds: "epochSeconds"
        case .epochMilliseconds: "epochMilliseconds"
        case .pattern(let p): p
        }
    }

    /// Reads a format from its model-file spelling; any other text is a pattern.
    public init(name: String) {
        switch name {
        case "iso8601": self = .iso8601
        case "epochSeconds": self = .epochSeconds
        case "epochMilliseconds": self = .epochMilliseconds
        default: self = .pattern(name)
        }
    }
}
