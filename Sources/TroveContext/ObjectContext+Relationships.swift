import TroveModel
import TroveStore

/// Relationship state, loading and inverse maintenance. Every change goes through `link` and
/// `unlink`, which keep both sides of a relationship with an inverse consistent in memory at
/// once (loading the other side first if it is a fault), and record what changed for the save.
extension ObjectContext {
    // MARK: Loading

    /// The relationship at `index` of `object`, loading it from the store if it is a fault
    /// (one query; the related rows become registered objects).
    func loadedState(of object: ManagedObject, at index: Int) throws -> RelationshipState {
        guard object.relationships[index].isUnloaded else { return object.relationships[index] }
        try loadRelationship(object.entity.relationships[index].name, of: [object])
        return object.relationships[index]
    }

    /// Loads relationship `name` of every object for which it is a fault: one query per 500
    /// objects of one entity; the related rows wait in the row cache until touched.
    func loadRelationship(_ name: String, of objects: [ManagedObject]) throws {
        var groups: [String: [ManagedObject]] = [:]
        for object in objects {
            guard let index = object.entity.relationshipIndex(named: name) else {
                throw ObjectError(.unknownKey, "entity '\(object.entity.name)' has no relationship '\(name)'")
            }
            if object.relationships[index].isUnloaded { groups[object.entity.name, default: []].append(object) }
        }
        for (_, group) in groups.sorted(by: { $0.key < $1.key }) {
            guard let index = group[0].entity.relationshipIndex(named: name) else { continue }
            let isToMany = group[0].entity.relationships[index].isToMany
            let related = try source.fetchRelated(name, of: group.map(\.objectID))
            for object in group {
                var ids: [ObjectID] = []
                for snapshot in related[object.objectID] ?? [] where deleted[snapshot.objectID] == nil {
                    try cache(snapshot)
                    ids.append(snapshot.objectID)
                }
                let stored: RelationshipState = isToMany ? .toMany(ids) : .toOne(ids.first)
                if case .pending(let added, let removed) = object.relationships[index] {
                    // Changes made before the load apply on top of what the store holds.
                    let gone = Set(removed)
                    var merged = ids.filter { !gone.contains($0) }
                    merged += added.filter { !merged.contains($0) }
                    object.committedRelationships[index] = stored
                    object.relationships[index] = .toMany(merged)
                } else {
                    object.relationships[index] = stored
                }
            }
        }
    }

    /// The related objects' IDs (loading a fault).
    func relatedIDs(of object: ManagedObject, at index: Int) throws -> [ObjectID] {
        try loadedState(of: object, at: index).objectIDs
    }

    // MARK: Linking

    /// Makes relationship `index` of `a` hold `b` (replacing a to-one's object, adding to a
    /// to-many at `position` or the end), and the inverse of `b` hold `a`.
    func link(_ a: ManagedObject, _ index: Int, to b: ManagedObject, at position: Int? = nil) throws {
        let relationship = a.entity.relationships[index]
        if relationship.isToMany && !relationship.isOrdered && a.relationships[index].isUnloaded {
            setState(of: a, at: index, to: a.relationships[index].recording(b.objectID, adding: true))
            try linkInverse(of: relationship, from: a, to: b)
            return
        }
        let current = try loadedState(of: a, at: index)
        if relationship.isToMany {
            if case .toMany(let ids) = current, let existing = ids.firstIndex(of: b.objectID) {
                guard let position, position != existing else { return }
                var moved = ids
                moved.remove(at: existing)
                moved.insert(b.objectID, at: min(position, moved.count))
                setState(of: a, at: index, to: .toMany(moved))
                return
            }
            var ids = current.objectIDs
            ids.insert(b.objectID, at: min(position ?? ids.count, ids.count))
            setState(of: a, at: index, to: .toMany(ids))
        } else {
            if case .toOne(let id) = current, id == b.objectID { return }
            if case .toOne(let old?) = current { try unlink(a, index, from: try object(with: old)) }
            setState(of: a, at: index, to: .toOne(b.objectID))
        }
        try linkInverse(of: relationship, from: a, to: b)
    }

