import Foundation
import Testing
import Trove
import TroveTesting

/// A list as a list view holds it: section names, and each section's objects by identity.
struct ListSnapshot: Equatable, CustomStringConvertible {
    var names: [String]
    var rows: [[ObjectIdentifier]]

    init<R: ManagedObject>(_ controller: FetchedResultsController<R>) {
        names = controller.sections.map(\.name)
        rows = controller.sections.map { $0.objects.map(ObjectIdentifier.init) }
    }

    /// The results of a fresh fetch of `request`, in sections by `sectionKey`.
    init(fetching request: FetchRequest, in context: ObjectContext, sectionKey: String?) throws {
        names = []
        rows = []
        for object in try context.fetch(request) {
            let name: String
            if let sectionKey {
                let value = try object.value(forKey: sectionKey)
                name = value == .null ? "" : value.text ?? value.description
            } else {
                name = ""
            }
            if names.last != name || rows.isEmpty {
                names.append(name)
                rows.append([])
            }
            rows[rows.count - 1].append(ObjectIdentifier(object))
        }
    }

    /// This list with `changes` applied as ``ResultsChanges`` documents it; new sections take
    /// their names from `newNames` (the controller's, as a list view asks it).
    func applying(_ changes: ResultsChanges, newNames: [String], objects: (ObjectID) -> ObjectIdentifier?) throws -> ListSnapshot {
        var result = self
        let removals = (changes.deletions.map(\.indexPath) + changes.moves.map(\.from)).sorted(by: >)
        #expect(Set(removals).count == removals.count, "no row is removed twice")
        for path in removals { result.rows[path.section].remove(at: path.item) }
        for section in changes.deletedSections {
            #expect(result.rows[section].isEmpty, "a deleted section is empty by then")
            result.rows.remove(at: section)
            result.names.remove(at: section)
        }
        for section in changes.insertedSections {
            result.rows.insert([], at: section)
            result.names.insert(newNames[section], at: section)
        }
        let insertions = (changes.insertions.map { ($0.indexPath, $0.objectID) } + changes.moves.map { ($0.to, $0.objectID) })
            .sorted { $0.0 < $1.0 }
        for (path, id) in insertions {
            result.rows[path.section].insert(try #require(objects(id), "\(id) is in the context"), at: path.item)
        }
        return result
    }

    var description: String { zip(names, rows).map { "\($0.0): \($0.1.count)" }.joined(separator: ", ") }
}

/// Collects what a controller reports; when it knows the list before, it applies each batch as
/// a list view would, at once, and checks that it gives the controller's new state.
final class Recorder: FetchedResultsDelegate {
    var batches: [ResultsChanges] = []
    var failures: [any Error] = []
    /// The list as a list view holds it, and how to read the controller's.
    var list: ListSnapshot?
    var current: () -> ListSnapshot? = { nil }
    var context: ObjectContext?
    var mismatches = 0
    var describe: () -> String = { "" }

    var changes: [ResultsChanges] { batches }

    func resultsDidChange(_ changes: ResultsChanges) {
        batches.append(changes)
        guard let list, let now = current() else { return }
        do {
            let applied = try list.applying(changes, newNames: now.names) { id in
                self.context?.registeredObject(for: id).map(ObjectIdentifier.init)
            }
            if applied != now { mismatches += 1 }
            #expect(applied == now, "batch \(batches.count): \(changes) after \(describe())")
        } catch {
            Issue.record(error)
        }
        self.list = now
    }

    func resultsDidFail(_ error: any Error) { failures.append(error) }
}

@Suite struct FetchedResultsControllerTests {
    static func model() throws -> Model {
        try Model {
            Entity("Owner") {
                Attribute("name", .string)
                Relationship("items", to: "Item", toMany: true, inverse: "owner")
            }
            Entity("Item") {
                Attribute("name", .string)
                Attribute("group", .string)
                Attribute("rank", .integer64)
                Relationship("owner", to: "Owner", inverse: "items")
            }
        }
    }

    let dir: TemporaryDirectory
    let container: Container
    let context: ObjectContext

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(model: Self.model(), url: dir.file("frc.trove"))
        context = container.newBackgroundContext()
    }

