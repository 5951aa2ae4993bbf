import TroveModel
import TroveStore

extension ObjectContext {
    /// Writes every change to the store in one transaction.
    ///
    /// Inserted, updated and deleted objects are first validated (required attributes,
    /// min/max, regex); then the changes are written all at once. On any error nothing is
    /// written and the context's changes are kept, so they can be fixed and saved again.
    /// After a save, inserted objects have permanent IDs.
    /// - Throws: ``ObjectError`` for a change a typed property could not make (see
    ///   ``ManagedObject/setAttributeValue(_:at:)``); ``ValidationError`` listing every value at
    ///   fault; ``ConflictError`` when rows changed in the store since they were read;
    ///   ``StoreError`` when the store fails.
    public func save() throws {
        guard var plan = try beginSave() else { return }
        for attempt in 0... {
            do {
                return finishSave(plan, try source.save(plan.changes))
            } catch {
                plan = try planAgain(after: error, attempt: attempt)
            }
        }
    }

    /// ``save()`` with the store's write made by `write` (off the caller's thread, for a
    /// document), the rest on the caller's actor; the context takes no change while `write`
    /// runs (`reason` says why), so what is written is what the context marks saved.
    func save(isolation: isolated (any Actor)? = #isolation, disablingEditing reason: String,
              writing write: @Sendable (ChangeSet) async throws -> SaveResult) async throws {
        guard var plan = try beginSave() else { return }
        status.editingDisabledReason = reason
        defer { status.editingDisabledReason = nil }
        for attempt in 0... {
            do {
                let result = try await write(plan.changes)
                // Changes typed properties could not make while the write ran fail the next save.
                let refused = deferredFailures
                finishSave(plan, result)
                deferredFailures = refused
                return
            } catch {
                plan = try planAgain(after: error, attempt: attempt)
            }
        }
    }

    /// What one write of a save sends, and the objects it came from.
    struct SavePlan {
        /// The inserted objects in their order.
        var inserted: [ManagedObject]
        /// The updated objects in the store's order.
        var updated: [ManagedObject]
        /// What the write sends to the store.
        var changes: ChangeSet
    }

    /// Checks and validates the changes and plans their write; `nil` when there is nothing to save.
    private func beginSave() throws -> SavePlan? {
        if let failure = deferredFailures.first {
            deferredFailures.removeAll()
            throw ObjectError(failure.code, "a change was not made, so nothing was saved: \(failure.message)")
        }
        processPendingChanges()
        guard hasChanges || !pendingMetadata.isEmpty else { return nil }
        for object in orderedInsertedObjects + touched.values.filter(\.isUpdated) + deleted.values {
            object.willSave()
        }
        processPendingChanges()
        let plan = currentPlan()
        let failures = try validate(inserted: plan.inserted, updated: plan.updated)
        guard failures.isEmpty else { throw ValidationError(failures: failures) }
        return plan
    }

    /// The changes as they are now (once for the whole save, again only when a conflict made
    /// the save change them).
    private func currentPlan() -> SavePlan {
        let inserted = orderedInsertedObjects
        let updated = touched.values.filter(\.isUpdated).sorted(by: ObjectContext.storeOrder)
        return SavePlan(inserted: inserted, updated: updated, changes: pendingChangeSet(inserted: inserted, updated: updated))
    }

    /// After a write failed with `error`: the plan of the next write when the merge policy
    /// resolved a conflict; a second conflict in a row is another context racing this one,
    /// reported as an error. Other errors are thrown as they are.
    private func planAgain(after error: any Error, attempt: Int) throws -> SavePlan {
        if let conflict = error as? ConflictError {
            guard mergePolicy != .error, attempt < 2 else { throw try detailed(conflict) }
            try resolve(conflict)
            return currentPlan()
        }
        if let error = error as? StoreError, error.code == .constraintViolation {
            guard mergePolicy != .error, attempt < 2, try foldDuplicateInserts() else { throw error }
            return currentPlan()
        }
        throw error
    }

