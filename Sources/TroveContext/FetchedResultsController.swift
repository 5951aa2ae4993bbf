import TroveModel
public import TrovePredicate
import TroveStore

/// A fetch whose results, grouped in sections, stay current as its context changes, and that
/// reports each batch of changes as section and row inserts, deletes, moves and updates: what
/// keeps a list on screen in step with the store (Core Data's `NSFetchedResultsController`).
///
/// Make it on a context, call ``performFetch()``, read ``sections``, ``object(at:)`` and
/// ``indexPath(for:)``, and follow ``changes()`` or a ``delegate``. Use it in its context's
/// isolation (the main actor for the view context). It follows:
/// - the context's own changes, each time they are processed (``ObjectContext/processPendingChanges()``,
///   which a save calls and the view context calls by itself once per main-actor turn);
/// - other contexts' saves merged into it (``ObjectContext/mergeChanges(from:)``, and the view
///   context's automatic merges);
/// - undo and redo, ``ObjectContext/refresh(_:mergeChanges:)``, ``ObjectContext/refreshAllObjects()``,
///   ``ObjectContext/rollback()`` and ``ObjectContext/reset()`` (after a reset the objects are
///   new instances: every row is deleted and inserted again).
///
/// A batch of changes costs about the changes, not the results: each changed object is tested
/// against the predicate in memory and placed by a binary search. A batch of more than
/// ``piecewiseLimit`` changes, a request with a fetch limit or offset, and — when the predicate or a
/// sort key reads through a relationship (a key path with a dot, an aggregate, a `SUBQUERY`) — a
/// batch that changes objects of another entity, are applied by fetching again and comparing.
///
/// The controller tests and orders objects by the values the context has now, unsaved changes of
/// related objects included (renaming a photographer moves the photos sorted by
/// `whoTook.name` at once). A plain fetch differs there: it sees related objects' changes once
/// they are saved.
///
/// With a ``sectionKeyPath``, the first sort descriptor must sort by that key path, so that each
/// section's objects are together; a section's name is the text of their shared value (`""` for nil).
public final class FetchedResultsController<Result: ManagedObject> {
    /// The context whose objects the controller holds.
    public let context: ObjectContext
    /// What it fetches. Its fetch batch size is not used: the controller holds every result.
    public let request: FetchRequest
    /// The key path whose value groups the results in sections; `nil` for one section.
    public let sectionKeyPath: String?
    /// Told of each batch of changes, after ``changes()``'s streams. Not retained.
    public weak var delegate: (any FetchedResultsDelegate)?
    /// The largest batch of changes applied change by change; a larger one fetches again and
    /// compares (see `Benchmarks/` for where the two cost the same).
    public var piecewiseLimit = 2_000

    /// The results, in order, every section's one after the other.
    public internal(set) var fetchedObjects: [Result] = []

    /// Where each result is, by identity: the values it was sorted by.
    var placements: [ObjectIdentifier: Placement] = [:]
    /// Each result's identity by ID (temporary IDs change on save: see ``contextDidSave()``).
    var members: [ObjectID: ObjectIdentifier] = [:]
    /// Results with a temporary ID.
    var unsaved: Set<ObjectIdentifier> = []
    var sectionNames: [String] = []
    var sectionCounts: [Int] = []
    var sectionStarts: [Int] = []
    let query: StoreQuery
    /// Whether the predicate or a sort key reads other entities' objects.
    let readsRelatedObjects: Bool
    private var isFetched = false
    private let broadcast = Broadcast<ResultsChanges>(bufferSize: ContextEvents.bufferSize)

    /// Where a result stands: its sort keys' values, its tie-break, its section.
    struct Placement {
        let object: Result
        /// The object's ID when placed (a temporary one changes on save).
        let id: ObjectID
        let keys: [AttributeValue]
        /// Ties keep the store's order: saved objects by primary key, then unsaved ones in the
        /// order they were inserted (their temporary numbers).
        let unsaved: Bool
        let number: Int64
        let section: String
    }

