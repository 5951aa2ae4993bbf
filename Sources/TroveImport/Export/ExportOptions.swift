/// How an export writes objects: their relationships, how deep, and how many objects are
/// read at a time.
public struct ExportOptions: Sendable {
    /// How an exported record holds an object's relationships.
    public enum Relationships: String, Sendable, Hashable, CaseIterable {
        /// Each related object as a record of its own, nested in this one, to ``ExportOptions/depth``
        /// levels; past the last level, as ``keys``.
        case nested
        /// Each related object as its unique key: the key's value (the relationship's
        /// `referenceKey`, or a one-attribute unique key), or an object of the key's attributes
        /// for a compound key. A to-many relationship is an array, in order when it is ordered.
        case keys
        /// No relationships.
        case none
    }

    /// How relationships are written (default ``Relationships/keys``: records that name
    /// each other, which an import of every entity's records links up again).
    public var relationships: Relationships
    /// With ``Relationships/nested``, how many levels of related objects are nested (1: the
    /// objects this one relates to, with their relationships as keys). Within ``depths``.
    public var depth: Int
    /// The depths an export accepts: 1 to 16.
    public static let depths = 1...16
    /// How many objects are read at a time (memory holds one batch, whatever the total).
    public var batchSize: Int
    /// The registry the model's `transformer` names are found in, as the import's.
    /// Values are written as they are stored: a transformer is not undone.
    public var transformers: ValueTransformerRegistry

    /// Creates options.
    public init(relationships: Relationships = .keys, depth: Int = 1, batchSize: Int = 500,
                transformers: ValueTransformerRegistry = .standard) {
        self.relationships = relationships
        self.depth = depth
        self.batchSize = batchSize
        self.transformers = transformers
    }

    /// Checks the options before an export reads anything.
    /// - Throws: ``ExportError`` `.invalidOptions` naming the option, its value and the range.
    func validate() throws(ExportError) {
        guard Self.depths.contains(depth) else {
            throw ExportError(.invalidOptions, "the depth must be from \(Self.depths.lowerBound) to \(Self.depths.upperBound) levels, not \(depth)")
        }
        guard batchSize >= 1 else {
            throw ExportError(.invalidOptions, "the batch size must be 1 or more objects, not \(batchSize)")
        }
    }
}

/// The text an export writes.
public enum ExportFormat: String, Sendable, Hashable, CaseIterable {
    /// One JSON array of records.
    case json
    /// One record per line (NDJSON), which `trove import --format ndjson` reads as it streams.
    case ndjson
}

/// Why an export could not start.
public struct ExportError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unknownEntity, invalidOptions
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The model has no such entity.
        public static let unknownEntity = Code(.unknownEntity)
        /// An option is out of its range (``ExportOptions/depths``); nothing was read.
        public static let invalidOptions = Code(.invalidOptions)

        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What was wrong and what to do.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