    /// Marks the written changes saved and announces them.
    private func finishSave(_ plan: SavePlan, _ result: SaveResult) {
        let (insertedObjects, updatedObjects) = (plan.inserted, plan.updated)
        // Own commit: the token moves on with it, unless someone else committed in between.
        if seenToken != nil, seenToken == result.changeTokenBefore { seenToken = result.changeTokenAfter }
        let deletedObjects = Array(deleted.values)
        let changedKeyNames = Dictionary(uniqueKeysWithValues: updatedObjects.map { ($0.objectID, $0.changedKeyNames) })
        uncache(updatedObjects.map(\.objectID) + deletedObjects.map(\.objectID))

        var saved = ObjectChanges()
        saved.inserted.reserveCapacity(insertedObjects.count)
        for object in insertedObjects {
            let oldID = object.objectID
            if let permanent = result.permanentIDs[oldID] {
                object.objectID = permanent
                object.isInserted = false
            }
            // Into the registry, under the ID it has now (`inserted` is emptied below).
            register(object)
            // An inserted row's version is 1.
            object.snapshot = committedSnapshot(of: object, version: result.versions[object.objectID] ?? 1)
            saved.inserted.insert(object.objectID)
        }
        if !result.permanentIDs.isEmpty {
            forEachLiveObject { object in
                guard !object.relationships.isEmpty else { return }
                object.relationships = object.relationships.map { $0.remapped(result.permanentIDs) }
            }
        }
        for object in updatedObjects {
            let version = result.versions[object.objectID] ?? (object.snapshot?.version ?? 0) + 1
            object.snapshot = committedSnapshot(of: object, version: version)
        }
        for object in insertedObjects + Array(touched.values) where !object.relationships.isEmpty {
            object.committedRelationships = [:]
            // What was pending is stored now; the store is the truth until the next load.
            object.relationships = object.relationships.map { if case .pending = $0 { .fault } else { $0 } }
        }
        for object in updatedObjects {
            saved.updated.insert(object.objectID)
            saved.changedKeys[object.objectID] = Set(changedKeyNames[object.objectID] ?? [])
        }
        saved.deleted = Set(deletedObjects.map(\.objectID))
        for object in deletedObjects {
            remove(object)
        }
        clearChanges()
        for object in insertedObjects + updatedObjects + deletedObjects {
            object.didSave()
        }
        tellFollowers(.saved)
        announceSave(ContextEvent(context: identifier, changes: saved, tokens: result))
    }

    /// Sets a value of the store's metadata, written by the next ``save()`` in the same
    /// transaction as the objects' changes (so both land or neither does); `nil` removes the key.
    ///
    /// Keys starting with `trove.` are Trove's own. ``rollback()`` and ``reset()`` drop the
    /// value; a child context's save hands it to its parent. Read values with the store's
    /// `metadata()`.
    public func setStoreMetadata(_ value: String?, forKey key: String) {
        pendingMetadata[key] = .some(value)
    }

    /// What a save writes now: inserts, updates of changed objects, deletes, metadata.
    private func pendingChangeSet(inserted: [ManagedObject], updated: [ManagedObject]) -> ChangeSet {
        var changes = ChangeSet(metadata: pendingMetadata)
        changes.inserts = inserted.map {
            ChangeSet.Insert(objectID: $0.objectID, values: $0.values, relationships: relationshipChanges(of: $0))
        }
        for object in updated where object.isUpdated {
            guard let snapshot = object.snapshot else { continue }
            var changed: [Int: AttributeValue] = [:]
            for i in object.values.indices where object.values[i] != snapshot.values[i] {
                changed[i] = object.values[i]
            }
            changes.updates.append(ChangeSet.Update(objectID: object.objectID, expectedVersion: snapshot.version,
                                                    changes: changed, relationships: relationshipChanges(of: object)))
        }
        changes.deletes = deleted.values.sorted(by: ObjectContext.storeOrder).compactMap { object in
            object.snapshot.map { ChangeSet.Delete(objectID: object.objectID, expectedVersion: $0.version) }
        }
        return changes
    }

    /// A stable order of stored objects for saves and messages: by entity, then primary key.
    static func storeOrder(_ a: ManagedObject, _ b: ManagedObject) -> Bool {
        let (x, y) = (a.objectID.primaryKey ?? 0, b.objectID.primaryKey ?? 0)
        guard x == y else { return x < y }
        return a.objectID.rootEntityName < b.objectID.rootEntityName
    }

    /// Discards every unsaved change: inserted objects leave the context, updated and deleted
    /// ones get their committed values back.
    public func rollback() {
        let reverted = Set(touched.keys).union(deleted.keys)
        defer { tellFollowers(.everything(updated: reverted)) }
        for object in inserted.values {
            object.isInserted = false
            forget(object)
        }
        for object in Array(touched.values) + Array(deleted.values) {
            object.isDeleted = false
            if let snapshot = object.snapshot { object.values = snapshot.values }
            for (index, state) in object.committedRelationships {
                object.relationships[index] = state
            }
            object.committedRelationships = [:]
            object.observeChangeOfEverything()
        }
        clearChanges()
    }

    /// The snapshot of an object as just saved: its values and the to-one links its row holds.
    private func committedSnapshot(of object: ManagedObject, version: Int64) -> RowSnapshot {
        var toOne: [Int: Link] = [:]
        for index in object.snapshot?.toOne.keys.map({ $0 }) ?? [] {
            toOne[index] = Link(object.relationships[index].objectIDs.first)
        }
        return RowSnapshot(objectID: object.objectID, version: version, values: object.values, toOne: toOne)
    }

    /// Forgets every object and every unsaved change; objects fetched before no longer belong
    /// to the context (they keep their last values but can no longer be changed).
    public func reset() {
        for object in inserted.values { object.isInserted = false }
        for object in deleted.values { object.isDeleted = false }
        clearAll()
        tellFollowers(.everything(updated: nil))
    }
}
