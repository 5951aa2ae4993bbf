import TroveModel
import TrovePredicate
import TroveStore

/// How a save resolves rows that changed in the store since the context read them
/// (optimistic locking), as Core Data's merge policies do.
public enum MergePolicy: Sendable, Hashable {
    /// The save fails with a ``ConflictError`` listing each object, its changed keys, the
    /// store's values and the context's (the default).
    case error
    /// Per property: where both changed a value, the store's wins; the context's other changes
    /// are saved. A row deleted in the store stays deleted.
    case storeWins
    /// Per property: where both changed a value, the context's wins; the store's other
    /// changes are kept.
    case objectWins
    /// The context's whole object is written over the store's.
    case overwrite
    /// The context's changes to conflicting objects are dropped for the store's state.
    case rollback
}

extension ObjectContext {
    /// The conflict with, for each object, the keys this context changed and both sides' values.
    func detailed(_ conflict: ConflictError) throws -> ConflictError {
        let rows = Dictionary(try source.rows(for: conflict.conflicts.map(\.objectID)).map { ($0.objectID, $0) },
                              uniquingKeysWith: { a, _ in a })
        return ConflictError(conflicts: conflict.conflicts.map { item in
            guard let object = registry(for: item.objectID) else { return item }
            let names = object.entity.attributes.map(\.name)
            return ConflictError.Conflict(
                objectID: item.objectID, expectedVersion: item.expectedVersion, storeVersion: item.storeVersion,
                changedKeys: object.changedKeyNames.filter { names.contains($0) },
                storeValues: rows[item.objectID].map { Dictionary(uniqueKeysWithValues: zip(names, $0.values)) },
                contextValues: Dictionary(uniqueKeysWithValues: zip(names, object.values)))
        })
    }

    /// Resolves uniqueness conflicts (another context stored an object with the same unique key
    /// as an object inserted here) by ``mergePolicy``: the inserted object is folded into the
    /// stored one, which takes its links (and, under `objectWins` or `overwrite`, its values).
    /// - Returns: whether any insert was folded (if none was, the violation is something else).
    func foldDuplicateInserts() throws -> Bool {
        var folded = false
        for object in orderedInsertedObjects {
            for constraint in object.entity.uniqueBy {
                let values = try constraint.map { try object.value(forKey: $0) }
                guard !values.contains(where: \.isNull) else { continue }
                var request = FetchRequest(entityName: object.entity.name)
                request.predicate = try ObjectPredicate(format: constraint.map { _ in "%K == %@" }.joined(separator: " AND "),
                                                  arguments: zip(constraint, values).flatMap { [$0, $1] as [any PredicateArgument] })
                request.includesPendingChanges = false
                guard let id = try source.fetchObjectIDs(StoreQuery(request, model: model), request).all.first else { continue }
                try fold(object, into: try self.object(with: id))
                folded = true
                break
            }
        }
        return folded
    }

    /// Moves an unsaved insert's values (by policy) and links onto `stored`, then drops it.
    private func fold(_ object: ManagedObject, into stored: ManagedObject) throws {
        if mergePolicy == .objectWins || mergePolicy == .overwrite {
            for (attribute, value) in zip(object.entity.attributes, object.values)
            where !attribute.isDerived && stored.entity.attribute(named: attribute.name) != nil {
                try stored.setValue(value, forKey: attribute.name)
            }
        }
        for (index, relationship) in object.entity.relationships.enumerated() {
            for id in try relatedIDs(of: object, at: index) {
                let target = try self.object(with: id)
                try unlink(object, index, from: target)
                if let storedIndex = stored.entity.relationshipIndex(named: relationship.name) {
                    try link(stored, storedIndex, to: target)
                }
            }
        }
        inserted.remove(object)
        forget(object)
    }

    /// Applies ``mergePolicy`` to each conflicting object, so that the next save can succeed.
    func resolve(_ conflict: ConflictError) throws {
        let rows = Dictionary(try source.rows(for: conflict.conflicts.map(\.objectID)).map { ($0.objectID, $0) },
                              uniquingKeysWith: { a, _ in a })
        for item in conflict.conflicts {
            guard let object = registry(for: item.objectID), let read = object.snapshot else { continue }
            // Transient values are the context's: the store's row holds only their defaults.
            guard let row = rows[item.objectID].map(object.keepingTransientValues) else {
                // Deleted in the store: the store's state is "gone".
                guard mergePolicy == .storeWins || mergePolicy == .rollback else { throw try detailed(conflict) }
                remove(object)
                continue
            }
            switch mergePolicy {
            case .error:
                throw try detailed(conflict)
            case .rollback:
                touched[object.objectID] = nil
                if deleted.removeValue(forKey: object.objectID) != nil { object.isDeleted = false }
                refresh(object, with: row, keepingChanges: false)
            case .overwrite:
                object.snapshot = row
            case .storeWins, .objectWins:
                for i in object.values.indices {
                    let storeChanged = row.values[i] != read.values[i]
                    let contextChanged = object.values[i] != read.values[i]
                    if storeChanged && (!contextChanged || mergePolicy == .storeWins) {
                        object.values[i] = row.values[i]
                        object.observeChange(attribute: i)
                    }
                }
                object.snapshot = row
            }
        }
    }
}
