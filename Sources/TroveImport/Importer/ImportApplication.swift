import TroveContext
import TroveModel
import TrovePredicate

/// Applies read records to a context: finds existing objects by key in batches, creates the
/// others, sets values that differ, links relationships by their import policy, and makes stubs
/// for references to objects not stored yet. Keeps what it did, for the report.
struct ImportApplication {
    let context: ObjectContext
    let hooks: ImportHooks
    /// Objects by key: found in the store, or created by this batch.
    private var identity: [UniqueKey: ManagedObject] = [:]
    private var inserted: Set<ObjectID> = []
    private var stubs: Set<ObjectID> = []
    private var existing: [ObjectID: ManagedObject] = [:]
    /// Existing objects the payload changed (values, to-one or to-many links).
    private var changed: Set<ObjectID> = []
    private var orphansDeleted: [String: Int] = [:]
    /// Results of the find queries, holding the relationships prefetched for the batch.
    private var found: [FetchedResults<ManagedObject>] = []
    /// The last record that touched each object, to blame it when the save refuses the object.
    private var touchedBy: [ObjectID: Int] = [:]
    /// The objects each existing object's relationships held before the batch first set them,
    /// by relationship position: a record may set a link and set it back (through a nested
    /// object that is the same object), which leaves the object as it was.
    private var linksBefore: [ObjectID: [Int: [ObjectID]]] = [:]

    init(context: ObjectContext, hooks: ImportHooks) {
        self.context = context
        self.hooks = hooks
    }

    // MARK: Find

    /// Looks up every key of the batch: one query per lookup, prefetching the to-many
    /// relationships `nodes` set (so that replacing them reads nothing more).
    mutating func findExisting(_ lookups: [KeyLookup], nodes: [ImportNode]) throws {
        var toMany: [String: Set<String>] = [:]
        for node in nodes where !node.toMany.isEmpty {
            let entity = node.mapping.entity
            toMany[entity.rootName, default: []].formUnion(node.toMany.map { entity.relationships[$0.index].name })
        }
        for lookup in lookups {
            let (group, entity) = (lookup.group, lookup.entity)
            let names = group.attributes.map { entity.attributes[$0].name }
            var request = FetchRequest(entityName: context.model.entity(named: group.root)?.name ?? entity.name)
            request.relationshipKeyPathsForPrefetching = (toMany[group.root] ?? []).filter { entity.relationship(named: $0) != nil }.sorted()
            request.predicate = lookup.predicate
            let results = try context.fetch(request)
            for object in results {
                let values = try names.map { try object.value(forKey: $0) }
                identity[UniqueKey(root: group.root, attributes: group.attributes, values: values)] = object
            }
            found.append(results)
        }
    }

    // MARK: Apply

    /// Applies one top-level record's node tree.
    mutating func apply(_ node: ImportNode, record: Int) throws {
        _ = try object(for: node, linkedFrom: nil, record: record)
    }

