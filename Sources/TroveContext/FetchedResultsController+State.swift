import Foundation
import TroveModel
import TrovePredicate
import TroveStore

/// What a context tells the controllers following it.
enum ContextChange {
    /// Objects changed as these changes say (processed, merged, refreshed, undone).
    case objects(ObjectChanges)
    /// Anything may have changed (rollback, reset, refresh of everything): fetch again, and
    /// report the objects of `updated` (every one when `nil`) that kept their place as updated.
    case everything(updated: Set<ObjectID>?)
    /// A save gave inserted objects their permanent IDs.
    case saved
}

/// A controller as its context holds it: not retained.
struct FollowingController {
    weak var controller: AnyObject?
    let notify: (ContextChange) -> Void
}

extension ObjectContext {
    /// Tells `controller` of this context's changes from now on, while it exists.
    func follow<Result: ManagedObject>(_ controller: FetchedResultsController<Result>) {
        followers.removeAll { $0.controller == nil }
        followers.append(FollowingController(controller: controller) { [weak controller] change in
            controller?.contextDidChange(change)
        })
        status.isFollowed = true
    }

    /// Tells the controllers following this context of `change`.
    func tellFollowers(_ change: ContextChange) {
        guard !followers.isEmpty else { return }
        followers.removeAll { $0.controller == nil }
        for follower in followers { follower.notify(change) }
    }
}

extension FetchedResultsController {
    /// The results of a fetch, placed.
    struct State {
        var objects: [Result] = []
        var placements: [Placement] = []
    }

    // MARK: Placing

    func placement(of object: Result) -> Placement {
        let keys = query.sortDescriptors.map { $0.value(of: object) }
        let section = sectionKeyPath == nil ? "" : keys.first.map(Self.sectionName) ?? ""
        let id = object.objectID
        if let primaryKey = id.primaryKey {
            return Placement(object: object, id: id, keys: keys, unsaved: false, number: primaryKey, section: section)
        }
        return Placement(object: object, id: id, keys: keys, unsaved: true, number: Int64(clamping: id.temporaryNumber ?? 0), section: section)
    }

    /// The text that names the section of objects whose section key holds `value`.
    static func sectionName(_ value: AttributeValue) -> String {
        if case .null = value { return "" }
        return value.text ?? value.description
    }

    /// The order of two placements: by the sort keys, then the tie-break.
    func order(_ a: Placement, _ b: Placement) -> ComparisonResult {
        for (index, key) in query.sortDescriptors.enumerated() {
            let order = key.compare(values: a.keys[index], b.keys[index])
            if order != .orderedSame { return order }
        }
        if a.unsaved != b.unsaved { return a.unsaved ? .orderedDescending : .orderedAscending }
        if a.number == b.number { return .orderedSame }
        return a.number < b.number ? .orderedAscending : .orderedDescending
    }