    /// A controller for `request`'s results, as instances of `Result`, grouped by `sectionKeyPath`.
    /// - Throws: ``ObjectPredicateError`` for a predicate or sort key that does not fit the
    ///   entity, or a section key path that is not the first sort descriptor's; ``ObjectError``
    ///   `.typeMismatch` when the entity's objects are not `Result`s.
    public init(context: ObjectContext, request: FetchRequest, sectionKeyPath: String? = nil, as type: Result.Type = Result.self) throws {
        let query = try context.queries.query(for: request, model: context.model)
        try context.checkClass(Result.self, of: query.entity)
        if let sectionKeyPath, request.sortDescriptors.first?.keyPath != sectionKeyPath {
            throw ObjectPredicateError(.keyPath,
                "the section key path '\(sectionKeyPath)' must be the key path of the first sort descriptor, so that each section's objects are together; sort by '\(sectionKeyPath)' first")
        }
        self.context = context
        self.request = request
        self.sectionKeyPath = sectionKeyPath
        self.query = query
        self.readsRelatedObjects = request.sortDescriptors.contains { $0.keyPath.contains(".") }
            || (request.predicate.map { Self.reads(throughRelationships: $0.root) } ?? false)
        context.follow(self)
    }

    /// Fetches the results (again), without reporting changes.
    /// - Throws: the fetch's error; the results are then as they were.
    public func performFetch() throws {
        let state = try freshState()
        install(state)
        isFetched = true
    }

    /// The results in sections (one unnamed section without a ``sectionKeyPath``; none before a fetch).
    public var sections: [ResultsSection<Result>] {
        sectionNames.indices.map { index in
            let start = sectionStarts[index]
            return ResultsSection(name: sectionNames[index], objects: fetchedObjects[start..<start + sectionCounts[index]])
        }
    }

    /// The object at `indexPath`. - Precondition: the position exists.
    public func object(at indexPath: ResultIndexPath) -> Result {
        fetchedObjects[sectionStarts[indexPath.section] + indexPath.item]
    }

    /// Where `object` is in the results; `nil` when it is not one of them.
    public func indexPath(for object: Result) -> ResultIndexPath? {
        guard let placement = placements[ObjectIdentifier(object)] else { return nil }
        return path(ofFlat: position(of: placement))
    }

    /// A stream of the batches of changes from now on, each reported after the controller's
    /// state changed; it ends when its task is cancelled or the controller is gone. A reader
    /// that falls behind loses the oldest batches and is told (``ResultsChanges/missedChanges``).
    public func changes() -> AsyncStream<ResultsChanges> {
        broadcast.stream()
    }

    // MARK: Following the context

    /// Applies a context's change (called by the context, in its isolation).
    func contextDidChange(_ change: ContextChange) {
        guard isFetched else { return }
        do {
            let changes: ResultsChanges
            switch change {
            case .saved:
                contextDidSave()
                return
            case .objects(let objectChanges):
                guard !objectChanges.isEmpty else { return }
                changes = try apply(objectChanges)
            case .everything(let updated):
                changes = try refetch(updated: updated)
            }
            guard !changes.isEmpty else { return }
            broadcast.send(changes)
            delegate?.resultsDidChange(changes)
        } catch {
            delegate?.resultsDidFail(error)
        }
    }

    /// Inserted results have their permanent IDs now: the same place, another ID.
    private func contextDidSave() {
        for identity in unsaved {
            guard let old = placements[identity], let primaryKey = old.object.objectID.primaryKey else { continue }
            if members[old.id] == identity { members[old.id] = nil }
            members[old.object.objectID] = identity
            placements[identity] = Placement(object: old.object, id: old.object.objectID, keys: old.keys, unsaved: false,
                                             number: primaryKey, section: old.section)
            unsaved.remove(identity)
        }
    }

