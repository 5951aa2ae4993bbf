public import TroveModel
import TroveStore

extension ObjectContext {
    /// The objects a request selects: one SQL statement, with this context's unsaved changes
    /// applied when the request includes them (the default).
    ///
    /// Unsaved changes are those of objects of the fetched entity: inserted objects that match
    /// are added, deleted ones left out, and updated ones tested with their values in memory
    /// (changes to *related* objects count once saved, as in Core Data). With a
    /// ``FetchRequest/fetchBatchSize`` the results read only IDs first and load objects a
    /// batch at a time as they are accessed.
    /// - Throws: ``StoreError`` `.unknownEntity`, a ``PredicateError`` for a predicate or sort
    ///   key that does not fit the entity, or the store's error.
    public func fetch(_ request: FetchRequest) throws -> FetchedResults {
        let query = try StoreQuery(request, model: model)
        let objects: [ManagedObject]
        if let ids = try pendingAwareIDs(query, request) ?? (request.fetchBatchSize > 0 || request.returnsObjectsAsFaults
                                                            ? store.fetchObjectIDs(query) : nil) {
            if request.fetchBatchSize > 0 {
                return try FetchedResults(context: self, entity: query.entity, ids: ids, batchSize: request.fetchBatchSize,
                                          prefetching: request.relationshipKeyPathsForPrefetching)
            }
            if request.returnsObjectsAsFaults {
                return try FetchedResults(context: self, entity: query.entity, ids: ids, batchSize: 0)
            }
            let loaded = try loadObjects(for: ids)
            objects = ids.compactMap { loaded[$0] }
        } else {
            objects = try store.fetch(query).map { try materialize($0) }
        }
        let prefetched = try prefetch(request.relationshipKeyPathsForPrefetching, of: objects)
        return FetchedResults(objects: objects, keepingAlive: prefetched)
    }

    /// The IDs of the objects a request selects, without reading their values.
    public func fetchObjectIDs(_ request: FetchRequest) throws -> [ObjectID] {
        let query = try StoreQuery(request, model: model)
        return try pendingAwareIDs(query, request) ?? store.fetchObjectIDs(query)
    }

    /// The number of objects a request selects, counted by the store without loading objects
    /// (unless the context has unsaved changes of that entity to apply).
    public func count(for request: FetchRequest) throws -> Int {
        let query = try StoreQuery(request, model: model)
        return try pendingAwareIDs(query, request)?.count ?? store.count(query)
    }

    // MARK: Unsaved changes

    /// When the request includes pending changes and the context has some for the entity:
    /// the IDs the request selects, merged in memory. Otherwise `nil` (the store alone answers).
    private func pendingAwareIDs(_ query: StoreQuery, _ request: FetchRequest) throws -> [ObjectID]? {
        guard request.includesPendingChanges else { return nil }
        func concerned(_ object: ManagedObject) -> Bool {
            query.includesSubentities ? object.entity.isKind(of: query.entity) : object.entity.name == query.entity.name
        }
        let changed = touched.values.filter(concerned) + deleted.values.filter(concerned)
        let added = orderedInsertedObjects.filter(concerned)
        guard !changed.isEmpty || !added.isEmpty else { return nil }

        let changedIDs = Set(changed.map(\.objectID))
        var candidates: [ManagedObject] = []
        var untouched: [ObjectID] = []
        for id in try store.fetchObjectIDs(query.unbounded) where !changedIDs.contains(id) {
            untouched.append(id)
        }
        func matches(_ object: ManagedObject) -> Bool {
            !object.isDeleted && (query.predicate?.evaluate(with: object) ?? true)
        }
        let updatedMatches = changed.filter(matches).sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        let insertedMatches = added.filter(matches)

        if query.sortDescriptors.isEmpty {
            // Primary-key order, then inserted objects in insertion order: the store's own order.
            var merged = untouched + updatedMatches.map(\.objectID)
            merged.sort { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
            return window(merged + insertedMatches.map(\.objectID), query)
        }
        let loaded = try loadObjects(for: untouched)
        candidates = try untouched.map { try loaded[$0] ?? object(with: $0) } + updatedMatches + insertedMatches
        let position = Dictionary(candidates.enumerated().map { ($1.objectID, $0) }, uniquingKeysWith: { a, _ in a })
        candidates.sort { a, b in
            switch query.sortDescriptors.compare(a, b) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: return Self.tieBreak(a, b, position)
            }
        }
        return window(candidates.map(\.objectID), query)
    }