    /// Where `placement` is in the results, or goes: the first position not before it.
    func position(of placement: Placement) -> Int {
        var low = 0, high = fetchedObjects.count
        while low < high {
            let middle = (low + high) / 2
            let here = placements[ObjectIdentifier(fetchedObjects[middle])]
            if let here, order(here, placement) == .orderedAscending {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    func register(_ placement: Placement) {
        let identity = ObjectIdentifier(placement.object)
        placements[identity] = placement
        members[placement.id] = identity
        if placement.unsaved { unsaved.insert(identity) }
    }

    func unregister(_ identity: ObjectIdentifier) {
        if let placement = placements.removeValue(forKey: identity), members[placement.id] == identity {
            members[placement.id] = nil
        }
        unsaved.remove(identity)
    }

    // MARK: Sections

    /// The section and item of the result at `flat`.
    func path(ofFlat flat: Int) -> ResultIndexPath {
        let section = section(ofFlat: flat)
        return ResultIndexPath(item: flat - sectionStarts[section], section: section)
    }

    /// The section holding the result at `flat` (the last section starting at or before it).
    private func section(ofFlat flat: Int) -> Int {
        var low = 0, high = sectionStarts.count
        while low < high {
            let middle = (low + high) / 2
            if sectionStarts[middle] <= flat { low = middle + 1 } else { high = middle }
        }
        return max(low - 1, 0)
    }

    /// Counts out the result that was at `flat` (already removed from the results).
    func leaveSection(at flat: Int) {
        let section = section(ofFlat: flat)
        sectionCounts[section] -= 1
        if sectionCounts[section] == 0 {
            sectionCounts.remove(at: section)
            sectionNames.remove(at: section)
        }
        recountStarts()
    }

    /// Counts in a result of section `name` just inserted at `flat`: its neighbours tell its
    /// section, or that it starts a new one there.
    func enterSection(_ name: String, at flat: Int) {
        let total = fetchedObjects.count - 1
        if flat > 0, case let before = section(ofFlat: flat - 1), sectionNames[before] == name {
            sectionCounts[before] += 1
        } else if flat < total, case let after = section(ofFlat: flat), sectionNames[after] == name {
            sectionCounts[after] += 1
        } else {
            let at = flat == 0 ? 0 : section(ofFlat: flat - 1) + 1
            sectionNames.insert(name, at: at)
            sectionCounts.insert(1, at: at)
        }
        recountStarts()
    }

    private func recountStarts() {
        sectionStarts.removeAll(keepingCapacity: true)
        var start = 0
        for count in sectionCounts {
            sectionStarts.append(start)
            start += count
        }
    }

    /// The positions in `names` of the names `other` lacks.
    static func missing(_ names: [String], from other: [String]) -> [Int] {
        let others = Set(other)
        return names.indices.filter { !others.contains(names[$0]) }
    }

    // MARK: Matching

    /// Whether `id` is of the fetched entity (or one below it, when the request includes them).
    func concerns(_ id: ObjectID) -> Bool {
        if query.includesSubentities {
            guard let entity = context.model.entity(named: id.entityName) else { return false }
            return entity.isKind(of: query.entity)
        }
        return id.entityName == query.entity.name
    }

    /// Whether `object` is one of the results now.
    func matches(_ object: ManagedObject) throws -> Bool {
        guard object is Result, !object.isDeleted, !object.isRemoved, concerns(object.objectID) else { return false }
        return try query.predicate?.evaluate(with: object) ?? true
    }

    /// Whether a predicate's tree reads objects other than the one it tests.
    static func reads(throughRelationships node: ObjectPredicate.Node) -> Bool {
        switch node {
        case .constant: false
        case .not(let operand): reads(throughRelationships: operand)
        case .and(let parts), .or(let parts): parts.contains { reads(throughRelationships: $0) }
        case .comparison(let comparison):
            reads(throughRelationships: comparison.left) || reads(throughRelationships: comparison.right)
        }
    }

    private static func reads(throughRelationships expression: ObjectPredicate.Expression) -> Bool {
        switch expression {
        case .keyPath(let path): path.keys.count > 1
        case .aggregate, .subquery: true
        case .value, .list, .object, .variable: false
        }
    }

    // MARK: Fetching again

    /// The request's results now, placed.
    ///
    /// When the predicate or a sort key reads other objects, every object of the entity is
    /// tested and sorted in memory, with the values the context has now (a fetch tests the
    /// objects this context did not change with what the store holds, and their related
    /// objects may have unsaved changes).
    func freshState() throws -> State {
        guard readsRelatedObjects else {
            let objects = Array(try context.fetch(request, as: Result.self))
            return State(objects: objects, placements: objects.map(placement(of:)))
        }
        var all = FetchRequest(entityName: request.entityName)
        all.includesSubentities = request.includesSubentities
        var placed: [Placement] = []
        for object in try context.fetch(all, as: Result.self) where try matches(object) {
            placed.append(placement(of: object))
        }
        placed.sort { order($0, $1) == .orderedAscending }
        let start = min(query.offset, placed.count)
        let end = query.limit.map { min(start + $0, placed.count) } ?? placed.count
        placed = Array(placed[start..<end])
        return State(objects: placed.map(\.object), placements: placed)
    }

    /// Makes `state` the results.
    func install(_ state: State) {
        fetchedObjects = state.objects
        placements = [:]
        members = [:]
        unsaved = []
        for placement in state.placements { register(placement) }
        sectionNames = []
        sectionCounts = []
        for placement in state.placements {
            if sectionNames.last == placement.section, !sectionCounts.isEmpty {
                sectionCounts[sectionCounts.count - 1] += 1
            } else {
                sectionNames.append(placement.section)
                sectionCounts.append(1)
            }
        }
        recountStarts()
    }

    /// Fetches again and reports the difference: results that stay in order (the longest run
    /// of them that keeps its order) and in their section are kept, the others move.
    func refetch(updated: Set<ObjectID>?) throws -> ResultsChanges {
        let state = try freshState()
        var changes = ResultsChanges()
        let oldObjects = fetchedObjects
        var oldPaths: [ObjectIdentifier: (id: ObjectID, path: ResultIndexPath, section: String)] = [:]
        for (flat, object) in oldObjects.enumerated() {
            let identity = ObjectIdentifier(object)
            oldPaths[identity] = (placements[identity]?.id ?? object.objectID, path(ofFlat: flat), placements[identity]?.section ?? "")
        }
        let oldNames = sectionNames
        let wasUpdated: (ManagedObject, ObjectID) -> Bool = { object, oldID in
            guard let updated else { return true }
            return updated.contains(oldID) || updated.contains(object.objectID)
        }
        install(state)
        // The common results in their old order, by new position: the longest increasing run stays.
        var newFlat: [ObjectIdentifier: Int] = [:]
        for (flat, object) in fetchedObjects.enumerated() { newFlat[ObjectIdentifier(object)] = flat }
        let common = oldObjects.compactMap { newFlat[ObjectIdentifier($0)] }
        let staying = Set(Self.longestIncreasingRun(common))
        for (flat, object) in fetchedObjects.enumerated() {
            let identity = ObjectIdentifier(object)
            let to = path(ofFlat: flat)
            guard let old = oldPaths.removeValue(forKey: identity) else {
                changes.insertions.append(.init(objectID: object.objectID, indexPath: to))
                continue
            }
            if staying.contains(flat), old.section == placements[identity]?.section {
                if wasUpdated(object, old.id) { changes.updates.append(.init(objectID: object.objectID, from: old.path, to: to)) }
            } else {
                changes.moves.append(.init(objectID: object.objectID, from: old.path, to: to))
            }
        }
        for old in oldPaths.values {
            changes.deletions.append(.init(objectID: old.id, indexPath: old.path))
        }
        changes.deletedSections = Self.missing(oldNames, from: sectionNames)
        changes.insertedSections = Self.missing(sectionNames, from: oldNames)
        changes.sortForApplying()
        return changes
    }

    /// The values of a longest strictly increasing subsequence of `values` (patience sorting).
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        var tails: [Int] = []  // positions in `values` of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [Int] = []
        var index = tails.last ?? -1
        while index >= 0 {
            run.append(values[index])
            index = previous[index]
        }
        return run.reversed()
    }
}

extension ResultsChanges {
    /// Deletions from the last position back, insertions from the first on; moves and updates
    /// by their destination.
    mutating func sortForApplying() {
        deletions.sort { $0.indexPath > $1.indexPath }
        insertions.sort { $0.indexPath < $1.indexPath }
        moves.sort { $0.to < $1.to }
        updates.sort { $0.to < $1.to }
        deletedSections.sort(by: >)
        insertedSections.sort()
    }
}
