import TroveModel
import TrovePredicate
import TroveStore

/// Where a context reads rows and writes its saves: its store, or — for a child context — its
/// parent context, whose unsaved state the child sees and into which it saves.
protocol RowSource: AnyObject {
    func fetch(_ query: StoreQuery, _ request: FetchRequest) throws -> [RowSnapshot]
    func fetchObjectIDs(_ query: StoreQuery, _ request: FetchRequest) throws -> LazyResults.IDs
    func count(_ query: StoreQuery, _ request: FetchRequest) throws -> Int
    func row(for id: ObjectID) throws -> RowSnapshot?
    func rows(for ids: [ObjectID]) throws -> [RowSnapshot]
    func fetchRelated(_ relationship: String, of ids: [ObjectID]) throws -> [ObjectID: [RowSnapshot]]
    func save(_ changes: ChangeSet) throws -> SaveResult
}

/// A context's store as its row source.
final class StoreSource: RowSource {
    let store: any PersistentStore

    init(_ store: any PersistentStore) {
        self.store = store
    }

    func fetch(_ query: StoreQuery, _ request: FetchRequest) throws -> [RowSnapshot] { try store.fetch(query) }
    func fetchObjectIDs(_ query: StoreQuery, _ request: FetchRequest) throws -> LazyResults.IDs { .stored(try store.fetchObjectIDs(query)) }
    func count(_ query: StoreQuery, _ request: FetchRequest) throws -> Int { try store.count(query) }
    func row(for id: ObjectID) throws -> RowSnapshot? { try store.row(for: id) }
    func rows(for ids: [ObjectID]) throws -> [RowSnapshot] { try store.rows(for: ids) }
    func fetchRelated(_ relationship: String, of ids: [ObjectID]) throws -> [ObjectID: [RowSnapshot]] {
        try store.fetchRelated(relationship, of: ids)
    }
    func save(_ changes: ChangeSet) throws -> SaveResult { try store.save(changes) }
}

/// A parent context as a child's row source: rows are snapshots of the parent's objects as they
/// are in memory (unsaved changes included), and a save applies the child's changes to them.
final class ParentSource: RowSource {
    let parent: ObjectContext

    init(_ parent: ObjectContext) {
        self.parent = parent
    }

    func fetch(_ query: StoreQuery, _ request: FetchRequest) throws -> [RowSnapshot] {
        try parent.fetch(request).map { try snapshot(of: $0) }
    }

    func fetchObjectIDs(_ query: StoreQuery, _ request: FetchRequest) throws -> LazyResults.IDs {
        .merged(try parent.fetchObjectIDs(request))
    }

    func count(_ query: StoreQuery, _ request: FetchRequest) throws -> Int {
        try parent.count(for: request)
    }

    func row(for id: ObjectID) throws -> RowSnapshot? {
        guard let object = try? parent.object(with: id), !object.isDeleted else { return nil }
        return try snapshot(of: object)
    }

    func rows(for ids: [ObjectID]) throws -> [RowSnapshot] {
        try ids.compactMap { try row(for: $0) }
    }

    func fetchRelated(_ relationship: String, of ids: [ObjectID]) throws -> [ObjectID: [RowSnapshot]] {
        var related: [ObjectID: [RowSnapshot]] = [:]
        for id in ids {
            let object = try parent.object(with: id)
            guard let index = object.entity.relationshipIndex(named: relationship) else { continue }
            related[id] = try parent.relatedIDs(of: object, at: index).compactMap { try row(for: $0) }
        }
        return related
    }

    /// The parent object as a row: its current values, its version, its to-one links.
    private func snapshot(of object: ManagedObject) throws -> RowSnapshot {
        try object.fireFault()
        var toOne: [Int: Link] = [:]
        for (index, relationship) in object.entity.relationships.enumerated() where !relationship.isToMany {
            toOne[index] = Link(try parent.relatedIDs(of: object, at: index).first)
        }
        return RowSnapshot(objectID: object.objectID, version: object.snapshot?.version ?? 0, values: object.values, toOne: toOne)
    }

    /// Applies a child's save to the parent: inserts, then values, then links, then deletes, then
    /// metadata.
    func save(_ changes: ChangeSet) throws -> SaveResult {
        var mapped: [ObjectID: ObjectID] = [:]
        var objects: [ObjectID: ManagedObject] = [:]
        for insert in changes.inserts {
            let object = try parent.insertObject(insert.objectID.entityName)
            mapped[insert.objectID] = object.objectID
            objects[insert.objectID] = object
        }
        func object(_ id: ObjectID) throws -> ManagedObject {
            try objects[id] ?? parent.object(with: id)
        }
        for insert in changes.inserts {
            let target = try object(insert.objectID)
            // Derived values are the parent's to compute (when it saves and reads them back).
            for (attribute, value) in zip(target.entity.attributes, insert.values) where !attribute.isDerived {
                try target.setValue(value, forKey: attribute.name)
            }
        }
        for update in changes.updates {
            let target = try object(update.objectID)
            for (index, value) in update.changes where !target.entity.attributes[index].isDerived {
                try target.setValue(value, forKey: target.entity.attributes[index].name)
            }
        }
        for (id, relationships) in changes.inserts.map({ ($0.objectID, $0.relationships) }) + changes.updates.map({ ($0.objectID, $0.relationships) }) {
            let target = try object(id)
            for change in relationships {
                switch change {
                case .toOne(let index, let link):
                    try target.setRelatedObject(try link.objectID.map(object), forKey: target.entity.relationships[index].name)
                case .toMany(let index, let added, let removed, let order):
                    let name = target.entity.relationships[index].name
                    if let order {
                        try target.setRelatedObjects(try order.map(object), forKey: name)
                    } else {
                        for id in removed { try target.removeRelatedObject(try object(id), forKey: name) }
                        for id in added { try target.addRelatedObject(try object(id), forKey: name) }
                    }
                }
            }
        }
        for delete in changes.deletes {
            try parent.delete(try object(delete.objectID))
        }
        for (key, value) in changes.metadata {
            parent.setStoreMetadata(value, forKey: key)
        }
        return SaveResult(permanentIDs: mapped, versions: [:])
    }
}

extension LazyResults.IDs {
    /// Every ID, as an array.
    var all: [ObjectID] {
        switch self {
        case .stored(let list): Array(list)
        case .merged(let ids): ids
        }
    }
}

extension FetchRequest {
    /// The same request without its limit and offset.
    var unbounded: FetchRequest {
        var copy = self
        copy.fetchLimit = 0
        copy.fetchOffset = 0
        return copy
    }
}
