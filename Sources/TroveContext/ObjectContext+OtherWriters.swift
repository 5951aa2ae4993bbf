import TroveModel
import TroveStore

/// An object whose unsaved changes here clash with a save made elsewhere (see
/// ``ObjectContext/takeStoreChanges(of:)``).
struct StoreClash {
    let object: ManagedObject
    /// The attributes and to-one relationships both sides changed to different values; empty
    /// when one side deleted the object.
    let keys: [String]
    /// The object's row as stored now; `nil` when another writer deleted it.
    let stored: RowSnapshot?
}

extension ObjectContext {
    /// Brings in what other writers saved to the objects of `ids` that this context holds in
    /// memory (every one when `ids` is `nil`), without writing over this context's unsaved
    /// changes: an object it has not changed takes the stored state (or leaves the context when
    /// its row is gone); a changed one takes the other writer's changes to the keys it did not
    /// change itself. Where both changed the same attribute or to-one relationship to different
    /// values, or one side deleted an object the other changed, the object is left as it is —
    /// still holding the row version it read, so a save would fail its version check — and
    /// returned as a clash.
    ///
    /// Changes made to a to-many relationship on both sides do not clash: each side's save
    /// writes the objects it added and removed.
    func takeStoreChanges(of ids: Set<ObjectID>?) throws -> (merged: ObjectChanges, clashes: [StoreClash]) {
        let candidates = (ids.map { $0.compactMap { registry(for: $0) } } ?? liveObjects)
            .filter { !$0.isInserted && !$0.isRemoved && $0.snapshot != nil }
        uncache(candidates.map(\.objectID))
        let rows = Dictionary(try source.rows(for: candidates.map(\.objectID)).map { ($0.objectID, $0) }, uniquingKeysWith: { a, _ in a })
        var merged = ObjectChanges()
        var clashes: [StoreClash] = []
        for object in candidates {
            guard let read = object.snapshot else { continue }
            let row = rows[object.objectID]
            if let row, row.version == read.version { continue }
            let changedHere = object.isDeleted || object.isUpdated
            switch (row, changedHere) {
            case (nil, _) where !object.isUpdated:
                // Deleted there, and unchanged or deleted here too.
                remove(object)
                merged.deleted.insert(object.objectID)
            case (nil, _):
                clashes.append(StoreClash(object: object, keys: [], stored: nil))
            case (let row?, false):
                refresh(object, with: row, keepingChanges: true)
                merged.updated.insert(object.objectID)
            case (let row?, true):
                let keys = object.isDeleted ? [] : clashingKeys(of: object, read: read, stored: row)
                if keys.isEmpty && !object.isDeleted {
                    refresh(object, with: row, keepingChanges: true)
                    merged.updated.insert(object.objectID)
                } else {
                    clashes.append(StoreClash(object: object, keys: keys, stored: row))
                }
            }
        }
        forgetLinks(to: merged.deleted)
        return (merged, clashes)
    }

    /// The attributes and to-one relationships that both this context (since `read`) and
    /// another writer (`stored`) changed, to different values.
    private func clashingKeys(of object: ManagedObject, read: RowSnapshot, stored: RowSnapshot) -> [String] {
        var keys: [String] = []
        for (i, attribute) in object.entity.attributes.enumerated()
        where !attribute.isTransient && !attribute.isDerived && i < stored.values.count
            && object.values[i] != read.values[i] && stored.values[i] != read.values[i] && object.values[i] != stored.values[i] {
            keys.append(attribute.name)
        }
        for i in object.changedRelationshipIndices {
            guard let theirs = stored.toOne[i], theirs != read.toOne[i],
                  Link(object.relationships[i].objectIDs.first) != theirs else { continue }
            keys.append(object.entity.relationships[i].name)
        }
        return keys
    }

    /// Settles a clash found by ``takeStoreChanges(of:)``.
    ///
    /// Keeping this context's side, the object takes the stored row as the one it read (so the
    /// next save writes over it) and keeps its own values on the clashing keys; an object the
    /// other writer deleted is inserted again as a new object with the same values and
    /// relationships (returned). Taking the other side, the clashing keys take the stored values
    /// (the object's other unsaved changes stay), an object deleted here is brought back as
    /// stored, and one deleted there leaves the context.
    /// - Returns: the object that now stands for the clashing one (`nil` when it is gone).
    @discardableResult
    func settle(_ object: ManagedObject, keepingMine: Bool) throws -> ManagedObject? {
        guard let read = object.snapshot, !object.isRemoved else { return nil }
        guard let row = try source.row(for: object.objectID) else {
            guard keepingMine, !object.isDeleted else {
                remove(object)
                return nil
            }
            return try insertCopy(of: object)
        }
        if keepingMine {
            refresh(object, with: row, keepingChanges: true)
            return object
        }
        if deleted.removeValue(forKey: object.objectID) != nil {
            object.isDeleted = false
            touched[object.objectID] = nil
            refresh(object, with: row, keepingChanges: false)
            return object
        }
        for name in clashingKeys(of: object, read: read, stored: row) {
            if let i = object.entity.relationshipIndex(named: name) {
                let target = try row.toOne[i]?.objectID.map { try self.object(with: $0) }
                try object.setRelatedObject(target, atRelationship: i)
            } else if let i = object.entity.attributes.firstIndex(where: { $0.name == name }) {
                // Back to the value read, so that the refresh below takes the stored one.
                object.values[i] = read.values[i]
            }
        }
        refresh(object, with: row, keepingChanges: true)
        return object
    }

    /// A new object of `object`'s entity with its values and relationships, in place of
    /// `object`, whose row another writer deleted.
    private func insertCopy(of object: ManagedObject) throws -> ManagedObject {
        let copy = try insertObject(object.entity, type(of: object))
        for (i, attribute) in object.entity.attributes.enumerated() where !attribute.isDerived {
            try copy.setValue(object.values[i], forKey: attribute.name)
        }
        var related: [(Int, [ManagedObject])] = []
        for i in object.entity.relationships.indices {
            related.append((i, try object.relatedObjects(atRelationship: i)))
        }
        remove(object)
        forgetLinks(to: [object.objectID])
        for (i, objects) in related {
            if object.entity.relationships[i].isToMany {
                try copy.setRelatedObjects(objects, atRelationship: i)
            } else {
                try copy.setRelatedObject(objects.first, atRelationship: i)
            }
        }
        return copy
    }
}
