import TroveModel
import TroveStore

/// What an object knows of one of its relationships.
///
/// Related objects are held by ID, never by reference, so that a graph of objects does not keep
/// itself alive; the context turns IDs into objects on access.
enum RelationshipState: Equatable {
    /// Not loaded yet: touching it reads the store.
    case fault
    /// A to-one: the related object's ID, or `nil`.
    case toOne(ObjectID?)
    /// A to-many: the related objects' IDs, in order for an ordered relationship, without repeats.
    case toMany([ObjectID])
    /// An unordered to-many not loaded yet, with changes made since: objects added and removed.
    /// Keeping an inverse up to date does not need the whole set, so it is not read for that.
    case pending(added: [ObjectID], removed: [ObjectID])

    /// The related IDs (empty for a fault, and for a pending to-many: load it first).
    var objectIDs: [ObjectID] {
        switch self {
        case .fault, .toOne(nil), .pending: []
        case .toOne(let id?): [id]
        case .toMany(let ids): ids
        }
    }

    /// Whether the state must be read from the store before its objects are known.
    var isUnloaded: Bool {
        switch self {
        case .fault, .pending: true
        case .toOne, .toMany: false
        }
    }

    /// This unloaded state with `id` added (or, with `adding` false, removed).
    func recording(_ id: ObjectID, adding: Bool) -> RelationshipState {
        var (added, removed): ([ObjectID], [ObjectID]) = ([], [])
        if case .pending(let a, let r) = self { (added, removed) = (a, r) }
        if adding {
            removed.removeAll { $0 == id }
            if !added.contains(id) { added.append(id) }
        } else {
            added.removeAll { $0 == id }
            if !removed.contains(id) { removed.append(id) }
        }
        return added.isEmpty && removed.isEmpty ? .fault : .pending(added: added, removed: removed)
    }

    /// Whether two states hold the same objects; order counts when `ordered`.
    func isSame(as other: RelationshipState, ordered: Bool) -> Bool {
        switch (self, other) {
        case (.toMany(let a), .toMany(let b)): ordered ? a == b : Set(a) == Set(b)
        default: self == other
        }
    }

    /// The states of a fetched object's relationships: those its row holds, faults for the rest.
    static func states(of entity: Entity, from snapshot: RowSnapshot) -> [RelationshipState] {
        entity.relationships.indices.map { index in
            snapshot.toOne[index].map { .toOne($0.objectID) } ?? .fault
        }
    }

    /// The state with every ID that `mapping` knows replaced (temporary IDs after a save).
    func remapped(_ mapping: [ObjectID: ObjectID]) -> RelationshipState {
        switch self {
        case .fault: .fault
        case .toOne(let id): .toOne(id.map { mapping[$0] ?? $0 })
        case .toMany(let ids): .toMany(ids.map { mapping[$0] ?? $0 })
        case .pending(let added, let removed): .pending(added: added.map { mapping[$0] ?? $0 }, removed: removed.map { mapping[$0] ?? $0 })
        }
    }
}
