public import Foundation
public import TroveModel
public import TrovePredicate
import TroveStore

/// Batch requests: deletes and updates run in the store as SQL, without loading objects.
///
/// ```swift
/// let gone = try context.execute(BatchDeleteRequest(entityName: "Photo", where: "views == %d", 0))
/// var request = try BatchUpdateRequest(entityName: "Photo", where: "views < %d", 10)
/// request.values = ["title": "(unseen)"]
/// let touched = try context.execute(request)
/// ```
/// A batch request writes at once, in one transaction, whatever the context holds unsaved; it
/// then reaches the context and every other one as a save does: this context merges it (its
/// objects in memory take the stored values — unsaved changes stay on top — or leave it when
/// deleted), and it posts the save event (``didSave``, ``didSaveNotification``, the
/// container's stream) that other contexts and documents merge.
extension ObjectContext {
    /// Deletes every object the request selects, and what its `cascade` rules reach, in the
    /// store at once.
    ///
    /// Delete rules hold as for objects deleted one by one: `cascade` deletes the related
    /// objects (recursively), `nullify` removes the deleted objects from the other side (raising
    /// those objects' row versions where a save would), `deny` refuses the whole delete while a
    /// relationship holds an object that is not deleted, `noAction` leaves the other side.
    /// When deleting needs the objects — an ``ObjectHooks/prepareForDeletion(of:_:)`` hook, or a
    /// class whose ``EntityClass/needsObjectsInBatchRequests`` is `true`, for an entity the
    /// delete may reach — the objects are fetched and deleted through a context and saved, and
    /// the result's ``BatchResult/usedObjects`` says so. So does a store that cannot run the
    /// delete at once (it throws ``StoreError/Code/unsupportedFormat``; both of Trove's stores
    /// run every batch delete in SQL).
    ///
    /// A batch delete does not check relationship rules (`optional`, `minCount`) of the objects
    /// it unlinks, as Core Data's does not.
    /// - Throws: ``ValidationError`` (rule `deny`) naming the first object whose `deny` rule
    ///   refuses, and what it still holds; ``ObjectError`` `.notOnStore` in a child context;
    ///   ``ObjectPredicateError`` or ``StoreError`` for a bad predicate or entity. Nothing is
    ///   written on any error.
    @discardableResult
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        let query = try batchQuery(request.fetchRequest)
        func deleteObjects() throws -> BatchResult {
            try throughObjects { scratch in
                let matched = try scratch.fetch(request.fetchRequest)
                for object in matched { try scratch.delete(object) }
                return matched.map(\.objectID)
            }
        }
        if deletionNeedsObjects(query.entity, includesSubentities: request.includesSubentities) { return try deleteObjects() }
        let written: BatchWriteResult
        do {
            written = try store.batchDelete(query)
        } catch let error as StoreError where error.code == .unsupportedFormat {
            // A store that cannot run this delete at once deletes through objects.
            return try deleteObjects()
        } catch let denied as DeniedDeleteError {
            throw ValidationError(failures: [ValidationError.Failure(
                objectID: denied.objectID, key: denied.relationship, rule: .deny,
                message: "cannot delete: \(denied.relationship) still holds \(denied.blocking) and its delete rule is deny; remove them first, or narrow the predicate")])
        }
        let (matched, cascaded, nullified) = (written.matched.allIDs, written.cascaded.allIDs, written.nullified.allIDs)
        var changes = ObjectChanges()
        changes.deleted = Set(matched)
        changes.deleted.formUnion(cascaded)
        changes.updated = Set(nullified)
        try announceStoreWrite(changes, tokens: SaveResult(permanentIDs: [:], versions: [:], changeTokenBefore: written.changeTokenBefore,
                                                           changeTokenAfter: written.changeTokenAfter))
        return BatchResult(objectIDs: matched, cascadedObjectIDs: cascaded, nullifiedObjectIDs: nullified, usedObjects: false)
    }

    /// Sets the request's values in every object it selects that holds other values, in the
    /// store at once, raising those objects' row versions (so that a context holding an older
    /// version of one gets a conflict when it saves it).
    ///
    /// The values are checked first, as setting them on objects and saving would check them:
    /// the key must be a stored attribute of the entity, the value of its type, within its
    /// rules (required, min, max, regex); a unique key the update would give two objects
    /// fails in the store. A batch update runs no object code: when updating needs the objects —
    /// a custom validator (``ObjectHooks/validate(_:_:)``) or a class whose
    /// ``EntityClass/needsObjectsInBatchRequests`` is `true`, for the entity or a sub-entity it
    /// updates — the objects are fetched, changed and saved through a context (running
    /// `willSave`, `validateForUpdate` and the validators), and ``BatchResult/usedObjects`` says so.
    /// - Throws: ``ObjectError`` `.unknownKey` (no such stored attribute), `.readOnly` (a
    ///   derived attribute), `.typeMismatch` (a value of another type), `.notOnStore` (a child
    ///   context); ``ValidationError`` naming the key and the first object the request selects
    ///   for a value its rules refuse; ``StoreError`` `.constraintViolation` for a unique key
    ///   the values would repeat. Nothing is written on any error.
    @discardableResult
    public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        let query = try batchQuery(request.fetchRequest)
        let values = try checkedValues(request.values, of: query.entity)
        func updateObjects() throws -> BatchResult {
            try throughObjects { scratch in
                var changed: [ObjectID] = []
                for object in try scratch.fetch(request.fetchRequest) {
                    for (position, value) in values { try object.setValue(value, forAttributeAt: position) }
                    if object.isUpdated { changed.append(object.objectID) }
                }
                return changed
            }
        }
        if updateNeedsObjects(query.entity, includesSubentities: request.includesSubentities) { return try updateObjects() }
        if let failure = try firstRuleFailure(of: values, in: query.entity, request: request.fetchRequest) {
            throw ValidationError(failures: [failure])
        }
        let written: BatchWriteResult
        do {
            written = try store.batchUpdate(query, values: values)
        } catch let error as StoreError where error.code == .unsupportedFormat {
            // A store without batch updates updates through objects.
            return try updateObjects()
        }
        let matched = written.matched.allIDs
        var changes = ObjectChanges()
        changes.updated = Set(matched)
        let keys = Set(values.keys.map { query.entity.attributes[$0].name })
        changes.changedKeys.reserveCapacity(matched.count)
        for id in matched { changes.changedKeys[id] = keys }
        try announceStoreWrite(changes, tokens: SaveResult(permanentIDs: [:], versions: [:], changeTokenBefore: written.changeTokenBefore,
                                                           changeTokenAfter: written.changeTokenAfter))
        return BatchResult(objectIDs: matched, cascadedObjectIDs: [], nullifiedObjectIDs: [], usedObjects: false)
    }

    // MARK: Announcing

    /// Takes what was just written to the store (a batch request, rows saved without objects)
    /// into this context, and announces it as this context's save.
    func announceStoreWrite(_ changes: ObjectChanges, tokens: SaveResult) throws {
        // Own commit: the token moves on with it, unless someone else committed in between.
        if seenToken != nil, seenToken == tokens.changeTokenBefore { seenToken = tokens.changeTokenAfter }
        guard !changes.isEmpty else { return }
        // Objects or rows read ahead that the write changed take the stored values.
        if registrySize > 0 || !rowCache.isEmpty { try mergeChanges(from: changes) }
        announceSave(ContextEvent(context: identifier, changes: changes, tokens: tokens))
    }

    /// Sends a save event on ``didSave``, as ``didSaveNotification`` and to the container.
    func announceSave(_ event: ContextEvent) {
        didSave.send(event)
        guard announcesSaves else { return }
        Self.post(Self.didSaveNotification, event)
        onSave?(event)
    }

    // MARK: Checks

    /// The request checked against the model, for a context on the store.
    private func batchQuery(_ request: FetchRequest) throws -> StoreQuery {
        try checkEditable()
        guard source is StoreSource else {
            throw ObjectError(.notOnStore, "a batch request writes to the store, and this is a child context; execute it in a context on the store (its parent, or a new one)")
        }
        return try queries.query(for: request, model: model)
    }

    /// The values by attribute position, each checked against its attribute's type.
    private func checkedValues(_ values: [String: AttributeValue], of entity: Entity) throws -> [Int: AttributeValue] {
        guard !values.isEmpty else {
            throw ObjectError(.unknownKey, "the batch update of \(entity.name) sets no value; give values by attribute name")
        }
        var checked: [Int: AttributeValue] = [:]
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let position = entity.attributes.firstIndex(where: { $0.name == key }) else {
                throw ObjectError(.unknownKey, "entity '\(entity.name)' has no attribute '\(key)'; its attributes are: \(entity.attributes.map(\.name).joined(separator: ", "))")
            }
            let attribute = entity.attributes[position]
            if let derivation = attribute.derivation {
                throw ObjectError(.readOnly, "cannot set \(entity.name).\(key) in a batch update: it is derived (\(derivation)), computed by the store")
            }
            guard !attribute.isTransient else {
                throw ObjectError(.unknownKey, "cannot set \(entity.name).\(key) in a batch update: it is transient, and the store keeps no value of it")
            }
            switch attribute.checked(value) {
            case .success(let value): checked[position] = value
            case .failure(let problem):
                throw ObjectError(.typeMismatch, "cannot set \(entity.name).\(key) to \(value) in a batch update: \(problem)")
            }
        }
        return checked
    }

    /// The first rule (required, min, max, regex) a value breaks, named on the first object the
    /// request selects; `nil` when none breaks one or no object is selected (nothing changes).
    private func firstRuleFailure(of values: [Int: AttributeValue], in entity: Entity, request: FetchRequest) throws -> ValidationError.Failure? {
        let placeholder = ObjectID(entity: entity, primaryKey: 0)
        for (position, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let failure = ObjectContext.check(value, of: entity.attributes[position], in: placeholder).first else { continue }
            var first = request
            first.fetchLimit = 1
            guard let id = try store.fetchObjectIDs(StoreQuery(first, model: model)).first else { return nil }
            return ValidationError.Failure(objectID: id, key: failure.key, rule: failure.rule, message: failure.message + " (in a batch update)")
        }
        return nil
    }

    /// Whether deleting objects of `entity` (and its sub-entities), or of an entity its
    /// `cascade` rules reach, runs code that needs the objects.
    private func deletionNeedsObjects(_ entity: Entity, includesSubentities: Bool) -> Bool {
        var seen: Set<String> = []
        var waiting = lineageBelow(entity, includesSubentities: includesSubentities)
        while let next = waiting.popLast() {
            guard seen.insert(next.name).inserted else { continue }
            if !hooks.deletionHooks(for: next, in: model).isEmpty || classNeedsObjects(next) { return true }
            for relationship in next.relationships where relationship.deleteRule == .cascade {
                if let destination = model.entity(named: relationship.destination) {
                    waiting += lineageBelow(destination, includesSubentities: true)
                }
            }
        }
        return false
    }

    /// Whether updating objects of `entity` (and its sub-entities) runs code that needs them.
    private func updateNeedsObjects(_ entity: Entity, includesSubentities: Bool) -> Bool {
        lineageBelow(entity, includesSubentities: includesSubentities).contains {
            !hooks.validators(for: $0, in: model).isEmpty || classNeedsObjects($0)
        }
    }

    private func classNeedsObjects(_ entity: Entity) -> Bool {
        (classes.type(of: entity) as? any EntityClass.Type)?.needsObjectsInBatchRequests ?? false
    }

    private func lineageBelow(_ entity: Entity, includesSubentities: Bool) -> [Entity] {
        [entity] + (includesSubentities ? entity.subentityNames.compactMap { model.entity(named: $0) } : [])
    }

    // MARK: Falling back to objects

    /// Runs `body` in a new context on the same store (with this one's classes and hooks), saves
    /// it, and takes the save into this context and announces it as this context's own.
    /// `body` returns the IDs of the objects the request matched.
    private func throughObjects(_ body: (ObjectContext) throws -> [ObjectID]) throws -> BatchResult {
        let saved = Locked<ContextEvent?>(nil)
        let scratch = ObjectContext(store: store, classes: classes, hooks: hooks) { event in saved.withLock { $0 = event } }
        scratch.announcesSaves = false
        let matched = try body(scratch)
        let matchedSet = Set(matched)
        let nullified = scratch.updatedObjects.map(\.objectID).filter { !matchedSet.contains($0) }
        let cascaded = scratch.deletedObjects.map(\.objectID).filter { !matchedSet.contains($0) }
        try scratch.save()
        if let event = saved.withLock({ $0 }) {
            let tokens = SaveResult(permanentIDs: [:], versions: [:], changeTokenBefore: event.tokenBefore, changeTokenAfter: event.tokenAfter)
            try announceStoreWrite(event.changes, tokens: tokens)
        }
        func inStoreOrder(_ ids: [ObjectID]) -> [ObjectID] {
            ids.sorted { ($0.rootEntityName, $0.primaryKey ?? 0) < ($1.rootEntityName, $1.primaryKey ?? 0) }
        }
        return BatchResult(objectIDs: inStoreOrder(matched), cascadedObjectIDs: inStoreOrder(cascaded),
                           nullifiedObjectIDs: inStoreOrder(nullified), usedObjects: true)
    }
}