    /// Makes the inverse of `relationship` on `b` hold `a`.
    private func linkInverse(of relationship: Relationship, from a: ManagedObject, to b: ManagedObject) throws {
        guard let inverseIndex = inverseIndex(of: relationship, in: b) else { return }
        let inverse = b.entity.relationships[inverseIndex]
        if inverse.isToMany && !inverse.isOrdered && b.relationships[inverseIndex].isUnloaded {
            setState(of: b, at: inverseIndex, to: b.relationships[inverseIndex].recording(a.objectID, adding: true))
            return
        }
        let backwards = try loadedState(of: b, at: inverseIndex)
        if inverse.isToMany {
            if !backwards.objectIDs.contains(a.objectID) {
                setState(of: b, at: inverseIndex, to: .toMany(backwards.objectIDs + [a.objectID]))
            }
        } else {
            if case .toOne(let id) = backwards, id == a.objectID { return }
            if case .toOne(let old?) = backwards { try unlink(b, inverseIndex, from: try object(with: old)) }
            setState(of: b, at: inverseIndex, to: .toOne(a.objectID))
        }
    }

    /// Makes relationship `index` of `a` no longer hold `b`, and the inverse of `b` no longer
    /// hold `a`.
    func unlink(_ a: ManagedObject, _ index: Int, from b: ManagedObject) throws {
        let relationship = a.entity.relationships[index]
        if relationship.isToMany && !relationship.isOrdered && a.relationships[index].isUnloaded {
            setState(of: a, at: index, to: a.relationships[index].recording(b.objectID, adding: false))
        } else {
            let current = try loadedState(of: a, at: index)
            guard current.objectIDs.contains(b.objectID) else { return }
            setState(of: a, at: index, to: relationship.isToMany ? .toMany(current.objectIDs.filter { $0 != b.objectID }) : .toOne(nil))
        }
        guard let inverseIndex = inverseIndex(of: relationship, in: b) else { return }
        let inverse = b.entity.relationships[inverseIndex]
        if inverse.isToMany && !inverse.isOrdered && b.relationships[inverseIndex].isUnloaded {
            setState(of: b, at: inverseIndex, to: b.relationships[inverseIndex].recording(a.objectID, adding: false))
            return
        }
        let backwards = try loadedState(of: b, at: inverseIndex)
        guard backwards.objectIDs.contains(a.objectID) else { return }
        setState(of: b, at: inverseIndex, to: inverse.isToMany ? .toMany(backwards.objectIDs.filter { $0 != a.objectID }) : .toOne(nil))
    }

    /// Records the state a relationship had before its first change, then changes it.
    func setState(of object: ManagedObject, at index: Int, to state: RelationshipState) {
        if object.committedRelationships[index] == nil {
            object.committedRelationships[index] = object.relationships[index]
        }
        undoManager?.record(.relationship(object, index: index, before: object.relationships[index], after: state))
        object.relationships[index] = state
        object.observeChange(relationship: index)
        objectDidChange(object, key: object.entity.relationships[index].name)
    }

    /// The position of `relationship`'s inverse in `destination`'s relationships.
    func inverseIndex(of relationship: Relationship, in destination: ManagedObject) -> Int? {
        relationship.inverse.flatMap { destination.entity.relationshipIndex(named: $0) }
    }

    // MARK: Saving

    /// What changed in an object's relationships since the last save, for the store.
    func relationshipChanges(of object: ManagedObject) -> [RelationshipChange] {
        // An object holds a state per relationship of its entity: none, no change.
        guard !object.relationships.isEmpty else { return [] }
        let indices = object.isInserted ? Array(object.entity.relationships.indices) : object.changedRelationshipIndices
        return indices.compactMap { index in
            let relationship = object.entity.relationships[index]
            let state = object.relationships[index]
            if case .pending(let added, let removed) = state {
                return .toMany(index, added: added, removed: removed, order: nil)
            }
            if !relationship.isToMany {
                let id = state.objectIDs.first
                return object.isInserted && id == nil ? nil : .toOne(index, Link(id))
            }
            let now = state.objectIDs
            let before = object.committedRelationships[index]?.objectIDs ?? []
            guard !(object.isInserted && now.isEmpty) else { return nil }
            let nowSet = Set(now), beforeSet = Set(before)
            return .toMany(index, added: now.filter { !beforeSet.contains($0) }, removed: before.filter { !nowSet.contains($0) },
                           order: relationship.isOrdered ? now : nil)
        }
    }
}
