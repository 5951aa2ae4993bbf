/// The schema of an object graph: its entities, checked and resolved.
///
/// Build one in code with the result builder, or load a model file with
/// ``Model/init(fileData:)``:
/// ```swift
/// let model = try Model {
///     Entity("Photographer", uniqueBy: [["id"]]) {
///         Attribute("id", .string, optional: false)
///         Relationship("photos", to: "Photo", toMany: true, inverse: "whoTook", deleteRule: .cascade)
///     }
///     Entity("Photo") {
///         Attribute("title", .string)
///         Relationship("whoTook", to: "Photographer", inverse: "photos")
///     }
/// }
/// ```
/// Creating a model checks it whole and throws a ``ModelError`` listing every problem, so a bad
/// model never reaches a store.
public struct Model: Sendable, Hashable {
    /// Import: the style of JSON keys, applied to every attribute and relationship without an
    /// explicit remote key.
    public let keyStyle: KeyStyle
    /// The entities, resolved (see ``Entity``), in declaration order.
    public let entities: [Entity]
    /// Findings that do not stop the model from working, such as a relationship without an inverse.
    public let warnings: [ModelIssue]
    /// A stable hash of everything that shapes the store (entities, stored attributes' names and
    /// types, relationships, unique keys): equal for models a store can be opened with.
    ///
    /// Transient and derived attributes have no column, so adding, removing or changing one
    /// leaves the hash as it is: a store opens with the model that has them.
    public let versionHash: String
    private let entityIndexByName: [String: Int]

    /// The most ancestors an entity may have (parent, parent's parent, …). A resolved entity
    /// carries every inherited property and names every sub-entity, so a chain's resolved size
    /// grows with the square of its depth; a deeper model is refused with a ``ModelError``.
    public static let maximumInheritanceDepth = 100

    /// The most columns the table of one inheritance hierarchy may have: SQLite's limit. The
    /// table has Trove's own columns (`_pk`, `_version`, and `_entity` when the hierarchy has
    /// sub-entities), one per stored attribute and one per to-one relationship of every entity
    /// in the hierarchy; a model that needs more is refused with a ``ModelError``.
    public static let maximumColumnsPerTable = 2000

    /// Checks and resolves a model.
    /// - Throws: ``ModelError`` with every problem found.
    public init(keyStyle: KeyStyle = .exact, entities declared: [Entity]) throws(ModelError) {
        let hierarchy = DeclaredModel(declared)
        let findings = ModelValidator.findings(in: hierarchy)
        let errors = findings.filter { $0.severity == .error }
        guard errors.isEmpty else { throw ModelError(issues: errors) }
        self.keyStyle = keyStyle
        self.warnings = findings.filter { $0.severity == .warning }
        let resolved = Model.resolve(declared.map { entity in
            var entity = entity
            entity.attributes = entity.attributes.map { $0.normalized() }
            return entity
        }, in: hierarchy)
        self.entities = resolved
        self.entityIndexByName = Dictionary(uniqueKeysWithValues: resolved.enumerated().map { ($1.name, $0) })
        self.versionHash = Model.versionHash(of: resolved)
    }

    /// Checks and resolves a model whose entities are listed in a builder block.
    /// - Throws: ``ModelError`` with every problem found.
    public init(keyStyle: KeyStyle = .exact, @ModelBuilder _ entities: () -> [Entity]) throws(ModelError) {
        try self.init(keyStyle: keyStyle, entities: entities())
    }

    /// The entity named `name`, or `nil`.
    public func entity(named name: String) -> Entity? {
        entityIndexByName[name].map { entities[$0] }
    }

    /// The entities that are the root of their hierarchy: one table each in a store.
    public var rootEntities: [Entity] {
        entities.filter { $0.parent == nil }
    }

    // MARK: Resolution

    /// Flattens inheritance (parents' properties first) and fills in the lookup tables, parents
    /// before children so each entity extends its parent's resolved lists: time linear in the
    /// entities plus the resolved lists. Assumes the declarations passed validation, so
    /// `hierarchy` lists every entity (parents exist and form no cycle).
    private static func resolve(_ declared: [Entity], in hierarchy: DeclaredModel) -> [Entity] {
        var resolved = declared
        for index in hierarchy.parentsFirst {
            var entity = declared[index]
            if let parent = hierarchy.parentIndices[index] {
                let inherited = resolved[parent]
                entity.attributes = inherited.attributes + entity.attributes
                entity.relationships = inherited.relationships + entity.relationships
                entity.uniqueBy = inherited.uniqueBy + entity.uniqueBy
                entity.rootName = inherited.rootName
            }
            entity.subentityNames = hierarchy.descendants(ofEntityAt: index).map { declared[$0].name }
            entity.attributeIndexByName = Dictionary(
                entity.attributes.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
            entity.relationshipIndexByName = Dictionary(
                entity.relationships.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
            resolved[index] = entity
        }
        return resolved
    }

    // MARK: Version hash

    private static func versionHash(of entities: [Entity]) -> String {
        var text = "trove-model-1\n"
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            text += "E \(entity.name) parent=\(entity.parent ?? "") abstract=\(entity.isAbstract)\n"
            for attribute in entity.attributes.sorted(by: { $0.name < $1.name }) where attribute.isStored {
                text += "A \(attribute.name) \(attribute.type.rawValue)\n"
            }
            for r in entity.relationships.sorted(by: { $0.name < $1.name }) {
                text += "R \(r.name) \(r.destination) toMany=\(r.isToMany) ordered=\(r.isOrdered) inverse=\(r.inverse ?? "")\n"
            }
            for constraint in entity.uniqueBy {
                text += "U \(constraint.joined(separator: ","))\n"
            }
        }
        return StableHash.fnv1a64Hex(text)
    }
}

/// Import: how JSON keys are spelled relative to attribute names (`"keyStyle"` in a model file).
public enum KeyStyle: String, Sendable, Hashable, CaseIterable {
    /// JSON keys are the attribute names as they are.
    case exact
    /// JSON keys are snake_case (`user_id`) for camelCase names (`userID`); the exact name is
    /// accepted too.
    case snakeCase = "snake_case"
}

/// A 64-bit FNV-1a hash: stable across runs and platforms (unlike `Hasher`), not for security.
enum StableHash {
    static func fnv1a64Hex(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