/// What a batch request did: the objects it deleted or updated, and what delete rules did.
public struct BatchResult: Sendable, Hashable {
    /// The objects the request selected and deleted or updated, in no particular order (an
    /// update leaves out those that already held the new values).
    public let objectIDs: [ObjectID]
    /// The objects a `cascade` rule deleted with them, by entity and primary key (empty for an
    /// update).
    public let cascadedObjectIDs: [ObjectID]
    /// The objects not deleted from whose relationships a `nullify` rule removed deleted ones,
    /// and whose row version was raised.
    public let nullifiedObjectIDs: [ObjectID]
    /// Whether the request went through objects — fetched, changed or deleted, and saved by a
    /// context — because an entity's hooks or class needed them (see `execute(_:)`).
    public let usedObjects: Bool

    /// The number of objects the request selected and deleted or updated.
    public var count: Int { objectIDs.count }
}

extension BatchDeleteRequest {
    /// A request for the objects of `T`'s entity that Foundation's typed predicate selects
    /// (translated as fetches translate it: see ``ObjectPredicate/init(_:)``).
    /// - Throws: ``ObjectPredicateError`` for a construct outside the supported subset.
    public init<T: EntityClass>(_ type: T.Type, where predicate: Predicate<T>? = nil) throws(ObjectPredicateError) {
        self.init(entityName: T.entityName,
                  predicate: try predicate.map { predicate throws(ObjectPredicateError) in try ObjectPredicate(predicate) })
    }
}

extension BatchUpdateRequest {
    /// A request setting `values` in the objects of `T`'s entity that Foundation's typed
    /// predicate selects (translated as fetches translate it: see ``ObjectPredicate/init(_:)``).
    /// - Throws: ``ObjectPredicateError`` for a construct outside the supported subset.
    public init<T: EntityClass>(_ type: T.Type, where predicate: Predicate<T>? = nil,
                                values: [String: AttributeValue] = [:]) throws(ObjectPredicateError) {
        self.init(entityName: T.entityName,
                  predicate: try predicate.map { predicate throws(ObjectPredicateError) in try ObjectPredicate(predicate) },
                  values: values)
    }
}