    private func apply(_ objectChanges: ObjectChanges) throws -> ResultsChanges {
        let count = objectChanges.inserted.count + objectChanges.updated.count + objectChanges.deleted.count
        let other = readsRelatedObjects && (objectChanges.inserted.union(objectChanges.updated).union(objectChanges.deleted))
            .contains { !concerns($0) }
        if count > piecewiseLimit || query.limit != nil || query.offset > 0 || other {
            return try refetch(updated: objectChanges.updated)
        }
        // Decide everything before changing anything: an error leaves the results as they were.
        var leaving: [ObjectIdentifier] = []
        var arriving: [Placement] = []
        var touched: [ObjectIdentifier] = []
        for id in objectChanges.deleted {
            if let identity = members[id] { leaving.append(identity) }
        }
        let candidates = objectChanges.inserted.union(objectChanges.updated).subtracting(objectChanges.deleted).filter(concerns)
        let absent = candidates.filter { members[$0] == nil && context.registry(for: $0) == nil }
        let loaded = try context.loadObjects(for: Array(absent))
        var found: [ObjectID: ManagedObject] = [:]
        for object in loaded.compactMap({ $0 }) { found[object.objectID] = object }
        for id in candidates {
            let identity = members[id]
            guard let object = identity.flatMap({ placements[$0]?.object }) ?? context.registry(for: id) ?? found[id] else {
                if let identity { leaving.append(identity) }
                continue
            }
            let matches = try self.matches(object)
            guard let identity else {
                if matches, let result = object as? Result { arriving.append(placement(of: result)) }
                continue
            }
            guard matches, let result = object as? Result else {
                leaving.append(identity)
                continue
            }
            let new = placement(of: result)
            if let old = placements[identity], old.section == new.section, order(old, new) == .orderedSame {
                touched.append(identity)
            } else {
                leaving.append(identity)
                arriving.append(new)
            }
        }
        return change(leaving: leaving, arriving: arriving, touched: touched)
    }

    /// Changes the state: `leaving` out, `arriving` in (a result in both moves), `touched` kept
    /// in place and reported as updated.
    func change(leaving: [ObjectIdentifier], arriving: [Placement], touched: [ObjectIdentifier]) -> ResultsChanges {
        var changes = ResultsChanges()
        let oldNames = sectionNames
        // Old positions first, all of them, then the removals from the end.
        var from: [ObjectIdentifier: (id: ObjectID, path: ResultIndexPath)] = [:]
        var removals: [(flat: Int, identity: ObjectIdentifier)] = []
        for identity in Set(leaving) {
            guard let placement = placements[identity] else { continue }
            let flat = position(of: placement)
            from[identity] = (placement.id, path(ofFlat: flat))
            removals.append((flat, identity))
        }
        var kept: [(identity: ObjectIdentifier, from: ResultIndexPath)] = []
        for identity in touched {
            guard let placement = placements[identity] else { continue }
            kept.append((identity, path(ofFlat: position(of: placement))))
        }
        for (flat, identity) in removals.sorted(by: { $0.flat > $1.flat }) {
            fetchedObjects.remove(at: flat)
            leaveSection(at: flat)
            unregister(identity)
        }
        for placement in arriving {
            let flat = position(of: placement)
            fetchedObjects.insert(placement.object, at: flat)
            enterSection(placement.section, at: flat)
            register(placement)
        }
        // New positions once everything is in place.
        for placement in arriving {
            let to = path(ofFlat: position(of: placement))
            if let old = from.removeValue(forKey: ObjectIdentifier(placement.object)) {
                changes.moves.append(.init(objectID: placement.object.objectID, from: old.path, to: to))
            } else {
                changes.insertions.append(.init(objectID: placement.object.objectID, indexPath: to))
            }
        }
        for (identity, old) in kept {
            guard let placement = placements[identity] else { continue }
            changes.updates.append(.init(objectID: placement.object.objectID, from: old, to: path(ofFlat: position(of: placement))))
        }
        for (id, path) in from.values {
            changes.deletions.append(.init(objectID: id, indexPath: path))
        }
        changes.deletedSections = Self.missing(oldNames, from: sectionNames)
        changes.insertedSections = Self.missing(sectionNames, from: oldNames)
        changes.sortForApplying()
        return changes
    }
}
