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
    /// Whether the attribute lives in memory only (`"transient": true`): it has no column, a
    /// fetch gives it its default, a save writes nothing for it and an import never sets it.
    ///
    /// Changing it changes the object (its `hasChanges` is true) as any attribute does, and
    /// the context's `rollback()` puts back the value it had when last fetched or saved. A fetch or store predicate or sort cannot use it (the store has no value to test):
    /// only in-memory evaluation reads it.
    public var isTransient: Bool
    /// For a derived attribute, the key path its value is computed from by the store, in the
    /// same statement that reads the object (`"derivation"` in a model file); `nil` for an
    /// attribute that holds its own value.
    ///
    /// One of: a key path through to-one relationships to a stored attribute (`whoTook.name`);
    /// `@count` of a to-many relationship of the entity (`photos.@count`); or `@sum`, `@avg`,
    /// `@min`, `@max` of an attribute of its objects, reached through to-one relationships
    /// (`photos.@sum.views`). A derived attribute has no column and cannot be set; fetches,
    /// predicates and sorts read the computed value. Its value in memory is the one read with
    /// the object: nil for an object inserted and not yet fetched, and stale after a change it
    /// derives from until the object is fetched or refreshed again.
    public var derivation: String?
    /// Migration: the name this attribute had in the previous version of the model (Core Data's
    /// renaming identifier); a migration keeps its values. `nil` for an attribute that kept its name.
    public var renamedFrom: String?

    /// Declares an attribute.
    ///
    /// `transient: true` keeps the attribute in memory only; a `derivation` makes it derived
    /// (see ``derivation``). An attribute is one or the other, or neither. `renamedFrom` names it
    /// in the previous version of the model (see ``renamedFrom``).
    public init(
        _ name: String, _ type: AttributeType, optional: Bool = true, default defaultValue: AttributeValue = .null,
        min: AttributeValue? = nil, max: AttributeValue? = nil, regex: String? = nil,
        remoteKey: [String] = [], dateFormat: DateFormat? = nil, transformer: String? = nil,
        transient: Bool = false, derivation: String? = nil, renamedFrom: String? = nil
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
        self.isTransient = transient
        self.derivation = derivation
        self.renamedFrom = renamedFrom
    }

    /// Whether the attribute's value is computed by the store (it has a ``derivation``).
    public var isDerived: Bool { derivation != nil }

    /// Whether the store keeps the attribute in a column of its own: neither transient nor derived.
    public var isStored: Bool { !isTransient && derivation == nil }
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