    /// Ties keep the store's order: primary key, then unsaved inserts as inserted.
    private static func tieBreak(_ a: ManagedObject, _ b: ManagedObject, _ position: [ObjectID: Int]) -> Bool {
        switch (a.objectID.primaryKey, b.objectID.primaryKey) {
        case (let x?, let y?): return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): return (position[a.objectID] ?? 0) < (position[b.objectID] ?? 0)
        }
    }

    private func window(_ ids: [ObjectID], _ query: StoreQuery) -> [ObjectID] {
        let start = min(query.offset, ids.count)
        let end = query.limit.map { min(start + $0, ids.count) } ?? ids.count
        return Array(ids[start..<end])
    }

    // MARK: Loading

    /// The objects for `ids`, reading in batches the rows of those not in memory (or faults).
    /// The caller holds the objects it needs: the context keeps unchanged ones only weakly.
    @discardableResult
    func loadObjects(for ids: [ObjectID]) throws -> [ObjectID: ManagedObject] {
        var objects: [ObjectID: ManagedObject] = [:]
        var missing: [ObjectID] = []
        for id in ids {
            if let object = registry(for: id), !object.isFault {
                objects[id] = object
            } else if let object = try cachedObject(for: id) {
                objects[id] = object
            } else {
                missing.append(id)
            }
        }
        guard !missing.isEmpty else { return objects }
        for snapshot in try store.rows(for: missing) {
            objects[snapshot.objectID] = try materialize(snapshot)
        }
        return objects
    }

    /// Loads each relationship key path for all `objects`: per level, one query for the
    /// relationship (per 500 objects) and one for related rows not read yet. Returns the
    /// objects reached, for the caller to keep alive while it uses them.
    func prefetch(_ keyPaths: [String], of objects: [ManagedObject]) throws -> [ManagedObject] {
        var keepAlive: [ManagedObject] = []
        for keyPath in keyPaths {
            var level = objects
            for key in keyPath.split(separator: ".").map(String.init) where !level.isEmpty {
                try loadRelationship(key, of: level)
                var seen: Set<ObjectID> = []
                let next = level.flatMap { object in
                    object.entity.relationshipIndex(named: key).map { object.relationships[$0].objectIDs } ?? []
                }.filter { seen.insert($0).inserted }
                let loaded = try loadObjects(for: next)
                level = next.compactMap { loaded[$0] }
                keepAlive += level
            }
        }
        return keepAlive
    }
}

/// The objects of a fetch, as a random-access collection.
///
/// Unbatched results hold their objects. Batched results (``FetchRequest/fetchBatchSize``)
/// hold only IDs and load a batch of objects when one of its elements is first accessed, with
/// the request's ``FetchRequest/relationshipKeyPathsForPrefetching`` for that batch, keeping
/// only the current batch alive: iterate a million objects and memory stays flat.
public struct FetchedResults: RandomAccessCollection {
    private enum Storage {
        case objects([ManagedObject], keepAlive: [ManagedObject])
        case batched(context: ObjectContext, ids: [ObjectID], batchSize: Int, cache: BatchCache, fetched: Entity)
    }

    /// A fault's entity by name, checked when the results are made so that access cannot fail.
    private let entities: [String: Entity]

    private let storage: Storage

    /// Results holding `objects`, and the objects a prefetch reached (so that touching the
    /// prefetched relationships reads nothing while the results are held).
    init(objects: [ManagedObject], keepingAlive prefetched: [ManagedObject] = []) {
        storage = .objects(objects, keepAlive: prefetched)
        entities = [:]
    }

    /// Results that load objects `batchSize` at a time as they are accessed, or with a batch
    /// size of 0 hand out faults that read their row when touched.
    init(context: ObjectContext, entity: Entity, ids: [ObjectID], batchSize: Int, prefetching keyPaths: [String] = []) throws {
        var entities: [String: Entity] = [:]
        for name in Set(ids.map(\.entityName)) {
            guard let entity = context.model.entity(named: name) else {
                throw ObjectError(.unknownEntity, "the store returned objects of entity '\(name)', which the model lacks")
            }
            entities[name] = entity
        }
        self.entities = entities
        storage = .batched(context: context, ids: ids, batchSize: batchSize, cache: BatchCache(prefetching: keyPaths), fetched: entity)
    }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .objects(let objects, _): objects.count
        case .batched(_, let ids, _, _, _): ids.count
        }
    }

    /// The IDs of the results, without loading objects.
    public var objectIDs: [ObjectID] {
        switch storage {
        case .objects(let objects, _): objects.map(\.objectID)
        case .batched(_, let ids, _, _, _): ids
        }
    }

    /// The object at `position`; for batched results, accessing it loads its batch. An object
    /// whose row vanished since the fetch comes back as a fault that fails when touched.
    public subscript(position: Int) -> ManagedObject {
        switch storage {
        case .objects(let objects, _):
            return objects[position]
        case .batched(let context, let ids, let batchSize, let cache, let fetched):
            // Checked names never fall back to the fetched entity; the default only avoids a trap.
            func fault(_ id: ObjectID) -> ManagedObject {
                context.objectOrFault(for: id, entity: entities[id.entityName, default: fetched])
            }
            guard batchSize > 0 else { return fault(ids[position]) }
            let batch = position / batchSize
            if cache.batch != batch {
                let range = (batch * batchSize)..<Swift.min((batch + 1) * batchSize, ids.count)
                let slice = Array(ids[range])
                let loaded = (try? context.loadObjects(for: slice)) ?? [:]
                cache.objects = slice.compactMap { loaded[$0] ?? fault($0) }
                cache.related = (try? context.prefetch(cache.keyPaths, of: cache.objects)) ?? []
                cache.batch = batch
            }
            let offset = position - batch * batchSize
            if offset < cache.objects.count, cache.objects[offset].objectID == ids[position] {
                return cache.objects[offset]
            }
            return fault(ids[position])
        }
    }
}

/// The batch of objects a batched result keeps alive, with what was prefetched for it.
final class BatchCache {
    let keyPaths: [String]
    var batch = -1
    var objects: [ManagedObject] = []
    var related: [ManagedObject] = []

    init(prefetching keyPaths: [String]) {
        self.keyPaths = keyPaths
    }
}