    private mutating func object(for node: ImportNode, linkedFrom parent: (object: ManagedObject, index: Int)?, record: Int) throws -> ManagedObject {
        let entity = node.mapping.entity
        let object: ManagedObject
        if let key = node.key, let found = identity[key] {
            object = found
            if stubs.remove(found.objectID) != nil { inserted.insert(found.objectID) }
        } else if node.key == nil, let (owner, index) = parent, !owner.entity.relationships[index].isToMany,
                  let linked = try owner.relatedObject(forKey: owner.entity.relationships[index].name), linked.entity.isKind(of: entity) {
            // A destination without a unique key: a nested to-one updates the object already linked.
            object = linked
        } else {
            object = try context.insert(entity.name)
            inserted.insert(object.objectID)
            if let key = node.key { identity[key] = object }
        }
        if !inserted.contains(object.objectID) { existing[object.objectID] = object }
        touchedBy[object.objectID] = record

        var changes = false
        if existing[object.objectID] != nil {
            for index in node.toOne.map(\.index) + node.toMany.map(\.index) where linksBefore[object.objectID]?[index] == nil {
                linksBefore[object.objectID, default: [:]][index] = try object.objectIDs(forRelationshipNamed: entity.relationships[index].name)
            }
        }
        for (index, value) in node.values {
            changes = try object.setValue(value, forAttributeAt: index) || changes
        }
        for (index, target) in node.toOne {
            let related = try target.map { try self.object(for: $0, linkedFrom: (object, index), record: record) }
            changes = try object.setRelatedObject(related, forKey: entity.relationships[index].name) || changes
        }
        for (index, targets) in node.toMany {
            let relationship = entity.relationships[index]
            let related = try targets.map { try self.object(for: $0, linkedFrom: (object, index), record: record) }
            let beforeIDs = Set(try object.objectIDs(forRelationshipNamed: relationship.name))
            switch relationship.importPolicy {
            case .union:
                for item in related { try object.addRelatedObject(item, forKey: relationship.name) }
                changes = changes || related.contains { !beforeIDs.contains($0.objectID) }
            case .replace:
                try object.setRelatedObjects(related, forKey: relationship.name)
                changes = changes || Set(related.map(\.objectID)) != beforeIDs
            case .replaceDeletingOrphans:
                let keep = Set(related.map(\.objectID))
                let orphans = try object.relatedObjects(forKey: relationship.name).filter { !keep.contains($0.objectID) }
                try object.setRelatedObjects(related, forKey: relationship.name)
                changes = changes || keep != beforeIDs
                for orphan in orphans where !orphan.isDeleted {
                    try context.delete(orphan)
                    orphansDeleted[orphan.entity.name, default: 0] += 1
                }
            }
        }
        if changes { changed.insert(object.objectID) }
        for (handler, value) in node.handled {
            try handler(object, value)
        }
        if let after = hooks.after[entity.name] {
            try after(object, try node.record)
        }
        return object
    }

    private mutating func object(for target: ImportTarget, linkedFrom parent: (object: ManagedObject, index: Int), record: Int) throws -> ManagedObject {
        switch target {
        case .node(let node):
            return try object(for: node, linkedFrom: parent, record: record)
        case .reference(let key, let destination):
            if let found = identity[key] {
                // Linking a stored object changes its inverse, so a save checks it whole: the
                // record is to blame if it breaks a rule (else the whole batch would fail).
                if touchedBy[found.objectID] == nil { touchedBy[found.objectID] = record }
                return found
            }
            let stub = try context.insert(destination.name)
            for (index, value) in zip(key.attributes, key.values) {
                try stub.setValue(value, forKey: destination.attributes[index].name)
            }
            identity[key] = stub
            stubs.insert(stub.objectID)
            touchedBy[stub.objectID] = record
            return stub
        }
    }

    // MARK: Results

    /// The last record that touched an object the save refused, and the object's key.
    func touched(_ id: ObjectID) -> (record: Int, key: UniqueKey?)? {
        guard let record = touchedBy[id] else { return nil }
        return (record, identity.first { $0.value.objectID == id }?.key)
    }

    /// What the batch did per entity (before its save: inserted objects still have temporary IDs).
    func counts() throws -> [String: ImportReport.EntityCounts] {
        var counts: [String: ImportReport.EntityCounts] = [:]
        for id in inserted { counts[id.entityName, default: .init()].inserted += 1 }
        for id in stubs { counts[id.entityName, default: .init()].stubs += 1 }
        for object in existing.values where !object.isDeleted {
            if try changed.contains(object.objectID) && (!object.changedValues().isEmpty || linksDiffer(object)) {
                counts[object.entity.name, default: .init()].updated += 1
            } else {
                counts[object.entity.name, default: .init()].unchanged += 1
            }
        }
        for (name, deleted) in orphansDeleted { counts[name, default: .init()].deleted += deleted }
        return counts
    }

    /// Whether a relationship the batch set on an existing object holds other objects than
    /// before (in another order, for an ordered one). A change the inverse of another object's
    /// link made is that object's change, as the rows path counts it.
    private func linksDiffer(_ object: ManagedObject) throws -> Bool {
        try (linksBefore[object.objectID] ?? [:]).contains { index, before in
            let relationship = object.entity.relationships[index]
            let now = try object.objectIDs(forRelationshipNamed: relationship.name)
            return relationship.isOrdered ? now != before : Set(now) != Set(before)
        }
    }
}