    static let request = FetchRequest(entityName: "Item", predicate: try? ObjectPredicate(format: "rank > %d", 2),
                                      sortDescriptors: [SortKey("group"), SortKey("rank", ascending: false), SortKey("name")])

    @discardableResult
    func item(_ name: String, _ group: String?, _ rank: Int?) throws -> ManagedObject {
        let item = try context.insert("Item")
        try item.setValue(name, forKey: "name")
        try item.setValue(group, forKey: "group")
        try item.setValue(rank.map { Int64($0) }, forKey: "rank")
        return item
    }

    func names(_ controller: FetchedResultsController<ManagedObject>) throws -> [[String]] {
        try controller.sections.map { section in try section.objects.map { try $0.value(forKey: "name", as: String.self) ?? "?" } }
    }

    @Test func sectionsObjectsAndPositions() throws {
        try item("a1", "a", 5)
        try item("a2", "a", 9)
        try item("b1", "b", 4)
        try item("low", "b", 1)
        try item("none", nil, 7)
        try context.save()
        let controller = try FetchedResultsController(context: context, request: Self.request, sectionKeyPath: "group")
        #expect(controller.sections.isEmpty, "nothing before the fetch")
        try controller.performFetch()
        #expect(controller.sections.map(\.name) == ["", "a", "b"], "nil sorts first and names the section \"\"")
        #expect(try names(controller) == [["none"], ["a2", "a1"], ["b1"]])
        #expect(controller.sections.map(\.count) == [1, 2, 1])
        let a1 = try #require(controller.fetchedObjects.first { try $0.value(forKey: "name", as: String.self) == "a1" })
        #expect(controller.indexPath(for: a1) == ResultIndexPath(item: 1, section: 1))
        #expect(controller.object(at: ResultIndexPath(item: 1, section: 1)) === a1)
        #expect(ResultIndexPath(item: 1, section: 1).indexPath == IndexPath(indexes: [1, 1]))
        let low = try #require(try context.fetch("Item", where: "name == %@", "low").first)
        #expect(controller.indexPath(for: low) == nil, "not one of the results")
    }

