import TroveModel

/// Finds every name in a model that the generated classes cannot use (see ``ClassGenerator``).
struct NameCheck {
    let model: Model
    let classListName: String

    /// Members of `ManagedObject` (and of ``EntityClass``) a generated property would clash
    /// with: its properties, the accessors the generated code calls, and the life-cycle methods.
    /// `value`, `setValue` and `hash` stay usable: their methods take arguments, and a property
    /// of the same base name beside them compiles and reads well.
    static let managedObjectMembers: Set<String> = [
        "entity", "objectID", "context", "isInserted", "isDeleted", "isRemoved", "isUpdated", "isFault", "hasChanges",
        "faultError", "description", "hashValue", "entityName", "generatedSignature", "modelKeyPath",
        "attribute", "setAttribute", "attributeValue", "setAttributeValue", "relatedObject", "relatedObjects",
        "setRelatedObject", "setRelatedObjects", "addRelatedObject", "removeRelatedObject", "insertRelatedObject",
        "committedValues", "changedValues", "objectIDs", "predicateValue",
        "awakeFromInsert", "awakeFromFetch", "willSave", "didSave", "prepareForDeletion",
        "validateForInsert", "validateForUpdate", "validateForDelete",
    ]

    /// Names that even backquotes do not make a usable property (a key path refuses them).
    static let unusableNames: Set<String> = ["self", "Self", "Type", "Protocol"]

    /// Types the generated code names: an entity class of one of these names would shadow it.
    static let typesInGeneratedCode: Set<String> = [
        "String", "Int", "Int16", "Int32", "Int64", "Double", "Float", "Decimal", "Bool", "Date", "Data", "UUID",
        "URL", "Character", "JSONValue", "Set", "Array", "Optional", "AnyKeyPath", "ManagedObject", "EntityClass",
        "Foundation", "Trove", "Any", "Self", "Type", "Protocol",
    ]

    func problems() -> [String] {
        var problems: [String] = []
        for entity in model.entities {
            if Self.typesInGeneratedCode.contains(entity.name) {
                problems.append("entity '\(entity.name)': its class would shadow the type \(entity.name) that the generated code uses; rename the entity")
            }
            if entity.name == classListName {
                problems.append("entity '\(entity.name)': its class has the name of the class list; rename the entity or the model file")
            }
            // Each class declares its own properties; members it inherits are checked with the
            // parent's, but clashes between its own members and inherited ones show here.
            let parent = parentEntity(of: entity)
            let ownAttributes = entity.attributes.dropFirst(parent?.attributes.count ?? 0)
            let ownRelationships = entity.relationships.dropFirst(parent?.relationships.count ?? 0)
            var seen: [String: (role: String, isOwn: Bool)] = [:]
            func declare(_ name: String, as role: String, isOwn: Bool) {
                if let earlier = seen[name] {
                    if isOwn || earlier.isOwn {
                        problems.append("entity '\(entity.name)': \(role) and \(earlier.role) have one name in the generated class; rename one of them")
                    }
                } else {
                    seen[name] = (role, isOwn)
                }
            }
            for (index, attribute) in entity.attributes.enumerated() {
                declare(attribute.name, as: "attribute '\(attribute.name)'", isOwn: index >= ownAttributes.startIndex)
            }
            for (index, relationship) in entity.relationships.enumerated() {
                let isOwn = index >= ownRelationships.startIndex
                declare(relationship.name, as: "relationship '\(relationship.name)'", isOwn: isOwn)
                guard relationship.isToMany else { continue }
                let capitalized = relationship.name.prefix(1).uppercased() + relationship.name.dropFirst()
                var mutators = ["addTo\(capitalized)", "removeFrom\(capitalized)"]
                if relationship.isOrdered { mutators.append("insertInto\(capitalized)") }
                for mutator in mutators { declare(mutator, as: "mutator '\(mutator)' of relationship '\(relationship.name)'", isOwn: isOwn) }
            }
            let own = ownAttributes.map { ("attribute", $0.name) } + ownRelationships.map { ("relationship", $0.name) }
            for (kind, name) in own {
                if Self.managedObjectMembers.contains(name) {
                    problems.append("entity '\(entity.name)', \(kind) '\(name)': `\(name)` is a member of ManagedObject, which the generated class inherits; rename the \(kind) (a remoteKey keeps its JSON key)")
                } else if Self.unusableNames.contains(name) {
                    problems.append("entity '\(entity.name)', \(kind) '\(name)': Swift cannot name a property `\(name)`, not even in backquotes; rename the \(kind)")
                }
            }
        }
        return problems
    }

    private func parentEntity(of entity: Entity) -> Entity? {
        entity.parent.flatMap { model.entity(named: $0) }
    }
}
