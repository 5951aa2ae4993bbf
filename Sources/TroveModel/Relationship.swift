/// A link from objects of one entity to objects of another (or the same) entity.
public struct Relationship: Sendable, Hashable {
    /// The relationship's name.
    public var name: String
    /// The name of the entity at the other end.
    public var destination: String
    /// Whether the relationship holds many objects (a set, or a list when ``isOrdered``).
    public var isToMany: Bool
    /// Whether a to-many relationship keeps its objects in order.
    public var isOrdered: Bool
    /// The name of the relationship on the destination that points back; `nil` has no inverse
    /// (allowed, with a warning, as Core Data gives).
    public var inverse: String?
    /// What deleting the source object does to the destination objects.
    public var deleteRule: DeleteRule
    /// Whether the relationship may be empty when the object is saved (default `true`).
    public var isOptional: Bool
    /// The least number of objects a to-many relationship may hold at save.
    public var minCount: Int?
    /// The greatest number of objects a to-many relationship may hold at save.
    public var maxCount: Int?
    /// Import: the JSON keys or dotted key paths to read this relationship from, tried in order.
    public var remoteKeys: [String]
    /// Import: how a to-many relationship merges the objects a payload names.
    public var importPolicy: ImportPolicy
    /// Import: the destination attribute a scalar reference is matched against; `nil` uses the
    /// destination's single-attribute unique key.
    public var referenceKey: String?
    /// Migration: the name this relationship had in the previous version of the model (Core
    /// Data's renaming identifier); a migration keeps its links. `nil` for one that kept its name.
    public var renamedFrom: String?

    /// Declares a relationship; `renamedFrom` names it in the previous version of the model.
    public init(
        _ name: String, to destination: String, toMany: Bool = false, ordered: Bool = false,
        inverse: String? = nil, deleteRule: DeleteRule = .nullify, optional: Bool = true,
        minCount: Int? = nil, maxCount: Int? = nil, remoteKey: [String] = [],
        importPolicy: ImportPolicy = .replace, referenceKey: String? = nil, renamedFrom: String? = nil
    ) {
        self.name = name
        self.destination = destination
        self.isToMany = toMany
        self.isOrdered = ordered
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.isOptional = optional
        self.minCount = minCount
        self.maxCount = maxCount
        self.remoteKeys = remoteKey
        self.importPolicy = importPolicy
        self.referenceKey = referenceKey
        self.renamedFrom = renamedFrom
    }
}

/// What deleting an object does to the objects its relationship reaches.
public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
    /// Remove the deleted object from the destinations' inverse relationship.
    case nullify
    /// Delete the destination objects too.
    case cascade
    /// Refuse the delete (the save fails) while the relationship holds any object.
    case deny
    /// Do nothing to the destinations.
    case noAction
}

/// How an import merges a to-many relationship with the objects a payload names.
public enum ImportPolicy: String, Sendable, Hashable, CaseIterable {
    /// The payload is the whole set: objects it leaves out are unlinked, not deleted.
    case replace
    /// Objects in the payload are added; none are removed.
    case union
    /// As ``replace``, and unlinked objects are deleted.
    case replaceDeletingOrphans
}
