import Synchronization

/// The identity of an object, valid across contexts and threads.
///
/// An object inserted in a context has a temporary ID until its first save, then a permanent
/// one that names its row. Pass IDs, never objects, between contexts.
///
/// Two IDs are equal when they name the same row: the same entity hierarchy (all entities
/// below one root share a table) and primary key. ``entityName`` is the most specific entity
/// known when the ID was made: an ID read from a relationship to `Media` may name an `Image`.
///
/// An ID is `Codable`, so that Foundation's typed predicates can capture one:
/// `#Predicate<Photo> { $0.whoTook?.objectID == ann.objectID }`.
public struct ObjectID: Sendable, Hashable, Codable, CustomStringConvertible {
    // The parts that registries, row decoding and lookups read for every object are
    // `@usableFromInline`, and those reads `@inlinable`: as calls into this module they were
    // a few percent of iterating fetched objects.
    @usableFromInline
    enum Key: Sendable, Hashable, Codable {
        case temporary(UInt64)
        case permanent(Int64)
    }

    /// The names of an entity and of its hierarchy's root, shared by every ID of the entity:
    /// copying an ID copies one reference, not two strings.
    @usableFromInline
    final class Names: Sendable, Hashable {
        @usableFromInline let entity: String
        @usableFromInline let root: String

        init(entity: String, root: String) {
            self.entity = entity
            self.root = root
        }

        @usableFromInline
        static func == (lhs: Names, rhs: Names) -> Bool {
            lhs === rhs || (lhs.entity == rhs.entity && lhs.root == rhs.root)
        }

        @usableFromInline
        func hash(into hasher: inout Hasher) {
            hasher.combine(entity)
            hasher.combine(root)
        }
    }

    @usableFromInline let names: Names
    @usableFromInline let key: Key

    /// The name of the object's entity, as specific as known (see the type's discussion).
    @inlinable public var entityName: String { names.entity }
    /// The root of the entity's hierarchy, whose table holds the row.
    @inlinable public var rootEntityName: String { names.root }

    /// An ID for the stored row with primary key `primaryKey` of `entity`.
    public init(entity: Entity, primaryKey: Int64) {
        self.init(names: entity.idNames, key: .permanent(primaryKey))
    }

    @usableFromInline
    init(names: Names, key: Key) {
        self.names = names
        self.key = key
    }

    private static let nextTemporary = Atomic<UInt64>(1)

    /// A new temporary ID for an object of `entity`, unique in this process.
    public static func temporary(entity: Entity) -> ObjectID {
        let n = nextTemporary.wrappingAdd(1, ordering: .relaxed).oldValue
        return ObjectID(names: entity.idNames, key: .temporary(n))
    }

    /// The permanent ID a save gives the object of this temporary ID: the same entity, the
    /// row's primary key.
    @inlinable
    public func saved(as primaryKey: Int64) -> ObjectID {
        ObjectID(names: names, key: .permanent(primaryKey))
    }

    /// Whether the object has not been saved yet.
    @inlinable
    public var isTemporary: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The number of a temporary ID (numbers grow in the order IDs are made); `nil` once saved.
    package var temporaryNumber: UInt64? {
        if case .temporary(let n) = key { return n }
        return nil
    }

    /// The row's primary key in the store; `nil` while temporary.
    @inlinable
    public var primaryKey: Int64? {
        if case .permanent(let pk) = key { return pk }
        return nil
    }

    @inlinable
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.key == rhs.key && (lhs.names === rhs.names || lhs.names.root == rhs.names.root)
    }

    // The key alone, in one word: equal IDs have equal keys, IDs of different tables rarely
    // share one, and hashing the entity's name too would double the cost of every set and
    // dictionary of IDs.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keyBits)
    }

    // What sets and dictionaries call: the key's one word hashed in one go, as `UInt64` does
    // it, instead of a hasher made, fed and finalized (a third of the cost; a save of n inserts
    // hashes some 18n IDs).
    @inlinable
    public func _rawHashValue(seed: Int) -> Int {
        keyBits._rawHashValue(seed: seed)
    }

    private enum CodingKeys: String, CodingKey {
        case entityName, rootEntityName, key
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        names = Names(entity: try container.decode(String.self, forKey: .entityName),
                      root: try container.decode(String.self, forKey: .rootEntityName))
        key = try container.decode(Key.self, forKey: .key)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(names.entity, forKey: .entityName)
        try container.encode(names.root, forKey: .rootEntityName)
        try container.encode(key, forKey: .key)
    }

    /// The key as one word, for hash tables of IDs: a stored object's primary key, or a
    /// temporary ID's counter, its bits inverted.
    @inlinable
    package var keyBits: UInt64 {
        switch key {
        case .permanent(let pk): UInt64(bitPattern: pk)
        case .temporary(let n): ~n
        }
    }

    /// `Photo/42` for a stored object, `Photo/t7` for a temporary one.
    public var description: String {
        switch key {
        case .temporary(let n): "\(entityName)/t\(n)"
        case .permanent(let pk): "\(entityName)/\(pk)"
        }
    }
}
