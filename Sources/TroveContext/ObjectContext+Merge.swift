import TroveModel
import TroveStore

extension ObjectContext {
    /// Brings in another context's saved changes: updated objects in memory take the stored
    /// values (keeping this context's unsaved changes on top), deleted ones leave the context,
    /// inserted ones are found by the next fetch. Relationships that may have changed are read
    /// again when next touched.
    ///
    /// Pass the ``ObjectChanges`` of the other context's ``ObjectContext/didSave`` event.
    /// - Throws: the store's error when reading the updated rows fails.
    public func mergeChanges(from changes: ObjectChanges) throws {
        do {
            try merge(changes)
        } catch {
            tellFollowers(.everything(updated: nil))
            throw error
        }
        tellFollowers(.objects(changes))
    }

    private func merge(_ changes: ObjectChanges) throws {
        uncache(changes.updated.union(changes.deleted))
        for id in changes.deleted {
            guard let object = registry(for: id) else { continue }
            remove(object)
        }
        forgetLinks(to: changes.deleted)
        let registered = changes.updated.compactMap { registry(for: $0) }.filter { !$0.isFault }
        guard !registered.isEmpty else { return }
        let rows = Dictionary(try source.rows(for: registered.map(\.objectID)).map { ($0.objectID, $0) }, uniquingKeysWith: { a, _ in a })
        for object in registered {
            guard let row = rows[object.objectID] else { continue }
            refresh(object, with: row, keepingChanges: true)
        }
    }

    /// Reads an object's row again. With `mergeChanges` its unsaved changes stay on top of the
    /// stored values, and transient attributes keep their values; without, they are discarded
    /// (the object is as stored, its transient attributes back to their defaults).
    ///
    /// Either way, derived attributes take the values the store computes now.
    /// - Throws: ``ObjectError`` `.objectNotFound` when the row was deleted from the store (the
    ///   object is then ``ManagedObject/isRemoved``).
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) throws {
        try checkOwnership(object)
        guard !object.isInserted else { return }
        guard let row = try source.row(for: object.objectID) else {
            remove(object)
            var gone = ObjectChanges()
            gone.deleted = [object.objectID]
            tellFollowers(.objects(gone))
            throw ObjectError(.objectNotFound, "\(object.objectID) is no longer in the store; it was deleted (it is now removed)")
        }
        if !mergeChanges {
            touched[object.objectID] = nil
            if deleted.removeValue(forKey: object.objectID) != nil { object.isDeleted = false }
        }
        refresh(object, with: row, keepingChanges: mergeChanges)
        var refreshed = ObjectChanges()
        refreshed.updated = [object.objectID]
        tellFollowers(.objects(refreshed))
    }

    /// Reads again the objects in memory if anyone else — another context, another store on the
    /// same file, another process — committed to the store since this context last looked
    /// (its own saves do not count). Unsaved changes stay on top.
    /// - Returns: whether the store had changed (and objects were refreshed). The first call
    ///   only takes note of where the store is.
    @discardableResult
    public func refreshIfStoreChanged() throws -> Bool {
        let token = try store.changeToken()
        defer { seenToken = token }
        guard let seenToken, seenToken != token else { return false }
        clearRowCache()
        try refreshAllObjects()
        return true
    }

    /// Reads every registered object's row again, keeping unsaved changes on top.
    public func refreshAllObjects() throws {
        let objects = liveObjects.filter { !$0.isInserted && !$0.isFault }
        let rows = Dictionary(try source.rows(for: objects.map(\.objectID)).map { ($0.objectID, $0) }, uniquingKeysWith: { a, _ in a })
        for object in objects {
            if let row = rows[object.objectID] { refresh(object, with: row, keepingChanges: true) }
        }
        tellFollowers(.everything(updated: nil))
    }

    /// Takes `row` as the object's stored state; unsaved changed attributes and relationships,
    /// and transient values, stay when `keepingChanges`.
    func refresh(_ object: ManagedObject, with row: RowSnapshot, keepingChanges: Bool) {
        let old = object.snapshot
        let row = keepingChanges ? object.keepingTransientValues(in: row) : row
        let stored = RelationshipState.states(of: object.entity, from: row)
        if keepingChanges, let old {
            for i in object.values.indices where object.values[i] == old.values[i] {
                object.values[i] = row.values[i]
            }
            let changed = Set(object.changedRelationshipIndices)
            for i in object.relationships.indices where !changed.contains(i) {
                object.relationships[i] = stored[i]
                object.committedRelationships[i] = nil
            }
        } else {
            object.values = row.values
            object.relationships = stored
            object.committedRelationships = [:]
        }
        object.snapshot = row
        object.observeChangeOfEverything()
        object.awakeFromFetch()
    }
}

extension ObjectContext {
    /// Takes objects whose rows are gone out of the relationships of every object in memory.
    func forgetLinks(to ids: Set<ObjectID>) {
        guard !ids.isEmpty else { return }
        for object in liveObjects {
            object.relationships = object.relationships.map { $0.removing(ids) }
        }
    }
}

extension ManagedObject {
    /// `row` with the transient values of the object's last fetch or save in place of the
    /// defaults a store gives them: what a refresh that keeps them takes as stored.
    func keepingTransientValues(in row: RowSnapshot) -> RowSnapshot {
        guard let snapshot, entity.attributes.contains(where: \.isTransient) else { return row }
        var values = row.values
        for index in entity.attributes.indices where entity.attributes[index].isTransient && index < values.count {
            values[index] = snapshot.values[index]
        }
        return RowSnapshot(objectID: row.objectID, version: row.version, values: values, toOne: row.toOne)
    }
}

extension RelationshipState {
    /// The state without the given objects (deleted elsewhere).
    func removing(_ ids: Set<ObjectID>) -> RelationshipState {
        switch self {
        case .fault, .pending: self
        case .toOne(let id): .toOne(id.flatMap { ids.contains($0) ? nil : $0 })
        case .toMany(let list): .toMany(list.filter { !ids.contains($0) })
        }
    }
}
