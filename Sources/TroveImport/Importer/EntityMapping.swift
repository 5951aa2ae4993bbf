import TroveModel

/// How one entity's objects are read from JSON records, computed once per entity and cached by
/// the importer: for each attribute and relationship, the key paths to look for (in order), and
/// the coercer that turns JSON into the attribute's type. Classes, so that reading a record
/// walks them without copying them.
final class EntityMapping {
    final class AttributeMapping {
        let index: Int
        let attribute: Attribute
        /// Candidate key paths, tried in order; each is the keys to follow into nested objects.
        let keyPaths: [[String]]
        let coercer: AttributeCoercer

        init(index: Int, attribute: Attribute, keyPaths: [[String]], coercer: AttributeCoercer) {
            self.index = index
            self.attribute = attribute
            self.keyPaths = keyPaths
            self.coercer = coercer
        }
    }

    final class RelationshipMapping {
        let index: Int
        let relationship: Relationship
        let keyPaths: [[String]]
        let destination: Entity
        /// The destination attribute a scalar reference is matched against, and its coercer.
        let referenceKey: (index: Int, coercer: AttributeCoercer)?

        init(index: Int, relationship: Relationship, keyPaths: [[String]], destination: Entity,
             referenceKey: (index: Int, coercer: AttributeCoercer)?) {
            self.index = index
            self.relationship = relationship
            self.keyPaths = keyPaths
            self.destination = destination
            self.referenceKey = referenceKey
        }
    }

    let entity: Entity
    /// The root of the entity's hierarchy (its unique keys' root), read per record without
    /// copying ``entity`` (a copy retains each of its parts).
    let rootName: String
    let attributes: [AttributeMapping]
    let relationships: [RelationshipMapping]
    /// The first key of every candidate path: the record keys this entity reads.
    let knownKeys: Set<String>
    /// The attributes and relationships not read under their own name (a `remoteKey` names
    /// other keys), by name: a record key that is one of these names is ignored, though it
    /// surely meant the property (see ``ImportReport/misnamedKeys``).
    let misnamed: [String: MisnamedKey]
    /// Uniqueness constraints as attribute positions, with their coercers.
    let uniqueKeys: [[Int]]
    /// The attributes' defaults: a new object's values.
    let defaults: [AttributeValue]
    /// The stored attributes with a rule a save checks (required, min, max or regex): a row
    /// written by an import holds nothing of the others.
    let checkedAttributes: [Int]
    /// The names of the attributes and of the relationships, by position (as a save's
    /// changed keys name them).
    let attributeNames: [String]
    let relationshipNames: [String]
    /// Each relationship's inverse, by position.
    let inverseNames: [String?]
    /// The to-one relationships, and those of them that must hold an object.
    let toOnePositions: [Int]
    let requiredToOne: [Int]

    init(entity: Entity, model: Model, transformers: ValueTransformerRegistry) throws {
        self.entity = entity
        rootName = entity.rootName
        func keyPaths(_ remoteKeys: [String], name: String) -> [[String]] {
            let spelled = remoteKeys.isEmpty ? RemoteKeys.candidates(for: name, style: model.keyStyle) : remoteKeys
            return spelled.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
        }
        // Transient and derived attributes are never imported: their keys in a record are
        // unknown keys (counted in the report), and rows carry their defaults.
        attributes = try entity.attributes.enumerated().filter { $1.isStored }.map { index, attribute in
            AttributeMapping(index: index, attribute: attribute, keyPaths: keyPaths(attribute.remoteKeys, name: attribute.name),
                             coercer: try Self.coercer(attribute, transformers))
        }
        relationships = try entity.relationships.enumerated().compactMap { index, relationship in
            guard let destination = model.entity(named: relationship.destination) else { return nil }
            var reference: (Int, AttributeCoercer)?
            let keyName = relationship.referenceKey ?? (destination.uniqueBy.first?.count == 1 ? destination.uniqueBy.first?.first : nil)
            if let keyName, let keyIndex = destination.attributeIndex(named: keyName) {
                reference = (keyIndex, try Self.coercer(destination.attributes[keyIndex], transformers))
            }
            return RelationshipMapping(index: index, relationship: relationship,
                                       keyPaths: keyPaths(relationship.remoteKeys, name: relationship.name),
                                       destination: destination, referenceKey: reference)
        }
        let known = Set(attributes.flatMap { $0.keyPaths.compactMap(\.first) } + relationships.flatMap { $0.keyPaths.compactMap(\.first) })
        knownKeys = known
        var misnamed: [String: MisnamedKey] = [:]
        for (name, kind, keyPaths) in attributes.map({ ($0.attribute.name, "attribute", $0.keyPaths) })
            + relationships.map({ ($0.relationship.name, "relationship", $0.keyPaths) }) where !known.contains(name) {
            misnamed[name] = MisnamedKey(entity: entity.name, property: name, kind: kind,
                                         remoteKeys: keyPaths.map { $0.joined(separator: ".") })
        }
        self.misnamed = misnamed
        uniqueKeys = entity.uniqueBy.map { names in names.compactMap { entity.attributeIndex(named: $0) } }
        defaults = entity.attributes.map(\.defaultValue)
        attributeNames = entity.attributes.map(\.name)
        relationshipNames = entity.relationships.map(\.name)
        inverseNames = entity.relationships.map(\.inverse)
        toOnePositions = entity.relationships.indices.filter { !entity.relationships[$0].isToMany }
        requiredToOne = toOnePositions.filter { !entity.relationships[$0].isOptional }
        checkedAttributes = entity.attributes.indices.filter { entity.attributes[$0].isCheckedAtSave && entity.attributes[$0].isStored }
    }

    private static func coercer(_ attribute: Attribute, _ transformers: ValueTransformerRegistry) throws -> AttributeCoercer {
        do {
            return try AttributeCoercer(attribute, transformers: transformers)
        } catch {
            throw ImportError(.unknownTransformer, "attribute '\(attribute.name)' names transformer '\(error.name)', which is not registered; registered: \(error.registered.joined(separator: ", "))")
        }
    }
}

/// How attribute names are spelled as JSON keys.
enum RemoteKeys {
    /// The JSON keys an attribute is looked up under: the name in the model's key style, and
    /// the exact name too.
    static func candidates(for name: String, style: KeyStyle) -> [String] {
        switch style {
        case .exact: return [name]
        case .snakeCase:
            let snake = snakeCase(name)
            return snake == name ? [name] : [snake, name]
        }
    }

    /// `uploadDate` → `upload_date`, `userID` → `user_id`, `URLString` → `url_string`: a run of
    /// capitals is one word, whose last capital starts the next word when a lower-case letter follows.
    static func snakeCase(_ name: String) -> String {
        let characters = Array(name)
        var result = ""
        for (i, c) in characters.enumerated() {
            if c.isUppercase, i > 0 {
                let previous = characters[i - 1]
                let nextIsLower = i + 1 < characters.count && characters[i + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) {
                    result.append("_")
                }
            }
            result.append(contentsOf: c.lowercased())
        }
        return result
    }
}

/// The mappings of a model's entities, each computed once, for one thread.
final class MappingCache {
    let model: Model
    let transformers: ValueTransformerRegistry
    private var mappings: [String: EntityMapping] = [:]

    init(model: Model, transformers: ValueTransformerRegistry) {
        self.model = model
        self.transformers = transformers
    }

    func mapping(for entity: Entity) throws -> EntityMapping {
        if let mapping = mappings[entity.name] { return mapping }
        let mapping = try EntityMapping(entity: entity, model: model, transformers: transformers)
        mappings[entity.name] = mapping
        return mapping
    }
}
