public import TroveModel
public import TrovePredicate
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
    /// - Throws: ``StoreError`` `.unknownEntity`, a ``ObjectPredicateError`` for a predicate or sort
    ///   key that does not fit the entity, or the store's error.
    public func fetch(_ request: FetchRequest) throws -> FetchedResults<ManagedObject> {
        try fetch(request, as: ManagedObject.self)
    }

    /// The objects a request selects, as instances of `type`: the class registered for the
    /// request's entity, or one of its superclasses.
    /// - Throws: ``ObjectError`` `.typeMismatch` when the entity's objects are not `T`s (register
    ///   its class with the container), or as ``fetch(_:)-(FetchRequest)``.
    public func fetch<T: ManagedObject>(_ request: FetchRequest, as type: T.Type) throws -> FetchedResults<T> {
        let query = try queries.query(for: request, model: model)
        try checkClass(T.self, of: query.entity)
        let lazily = request.fetchBatchSize > 0 || request.returnsObjectsAsFaults
        let objects: [ManagedObject]
        if let merged = try pendingAwareIDs(query, request) {
            if lazily {
                return try FetchedResults(context: self, ids: .merged(merged), request: request, entity: query.entity)
            }
            objects = try loadObjects(for: merged).compactMap { $0 }
        } else if lazily {
            return try FetchedResults(context: self, ids: source.fetchObjectIDs(query, request), request: request, entity: query.entity)
        } else {
            objects = try source.fetch(query, request).map { try materialize($0) }
        }
        let prefetched = try prefetch(request.relationshipKeyPathsForPrefetching, of: objects)
        return FetchedResults(objects: objects, keepingAlive: prefetched)
    }

    /// The IDs of the objects a request selects, without reading their values.
    public func fetchObjectIDs(_ request: FetchRequest) throws -> [ObjectID] {
        let query = try queries.query(for: request, model: model)
        return try pendingAwareIDs(query, request) ?? source.fetchObjectIDs(query, request).all
    }

    /// The number of objects a request selects, counted by the store without loading objects
    /// (unless the context has unsaved changes of that entity to apply).
    public func count(for request: FetchRequest) throws -> Int {
        let query = try queries.query(for: request, model: model)
        return try pendingAwareIDs(query, request)?.count ?? source.count(query, request)
    }

    // MARK: Unsaved changes

    /// When the request includes pending changes and the context has some for the entity:
    /// the IDs the request selects, merged in memory. Otherwise `nil` (the store alone answers).
    private func pendingAwareIDs(_ query: StoreQuery, _ request: FetchRequest) throws -> [ObjectID]? {
        guard request.includesPendingChanges, !(touched.isEmpty && deleted.isEmpty && inserted.isEmpty) else { return nil }
        func concerned(_ object: ManagedObject) -> Bool {
            query.includesSubentities ? object.entity.isKind(of: query.entity) : object.entity.name == query.entity.name
        }
        let changed = touched.values.filter(concerned) + deleted.values.filter(concerned)
        let added = orderedInsertedObjects.filter(concerned)
        guard !changed.isEmpty || !added.isEmpty else { return nil }

        let changedIDs = Set(changed.map(\.objectID))
        var candidates: [ManagedObject] = []
        var untouched: [ObjectID] = []
        for id in try source.fetchObjectIDs(query.unbounded, request.unbounded).all where !changedIDs.contains(id) {
            untouched.append(id)
        }
        func matches(_ object: ManagedObject) throws -> Bool {
            try !object.isDeleted && (query.predicate?.evaluate(with: object) ?? true)
        }
        let updatedMatches = try changed.filter(matches).sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        let insertedMatches = try added.filter(matches)

        if query.sortDescriptors.isEmpty {
            // Primary-key order, then inserted objects in insertion order: the store's own order.
            var merged = untouched + updatedMatches.map(\.objectID)
            merged.sort { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
            return window(merged + insertedMatches.map(\.objectID), query)
        }
        let loaded = try loadObjects(for: untouched)
        candidates = try zip(untouched, loaded).map { id, object in try object ?? self.object(with: id) } + updatedMatches + insertedMatches
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

    /// The objects for `ids`, in their order: those in memory as they are, the others (and
    /// faults) made from their rows, read in one go; `nil` for an ID without a row.
    /// The caller holds the objects it needs: the context keeps unchanged ones only weakly.
    func loadObjects(for ids: [ObjectID]) throws -> [ManagedObject?] {
        var objects = [ManagedObject?](repeating: nil, count: ids.count)
        // The positions to read, and the fault registered for each, if any.
        var missing: [(position: Int, fault: ManagedObject?)] = []
        missing.reserveCapacity(ids.count)
        for (position, id) in ids.enumerated() {
            let registered = registry(for: id)
            if let registered, !registered.isFault {
                objects[position] = registered
            } else if let cached = try cachedObject(for: id) {
                objects[position] = cached
            } else {
                missing.append((position, registered))
            }
        }
        guard !missing.isEmpty else { return objects }
        var rows = try source.rows(for: missing.count == ids.count ? ids : missing.map { ids[$0.position] })
        // Rows come back in the order asked for when the IDs ascend (a batch of results in
        // primary-key order): match them by walking (from the end: each row is popped from
        // the array, so that the object it makes takes it over without copying it); otherwise
        // by a lookup made once.
        var next = missing.count - 1
        var lookup: [ObjectID: Int]?
        while let row = rows.popLast() {
            let index: Int
            if next >= 0, ids[missing[next].position] == row.objectID {
                index = next
                next -= 1
            } else {
                if lookup == nil {
                    lookup = Dictionary(missing.indices.map { (ids[missing[$0].position], $0) }, uniquingKeysWith: { a, _ in a })
                }
                guard let found = lookup?[row.objectID] else { continue }
                index = found
            }
            if let fault = missing[index].fault {
                objects[missing[index].position] = refreshed(fault, from: row)
            } else {
                objects[missing[index].position] = try makeObject(from: consume row)
            }
        }
        // An ID given twice was made once.
        for (position, _) in missing where objects[position] == nil {
            if let object = registry(for: ids[position]), !object.isFault { objects[position] = object }
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
                level = try loadObjects(for: next).compactMap { $0 }
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
///
/// `Element` is the class of the fetched entity's objects (``ManagedObject`` for the dynamic
/// API): the fetch checked that every object it can return is one.
public struct FetchedResults<Element: ManagedObject>: RandomAccessCollection {
    private enum Storage {
        case objects([ManagedObject], keepAlive: [ManagedObject])
        case lazy(LazyResults)
    }

    private let storage: Storage

    /// Results holding `objects`, and the objects a prefetch reached (so that touching the
    /// prefetched relationships reads nothing while the results are held).
    init(objects: [ManagedObject], keepingAlive prefetched: [ManagedObject] = []) {
        storage = .objects(objects, keepAlive: prefetched)
    }

    /// Results that load objects a batch at a time as they are accessed, or (with no batch
    /// size) hand out faults that read their row when touched.
    init(context: ObjectContext, ids: LazyResults.IDs, request: FetchRequest, entity: Entity) throws {
        storage = .lazy(try LazyResults(context: context, ids: ids, request: request, entity: entity))
    }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .objects(let objects, _): objects.count
        case .lazy(let lazy): lazy.ids.count
        }
    }

    /// The IDs of the results, without loading objects.
    public var objectIDs: [ObjectID] {
        switch storage {
        case .objects(let objects, _): objects.map(\.objectID)
        case .lazy(let lazy): (0..<lazy.ids.count).map { lazy.ids[$0] }
        }
    }

    /// The object at `position`; for batched results, accessing it loads its batch. An object
    /// whose row vanished since the fetch comes back as a fault that fails when touched.
    public subscript(position: Int) -> Element {
        switch storage {
        case .objects(let objects, _): unsafeDowncast(objects[position], to: Element.self)
        case .lazy(let lazy): unsafeDowncast(lazy.object(at: position), to: Element.self)
        }
    }
}

/// The state of lazy results: the IDs, and the batch of objects loaded last (kept alive with
/// what was prefetched for it).
final class LazyResults {
    /// The IDs: compact, as the store read them, or merged in memory with the context's unsaved
    /// changes (which may hold temporary IDs).
    enum IDs {
        case stored(ObjectIDList)
        case merged([ObjectID])

        var count: Int {
            switch self {
            case .stored(let list): list.count
            case .merged(let ids): ids.count
            }
        }

        subscript(position: Int) -> ObjectID {
            switch self {
            case .stored(let list): list[position]
            case .merged(let ids): ids[position]
            }
        }

        /// The IDs at `positions`, in order.
        func ids(in positions: Range<Int>) -> [ObjectID] {
            switch self {
            case .stored(let list): list.ids(in: positions)
            case .merged(let ids): Array(ids[positions])
            }
        }
    }

    let context: ObjectContext
    let ids: IDs
    private let batchSize: Int
    private let keyPaths: [String]
    /// The fetched entity, and the entities of merged IDs by name (checked up front, so that
    /// making a fault cannot fail).
    private let fetched: Entity
    private let entities: [String: Entity]
    // Unchecked: read at every access (no access to them calls out while in progress).
    @exclusivity(unchecked) private var batch = -1
    /// The objects of the batch (none is `nil`: a row not found gives a fault).
    @exclusivity(unchecked) private var objects: [ManagedObject?] = []
    private var related: [ManagedObject] = []

    init(context: ObjectContext, ids: IDs, request: FetchRequest, entity: Entity) throws {
        var entities: [String: Entity] = [:]
        if case .merged(let merged) = ids {
            for name in Set(merged.map(\.entityName)) {
                guard let entity = context.model.entity(named: name) else {
                    throw ObjectError(.unknownEntity, "the results name entity '\(name)', which the model lacks")
                }
                entities[name] = entity
            }
        }
        self.context = context
        self.ids = ids
        self.batchSize = request.fetchBatchSize
        self.keyPaths = request.relationshipKeyPathsForPrefetching
        self.fetched = entity
        self.entities = entities
    }

    func object(at position: Int) -> ManagedObject {
        guard batchSize > 0 else { return fault(at: position) }
        let wanted = position / batchSize
        if batch != wanted {
            // The last batch goes first (unless the caller holds its objects): memory holds one.
            objects = []
            related = []
            let range = (wanted * batchSize)..<Swift.min((wanted + 1) * batchSize, ids.count)
            var loaded = (try? context.loadObjects(for: ids.ids(in: range))) ?? []
            // A row that vanished since the fetch (or could not be read) gives a fault.
            if loaded.count != range.count { loaded = Array(repeating: nil, count: range.count) }
            for (offset, object) in loaded.enumerated() where object == nil {
                loaded[offset] = fault(at: range.lowerBound + offset)
            }
            objects = loaded
            if !keyPaths.isEmpty {
                related = (try? context.prefetch(keyPaths, of: objects.compactMap { $0 })) ?? []
            }
            batch = wanted
        }
        return objects[position - wanted * batchSize] ?? fault(at: position)
    }

    private func fault(at position: Int) -> ManagedObject {
        let entity: Entity
        switch ids {
        case .stored(let list): entity = list.entity(at: position)
        case .merged(let merged): entity = entities[merged[position].entityName] ?? fetched
        }
        return context.objectOrFault(for: ids[position], entity: entity)
    }
}
