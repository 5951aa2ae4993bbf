/// A kind of object in the graph: its attributes, relationships and unique keys.
///
/// An entity taken from a ``Model`` is *resolved*: ``attributes`` and ``relationships`` list the
/// parent's properties first, then its own, and ``uniqueBy`` includes the parent's constraints.
/// Values of an object are kept by attribute position in ``attributes``.
///
/// An entity is a value with one reference inside (copy on write): every object holds its
/// entity, and copying one costs a retain, not one per part.
public struct Entity: Sendable, Hashable {
    /// The parts, shared by copies until one of them changes.
    private struct Parts: Sendable, Hashable {
        var name: String
        var parent: String?
        var isAbstract: Bool
        var attributes: [Attribute] {
            didSet { facts = AttributeFacts(attributes) }
        }
        var relationships: [Relationship]
        var uniqueBy: [[String]]
        var remoteName: String?
        var renamedFrom: String?
        var subentityNames: [String] = []
        var rootName: String
        var attributeIndexByName: [String: Int] = [:]
        var relationshipIndexByName: [String: Int] = [:]
        var facts = AttributeFacts()
        /// The names every ID of the entity shares (see ``ObjectID``).
        var idNames: ObjectID.Names
    }

    // @unchecked: `parts` changes only through `mutate`, on a box no other entity holds; so no
    // access can overlap another, and the runtime's exclusivity checks (on every read of every
    // object's entity) are left out.
    private final class Box: @unchecked Sendable {
        @exclusivity(unchecked) var parts: Parts
        init(_ parts: Parts) { self.parts = parts }
    }

    private var box: Box

