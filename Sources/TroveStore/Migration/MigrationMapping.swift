import TroveModel

/// Which entity and relationship of the stored model each one of the new model is:
/// the same name, or the name its `renamedFrom` gives (Core Data's renaming identifier).
///
/// A `renamedFrom` that the stored model does not have is ignored, and the item is looked up by
/// its own name (attributes are matched so too, by column: see ``MigrationLayout``): a model several versions on may keep old renaming identifiers, as Core Data's
/// may, and a store already past the rename opens with it. Each stored item is claimed once:
/// renames first, then equal names.
struct MigrationMapping {
    let old: Model
    let new: Model
    /// New entity name → stored entity name, for entities that were in the store.
    let oldEntityName: [String: String]
    /// Stored entity name → new entity name.
    let newEntityName: [String: String]
    /// "NewEntity.relationship" → the stored relationship's name.
    private let oldRelationshipName: [String: String]

    init(old: Model, new: Model) {
        self.old = old
        self.new = new
        let entities = Self.match(new.entities, among: Set(old.entities.map(\.name)), name: \.name, renamedFrom: \.renamedFrom)
        oldEntityName = entities
        newEntityName = Dictionary(entities.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var relationships: [String: String] = [:]
        for entity in new.entities {
            guard let oldName = entities[entity.name], let oldEntity = old.entity(named: oldName) else { continue }
            let links = Set(oldEntity.relationships.map(\.name))
            for (name, previous) in Self.match(entity.relationships, among: links, name: \.name, renamedFrom: \.renamedFrom) {
                relationships["\(entity.name).\(name)"] = previous
            }
        }
        oldRelationshipName = relationships
    }

    /// Each item's name → the old name it takes: its `renamedFrom` when `available` has it,
    /// else its own name when no rename took that.
    static func match<T>(_ items: [T], among available: Set<String>, name: (T) -> String,
                                 renamedFrom: (T) -> String?) -> [String: String] {
        var result: [String: String] = [:]
        var claimed: Set<String> = []
        for item in items {
            if let previous = renamedFrom(item), available.contains(previous), claimed.insert(previous).inserted {
                result[name(item)] = previous
            }
        }
        for item in items where result[name(item)] == nil {
            let own = name(item)
            if available.contains(own), claimed.insert(own).inserted { result[own] = own }
        }
        return result
    }

    /// The stored entity the new entity `name` was, or `nil` for a new entity.
    func oldEntity(of name: String) -> Entity? {
        oldEntityName[name].flatMap { old.entity(named: $0) }
    }

    /// The stored relationship the new entity's relationship `name` was.
    func oldRelationship(_ name: String, of entity: String) -> Relationship? {
        guard let previous = oldRelationshipName["\(entity).\(name)"] else { return nil }
        return oldEntity(of: entity)?.relationship(named: previous)
    }

    /// The new name of the stored entity `name`, or `nil` when the new model removed it.
    func newEntity(of oldName: String) -> Entity? {
        newEntityName[oldName].flatMap { new.entity(named: $0) }
    }
}
