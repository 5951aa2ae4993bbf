import TroveModel

/// Which entity and relationship of the stored model each one of the new model is: the same
/// name, or the name its `renamedFrom` gives (Core Data's renaming identifier). Attributes are
/// matched the same way, by column (see ``MigrationLayout``).
///
/// An item whose own name the stored model has is that item, whatever its `renamedFrom` says:
/// a model several versions on keeps its renaming identifiers, and a store already past the
/// rename, or one that has since reused the old name for a new item, migrates right. Each stored
/// item is claimed once. (So two items cannot swap names in one migration.)
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

    /// Each item's name → the old name it takes: its own name when `available` has it (a rename
    /// done by an earlier migration), else its `renamedFrom` when `available` has that.
    static func match<T>(_ items: [T], among available: Set<String>, name: (T) -> String,
                                 renamedFrom: (T) -> String?) -> [String: String] {
        var result: [String: String] = [:]
        var claimed: Set<String> = []
        // An item whose own name is stored was renamed in an earlier migration: it keeps that name.
        for item in items where !available.contains(name(item)) {
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
