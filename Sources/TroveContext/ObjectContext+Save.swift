import TroveModel
import TroveStore

extension ObjectContext {
    /// Writes every change to the store in one transaction.
    ///
    /// Inserted, updated and deleted objects are first validated (required attributes,
    /// min/max, regex); then the changes are written all at once. On any error nothing is
    /// written and the context's changes are kept, so they can be fixed and saved again.
    /// After a save, inserted objects have permanent IDs.
    /// - Throws: ``ValidationError`` listing every value at fault; ``ConflictError`` when rows
    ///   changed in the store since they were read; ``StoreError`` when the store fails.
    public func save() throws {
        guard hasChanges else { return }
        let failures = validate()
        guard failures.isEmpty else { throw ValidationError(failures: failures) }

        let insertedObjects = orderedInsertedObjects
        let updatedObjects = touched.values.filter(\.isUpdated).sorted { $0.objectID.description < $1.objectID.description }
        let deletedObjects = Array(deleted.values)
        var changes = ChangeSet()
        changes.inserts = insertedObjects.map { ChangeSet.Insert(objectID: $0.objectID, values: $0.values) }
        for object in updatedObjects {
            guard let snapshot = object.snapshot else { continue }
            var changed: [Int: AttributeValue] = [:]
            for i in object.values.indices where object.values[i] != snapshot.values[i] {
                changed[i] = object.values[i]
            }
            changes.updates.append(ChangeSet.Update(objectID: object.objectID, expectedVersion: snapshot.version, changes: changed))
        }
        changes.deletes = deletedObjects.compactMap { object in
            object.snapshot.map { ChangeSet.Delete(objectID: object.objectID, expectedVersion: $0.version) }
        }

        let result = try store.save(changes)

        for object in insertedObjects {
            let oldID = object.objectID
            guard let permanent = result.permanentIDs[oldID] else { continue }
            object.objectID = permanent
            object.isInserted = false
            object.snapshot = RowSnapshot(objectID: permanent, version: result.versions[permanent] ?? 1, values: object.values)
            reregister(object, from: oldID)
        }
        for object in updatedObjects {
            let version = result.versions[object.objectID] ?? (object.snapshot?.version ?? 0) + 1
            object.snapshot = RowSnapshot(objectID: object.objectID, version: version, values: object.values)
        }
        for object in deletedObjects {
            object.isDeleted = false
            forget(object)
        }
        clearChanges()
    }

    /// Discards every unsaved change: inserted objects leave the context, updated and deleted
    /// ones get their committed values back.
    public func rollback() {
        for object in inserted.values {
            object.isInserted = false
            forget(object)
        }
        for object in Array(touched.values) + Array(deleted.values) {
            object.isDeleted = false
            if let snapshot = object.snapshot { object.values = snapshot.values }
        }
        clearChanges()
    }

    /// Forgets every object and every unsaved change; objects fetched before no longer belong
    /// to the context (they keep their last values but can no longer be changed).
    public func reset() {
        for object in inserted.values { object.isInserted = false }
        for object in deleted.values { object.isDeleted = false }
        clearAll()
    }
}
