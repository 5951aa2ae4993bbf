/// A kind of object in the graph: its attributes, relationships and unique keys.
///
/// An entity taken from a ``Model`` is *resolved*: ``attributes`` and ``relationships`` list the
/// parent's properties first, then its own, and ``uniqueBy`` includes the parent's constraints.
/// Values of an object are kept by attribute position in ``attributes``.
public struct Entity: Sendable, Hashable {
    /// The entity's name.
    public var name: String
    /// The name of the entity this one inherits from, if any.
    public var parent: String?
    /// Whether objects of exactly this entity may not be inserted (only of its sub-entities).
    public var isAbstract: Bool
    /// The attributes, in position order.
    public var attributes: [Attribute]
    /// The relationships, in declaration order.
    public var relationships: [Relationship]
    /// Uniqueness constraints: each is a list of attribute names whose values together are
    /// unique among the objects of this entity (and its sub-entities).
    public var uniqueBy: [[String]]
    /// Import: the entity's name in JSON, when it differs.
    public var remoteName: String?

    /// The names of every entity below this one (children, grandchildren, …), set by the model.
    public internal(set) var subentityNames: [String] = []
    /// The name of the topmost ancestor (this entity's own name when it has no parent); all
    /// entities of one hierarchy share one table.
    public internal(set) var rootName: String
    var attributeIndexByName: [String: Int] = [:]
    var relationshipIndexByName: [String: Int] = [:]

    /// Declares an entity.
    public init(
        _ name: String, parent: String? = nil, abstract: Bool = false, uniqueBy: [[String]] = [],
        remoteName: String? = nil, attributes: [Attribute] = [], relationships: [Relationship] = []
    ) {
        self.name = name
        self.parent = parent
        self.isAbstract = abstract
        self.attributes = attributes
        self.relationships = relationships
        self.uniqueBy = uniqueBy
        self.remoteName = remoteName
        self.rootName = name
    }

    /// Declares an entity whose attributes and relationships are listed in a builder block.
    public init(
        _ name: String, parent: String? = nil, abstract: Bool = false, uniqueBy: [[String]] = [],
        remoteName: String? = nil, @EntityBuilder _ members: () -> [EntityMember]
    ) {
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
        for member in members() {
            switch member {
            case .attribute(let a): attributes.append(a)
            case .relationship(let r): relationships.append(r)
            }
        }
        self.init(name, parent: parent, abstract: abstract, uniqueBy: uniqueBy, remoteName: remoteName,
                  attributes: attributes, relationships: relationships)
    }

    /// The position of the attribute named `name`, or `nil`.
    public func attributeIndex(named name: String) -> Int? {
        attributeIndexByName[name]
    }

    /// The attribute named `name`, or `nil`.
    public func attribute(named name: String) -> Attribute? {
        attributeIndexByName[name].map { attributes[$0] }
    }

    /// The position of the relationship named `name`, or `nil`.
    public func relationshipIndex(named name: String) -> Int? {
        relationshipIndexByName[name]
    }

    /// The relationship named `name`, or `nil`.
    public func relationship(named name: String) -> Relationship? {
        relationshipIndexByName[name].map { relationships[$0] }
    }

    /// Whether this entity is `other` or one of its sub-entities.
    public func isKind(of other: Entity) -> Bool {
        name == other.name || other.subentityNames.contains(name)
    }
}

/// An attribute or a relationship, as listed in an ``EntityBuilder`` block.
public enum EntityMember: Sendable {
    case attribute(Attribute)
    case relationship(Relationship)
}

/// Builds the members of an entity from a list of ``Attribute`` and ``Relationship`` declarations.
@resultBuilder
public enum EntityBuilder {
    public static func buildExpression(_ attribute: Attribute) -> [EntityMember] { [.attribute(attribute)] }
    public static func buildExpression(_ relationship: Relationship) -> [EntityMember] { [.relationship(relationship)] }
    public static func buildBlock(_ parts: [EntityMember]...) -> [EntityMember] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [EntityMember]?) -> [EntityMember] { part ?? [] }
    public static func buildEither(first part: [EntityMember]) -> [EntityMember] { part }
    public static func buildEither(second part: [EntityMember]) -> [EntityMember] { part }
    public static func buildArray(_ parts: [[EntityMember]]) -> [EntityMember] { parts.flatMap { $0 } }
}

/// Builds the entities of a model from a list of ``Entity`` declarations.
@resultBuilder
public enum ModelBuilder {
    public static func buildExpression(_ entity: Entity) -> [Entity] { [entity] }
    public static func buildBlock(_ parts: [Entity]...) -> [Entity] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [Entity]?) -> [Entity] { part ?? [] }
    public static func buildEither(first part: [Entity]) -> [Entity] { part }
    public static func buildEither(second part: [Entity]) -> [Entity] { part }
    public static func buildArray(_ parts: [[Entity]]) -> [Entity] { parts.flatMap { $0 } }
}