    private mutating func mutate(_ change: (inout Parts) -> Void) {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.parts) }
        change(&box.parts)
    }

    /// The entity's name.
    public var name: String {
        get { box.parts.name }
        set {
            mutate {
                $0.name = newValue
                $0.idNames = ObjectID.Names(entity: newValue, root: $0.rootName)
            }
        }
    }
    /// The name of the entity this one inherits from, if any.
    public var parent: String? {
        get { box.parts.parent }
        set { mutate { $0.parent = newValue } }
    }
    /// Whether objects of exactly this entity may not be inserted (only of its sub-entities).
    public var isAbstract: Bool {
        get { box.parts.isAbstract }
        set { mutate { $0.isAbstract = newValue } }
    }
    /// The attributes, in position order.
    public var attributes: [Attribute] {
        get { box.parts.attributes }
        set { mutate { $0.attributes = newValue } }
    }
    /// The relationships, in declaration order.
    public var relationships: [Relationship] {
        get { box.parts.relationships }
        set { mutate { $0.relationships = newValue } }
    }
    /// Uniqueness constraints: each is a list of attribute names whose values together are
    /// unique among the objects of this entity (and its sub-entities).
    public var uniqueBy: [[String]] {
        get { box.parts.uniqueBy }
        set { mutate { $0.uniqueBy = newValue } }
    }
    /// Import: the entity's name in JSON, when it differs.
    public var remoteName: String? {
        get { box.parts.remoteName }
        set { mutate { $0.remoteName = newValue } }
    }

    /// Migration: the name this entity had in the previous version of the model (Core Data's
    /// renaming identifier). A migration finds the entity's rows under that name, or under the
    /// entity's own name when the stored model has no entity of that name (a store already
    /// migrated); `nil` for an entity that kept its name.
    public var renamedFrom: String? {
        get { box.parts.renamedFrom }
        set { mutate { $0.renamedFrom = newValue } }
    }

    /// The names of every entity below this one (children, grandchildren, …), set by the model.
    public internal(set) var subentityNames: [String] {
        get { box.parts.subentityNames }
        set { mutate { $0.subentityNames = newValue } }
    }
    /// The name of the topmost ancestor (this entity's own name when it has no parent); all
    /// entities of one hierarchy share one table.
    public internal(set) var rootName: String {
        get { box.parts.rootName }
        set {
            mutate {
                $0.rootName = newValue
                $0.idNames = ObjectID.Names(entity: $0.name, root: newValue)
            }
        }
    }
    /// The names every ID of the entity shares.
    var idNames: ObjectID.Names { box.parts.idNames }
    var attributeIndexByName: [String: Int] {
        get { box.parts.attributeIndexByName }
        set { mutate { $0.attributeIndexByName = newValue } }
    }
    var relationshipIndexByName: [String: Int] {
        get { box.parts.relationshipIndexByName }
        set { mutate { $0.relationshipIndexByName = newValue } }
    }

    /// The type of each attribute, by position: what a change of a value is checked against.
    package var attributeTypes: [AttributeType] { box.parts.facts.types }
    /// The default value of each attribute, by position: the values of a new object.
    package var defaultValues: [AttributeValue] { box.parts.facts.defaultValues }
    /// Whether an attribute is derived (and so cannot be set).
    package var hasDerivedAttributes: Bool { box.parts.facts.hasDerived }
    /// The attributes a save checks (see ``Attribute/isCheckedAtSave``), in position order.
    package var attributesCheckedAtSave: [CheckedAttribute] { box.parts.facts.checkedAtSave }

    /// An attribute a save checks: its position, and whether it has rules beyond being required
    /// (a min, max or regex); a required one without them needs a look only when nil.
    package struct CheckedAttribute: Sendable, Hashable {
        package let position: Int
        package let hasRules: Bool
    }

    /// What objects read of the attributes on every change, derived from them and kept with
    /// them. Left out of the entity's equality and hashing: they follow from the attributes.
    fileprivate struct AttributeFacts: Sendable, Hashable {
        var types: [AttributeType] = []
        var defaultValues: [AttributeValue] = []
        var hasDerived = false
        var checkedAtSave: [CheckedAttribute] = []
        /// Each attribute's name as the two words a `String` is made of (see ``NameWords``).
        var nameWords: [NameWords] = []

        init() {}

        init(_ attributes: [Attribute]) {
            types = attributes.map(\.type)
            defaultValues = attributes.map(\.defaultValue)
            hasDerived = attributes.contains { $0.derivation != nil }
            checkedAtSave = attributes.indices.filter { attributes[$0].isCheckedAtSave }.map { position in
                let attribute = attributes[position]
                return CheckedAttribute(position: position, hasRules: attribute.minimum != nil || attribute.maximum != nil || attribute.regex != nil)
            }
            nameWords = attributes.map { NameWords($0.name) }
        }

        static func == (lhs: AttributeFacts, rhs: AttributeFacts) -> Bool { true }
        func hash(into hasher: inout Hasher) {}
    }

    /// The two words a `String` value is made of. A string of up to 15 UTF-8 bytes keeps them
    /// inline, so the same short text always has the same words (a name written as a literal
    /// has those of the attribute's own name); a longer one's words point to its storage. Equal
    /// words are equal strings (the attribute's name keeps that storage alive); different words
    /// say nothing, and the name is then looked up by hashing.
    fileprivate struct NameWords: Sendable, Hashable {
        let first: UInt64
        let second: UInt64

        init(_ string: String) {
            (first, second) = unsafeBitCast(string, to: (UInt64, UInt64).self)
        }
    }

    /// Declares an entity; `renamedFrom` names it in the previous version of the model (see ``renamedFrom``).
    public init(
        _ name: String, parent: String? = nil, abstract: Bool = false, uniqueBy: [[String]] = [],
        remoteName: String? = nil, renamedFrom: String? = nil, attributes: [Attribute] = [], relationships: [Relationship] = []
    ) {
        box = Box(Parts(name: name, parent: parent, isAbstract: abstract, attributes: attributes, relationships: relationships,
                        uniqueBy: uniqueBy, remoteName: remoteName, renamedFrom: renamedFrom, rootName: name, facts: AttributeFacts(attributes),
                        idNames: ObjectID.Names(entity: name, root: name)))
    }

    public static func == (lhs: Entity, rhs: Entity) -> Bool {
        lhs.box === rhs.box || lhs.box.parts == rhs.box.parts
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(box.parts)
    }

    /// Declares an entity whose attributes and relationships are listed in a builder block.
    public init(
        _ name: String, parent: String? = nil, abstract: Bool = false, uniqueBy: [[String]] = [],
        remoteName: String? = nil, renamedFrom: String? = nil, @EntityBuilder _ members: () -> [EntityMember]
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
                  renamedFrom: renamedFrom, attributes: attributes, relationships: relationships)
    }

    /// The position of the attribute named `name`, or `nil`.
    public func attributeIndex(named name: String) -> Int? {
        // Words first: the dynamic API names attributes with literals, found here without hashing.
        let words = NameWords(name)
        if let index = box.parts.facts.nameWords.firstIndex(of: words) { return index }
        return box.parts.attributeIndexByName[name]
    }

    /// The attribute named `name`, or `nil`.
    public func attribute(named name: String) -> Attribute? {
        box.parts.attributeIndexByName[name].map { box.parts.attributes[$0] }
    }

    /// The position of the relationship named `name`, or `nil`.
    public func relationshipIndex(named name: String) -> Int? {
        box.parts.relationshipIndexByName[name]
    }

    /// The relationship named `name`, or `nil`.
    public func relationship(named name: String) -> Relationship? {
        box.parts.relationshipIndexByName[name].map { box.parts.relationships[$0] }
    }

    /// Whether this entity is `other` or one of its sub-entities.
    public func isKind(of other: Entity) -> Bool {
        box === other.box || name == other.name || other.subentityNames.contains(name)
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