    @Test func aSectionKeyThatIsNotTheFirstSortKeyIsRefused() throws {
        let error = try #require(throws: ObjectPredicateError.self) {
            try FetchedResultsController(context: context, request: Self.request, sectionKeyPath: "rank")
        }
        #expect(error.message.contains("must be the key path of the first sort descriptor"))
        #expect(throws: ObjectPredicateError.self) {
            try FetchedResultsController(context: context, request: FetchRequest(entityName: "Item", sortDescriptors: [SortKey("nope")]))
        }
        #expect(throws: ObjectError.self, "objects of Item are not Owners") {
            try FetchedResultsController(context: context, request: Self.request, as: TypedOwner.self)
        }
    }

    @Test func insertsMovesUpdatesAndDeletesAreReportedAtTheirPositions() throws {
        let a1 = try item("a1", "a", 5)
        let b1 = try item("b1", "b", 4)
        let b2 = try item("b2", "b", 3)
        try context.save()
        let controller = try FetchedResultsController(context: context, request: Self.request, sectionKeyPath: "group")
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()

        // b2 moves to a new section "c", a1 changes in place, a new a0 comes first, b1 leaves by its rank.
        try b2.setValue("c", forKey: "group")
        try a1.setValue("a1!", forKey: "name")
        try item("a0", "a", 8)
        try b1.setValue(1, forKey: "rank")
        context.processPendingChanges()

        let changes = try #require(recorder.changes.last)
        #expect(try names(controller) == [["a0", "a1!"], ["b2"]])
        #expect(controller.sections.map(\.name) == ["a", "c"])
        #expect(changes.insertions.map(\.indexPath) == [ResultIndexPath(item: 0, section: 0)])
        #expect(changes.deletions.map(\.indexPath) == [ResultIndexPath(item: 0, section: 1)])
        // A change of a sort key is a move, wherever it lands (a1's name is its third sort key).
        #expect(changes.moves.map { [$0.from, $0.to] } == [
            [ResultIndexPath(item: 0, section: 0), ResultIndexPath(item: 1, section: 0)],
            [ResultIndexPath(item: 1, section: 1), ResultIndexPath(item: 0, section: 1)],
        ])
        #expect(changes.updates.isEmpty)
        #expect(changes.deletedSections == [1] && changes.insertedSections == [1], "section b went, c came")
        #expect(recorder.failures.isEmpty)

        // A delete, then its save: reported once, at the processing.
        try context.delete(a1)
        try context.save()
        #expect(recorder.batches.count == 2)
        #expect(recorder.changes.last?.deletions.map(\.indexPath) == [ResultIndexPath(item: 1, section: 0)])
        #expect(try names(controller) == [["a0"], ["b2"]])
    }

    @Test func anotherContextsSavesArriveThroughMerges() async throws {
        try item("a1", "a", 5)
        try context.save()
        let controller = try FetchedResultsController(context: context, request: Self.request, sectionKeyPath: "group")
        try controller.performFetch()
        let other = container.newBackgroundContext()
        let theirs = try other.insert("Item")
        try theirs.setValue("x", forKey: "name")
        try theirs.setValue("a", forKey: "group")
        try theirs.setValue(9, forKey: "rank")
        let saved = try other.saveReturningChanges()
        let stream = controller.changes()
        try context.mergeChanges(from: saved)
        var iterator = stream.makeAsyncIterator()
        let changes = try #require(await iterator.next())
        #expect(changes.insertions.map(\.indexPath) == [ResultIndexPath(item: 0, section: 0)])
        #expect(try names(controller) == [["x", "a1"]])
    }

    @Test func undoRollbackAndResetAreFollowed() throws {
        try item("a1", "a", 5)
        try context.save()
        context.undoManager = ContextUndoManager()
        let controller = try FetchedResultsController(context: context, request: Self.request, sectionKeyPath: "group")
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        try item("a2", "a", 6)
        context.processPendingChanges()
        #expect(try names(controller) == [["a2", "a1"]])
        context.undoManager?.undo()
        context.processPendingChanges()
        #expect(try names(controller) == [["a1"]], "the insert undone leaves the results")

        try item("a3", "b", 6)
        context.processPendingChanges()
        #expect(try names(controller) == [["a1"], ["a3"]])
        context.rollback()
        #expect(recorder.failures.isEmpty, "\(recorder.failures)")
        #expect(try names(controller) == [["a1"]])

        context.reset()
        #expect(try names(controller) == [["a1"]], "new instances after a reset")
        #expect(controller.fetchedObjects.allSatisfy { $0.context === context })
    }

    /// Random inserts, updates, deletes, saves, rollbacks, undos and merged saves of another
    /// context; after each batch, the reported changes applied to the list before it give the
    /// list a fresh fetch gives.
    @Test(arguments: [
        (sort: "plain", piecewise: 2_000, operations: 10_000),
        (sort: "refetching every batch", piecewise: 0, operations: 2_000),
        (sort: "through a relationship", piecewise: 2_000, operations: 2_000),
    ])
    func randomChangesApplyToGiveAFreshFetch(sort: String, piecewise: Int, operations: Int) throws {
        var random = SeededGenerator(seed: UInt64(operations + piecewise + sort.count))
        var owners: [ManagedObject] = []
        for name in ["Kim", "Lee", "Max"] {
            let owner = try context.insert("Owner")
            try owner.setValue(name, forKey: "name")
            owners.append(owner)
        }
        try context.save()
        context.undoManager = ContextUndoManager()
        var request = Self.request
        if sort == "through a relationship" {
            request.sortDescriptors = [SortKey("group"), SortKey("owner.name"), SortKey("name")]
        }
        let controller = try FetchedResultsController(context: context, request: request, sectionKeyPath: "group")
        controller.piecewiseLimit = piecewise
        let recorder = Recorder()
        recorder.context = context
        recorder.current = { [weak controller] in controller.map(ListSnapshot.init) }
        controller.delegate = recorder
        try controller.performFetch()
        recorder.list = ListSnapshot(controller)
        let groups: [String?] = ["a", "b", "c", "d", nil]
        var batches = 0, reported = 0

        func check(_ step: Int) throws {
            // From scratch: a new controller's fetch, and (when nothing is read through a
            // relationship, where a fetch sees related changes only once saved) a plain fetch.
            let reference = try FetchedResultsController(context: context, request: request, sectionKeyPath: "group")
            try reference.performFetch()
            let fresh = ListSnapshot(reference)
            if sort != "through a relationship" {
                #expect(try ListSnapshot(fetching: request, in: context, sectionKey: "group") == fresh, "step \(step)")
            }
            #expect(ListSnapshot(controller) == fresh, "step \(step): the controller's state is a fresh fetch's; last operations \(log.suffix(8))")
            reported += recorder.batches.count
            recorder.batches = []
            #expect(recorder.failures.isEmpty, "step \(step): \(recorder.failures)")
            batches += 1
        }

        var log: [String] = []
        recorder.describe = { log.suffix(6).joined(separator: " ") }
        for step in 0..<operations {
            // The controller keeps an object deleted, or dropped by an undo, until the change is processed.
            let items = (controller.fetchedObjects + (try context.fetch("Item", where: "rank <= 2 OR rank == nil")))
                .filter { $0.context === context && !$0.isDeleted }
            let roll = random.next(100)
            log.append("\(step):\(roll)")
            switch roll {
            case 0..<30:
                let new = try item("n\(step)", groups[random.next(groups.count)], random.next(8))
                try new.setRelatedObject(owners[random.next(owners.count)], forKey: "owner")
            case 30..<60 where !items.isEmpty:
                let target = items[random.next(items.count)]
                switch random.next(4) {
                case 0: try target.setValue(groups[random.next(groups.count)], forKey: "group")
                case 1: try target.setValue(Int64(random.next(8)), forKey: "rank")
                case 2: try target.setValue("u\(step)", forKey: "name")
                default: try target.setRelatedObject(owners[random.next(owners.count)], forKey: "owner")
                }
            case 60..<70 where !items.isEmpty:
                try context.delete(items[random.next(items.count)])
            case 70..<74:
                try owners[random.next(owners.count)].setValue("o\(step)", forKey: "name")
            case 74..<80:
                try context.save()
            case 80..<82:
                context.rollback()
            case 82..<85:
                context.undoManager?.undo()
            case 85..<90:
                // Another context saves; this one merges.
                if context.hasChanges { try context.save() }
                let other = container.newBackgroundContext()
                let theirs = try other.fetch("Item", where: "TRUEPREDICATE")
                if let target = theirs.isEmpty ? nil : theirs[random.next(theirs.count)], random.next(2) == 0 {
                    try target.setValue(Int64(random.next(8)), forKey: "rank")
                } else {
                    let new = try other.insert("Item")
                    try new.setValue("m\(step)", forKey: "name")
                    try new.setValue(groups[random.next(groups.count)], forKey: "group")
                    try new.setValue(Int64(random.next(8)), forKey: "rank")
                }
                try context.mergeChanges(from: try other.saveReturningChanges())
            default:
                break
            }
            if random.next(3) == 0 {
                context.processPendingChanges()
                try check(step)
            }
        }
        context.processPendingChanges()
        try check(operations)
        #expect(recorder.mismatches == 0)
        #expect(batches > operations / 4 && reported > batches / 3, "\(batches) batches, \(reported) reported")
    }
}

/// A class no entity's objects are instances of, to test the type check.
final class TypedOwner: ManagedObject {}

extension SeededGenerator {
    /// A number below `bound`.
    mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

extension ObjectContext {
    /// Saves and returns what the save reported (as a merge needs it).
    func saveReturningChanges() throws -> ObjectChanges {
        final class Box: @unchecked Sendable { var changes = ObjectChanges() }
        let box = Box()
        let me = identifier
        let observer = NotificationCenter.default.addObserver(forName: ObjectContext.didSaveNotification, object: nil, queue: nil) { note in
            if let id = note.userInfo?[ObjectContext.contextKey] as? ContextID, id == me,
               let saved = note.userInfo?[ObjectContext.changesKey] as? ObjectChanges {
                box.changes = saved
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try save()
        return box.changes
    }
}
