public import Foundation
public import TroveModel

/// A position in a ``FetchedResultsController``'s results: a section, and an item in it.
///
/// Foundation's `IndexPath` has `section` and `item` only where UIKit adds them; ``indexPath``
/// gives one (`[section, item]`) for APIs that take it.
public struct ResultIndexPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The section's position.
    public var section: Int
    /// The object's position in its section.
    public var item: Int

    /// The position of item `item` of section `section`.
    public init(item: Int, section: Int) {
        self.item = item
        self.section = section
    }

    /// The same position as a Foundation `IndexPath` of two indexes.
    public var indexPath: IndexPath { IndexPath(indexes: [section, item]) }

    public static func < (a: ResultIndexPath, b: ResultIndexPath) -> Bool {
        (a.section, a.item) < (b.section, b.item)
    }

    public var description: String { "[\(section), \(item)]" }
}

/// One section of a ``FetchedResultsController``'s results.
public struct ResultsSection<Result: ManagedObject> {
    /// The section's name: the text of the section key's value its objects share (`""` for nil).
    public let name: String
    /// Its objects, in order.
    public let objects: ArraySlice<Result>
    /// How many objects it has.
    public var count: Int { objects.count }
}

/// What changed in a ``FetchedResultsController``'s results in one batch, in the order a list
/// view applies it: delete the rows of ``deletions`` and the sources of ``moves`` (at their
/// old positions), then the sections of ``deletedSections`` (old positions; they are empty by
/// then), insert the sections of ``insertedSections`` (new positions, ascending), then the rows
/// of ``insertions`` and the destinations of ``moves`` (new positions, ascending); finally
/// reload the rows of ``updates``. Applied so to the results before the batch, they give the
/// results after it.
public struct ResultsChanges: Sendable, Hashable {
    /// An object at a position.
    public struct Row: Sendable, Hashable {
        public let objectID: ObjectID
        public let indexPath: ResultIndexPath
    }

    /// An object that was at `from` and is at `to`.
    public struct Move: Sendable, Hashable {
        public let objectID: ObjectID
        public let from: ResultIndexPath
        public let to: ResultIndexPath
    }

    /// Objects that left the results, at their old positions.
    public internal(set) var deletions: [Row] = []
    /// Objects that entered the results, at their new positions.
    public internal(set) var insertions: [Row] = []
    /// Objects whose position changed (their sort or section key changed).
    public internal(set) var moves: [Move] = []
    /// Objects that changed and kept their place: `from` before the batch, `to` after it (they
    /// differ when rows before them came or went).
    public internal(set) var updates: [Move] = []
    /// Sections that went away, at their old positions.
    public internal(set) var deletedSections: [Int] = []
    /// Sections that appeared, at their new positions.
    public internal(set) var insertedSections: [Int] = []
    /// How many batches before this one the stream dropped because its reader fell more than
    /// ``ContextEvents/bufferSize`` batches behind; when not 0, reload the list from the
    /// controller instead of applying this batch.
    public internal(set) var missedChanges = 0

    init() {}

    /// Whether the batch changed nothing in the results.
    public var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && moves.isEmpty && updates.isEmpty
            && deletedSections.isEmpty && insertedSections.isEmpty
    }
}

extension ResultsChanges: CountsMissedElements {
    var missedCount: Int {
        get { missedChanges }
        set { missedChanges = newValue }
    }
}

/// Told of each batch of changes of a ``FetchedResultsController``'s results, in the
/// controller's context's isolation, after the controller's own state changed.
public protocol FetchedResultsDelegate: AnyObject {
    /// The results changed as `changes` says.
    func resultsDidChange(_ changes: ResultsChanges)
    /// Following a change failed (a merge could not read the store, a predicate could not be
    /// evaluated): the results are as before the change; ``FetchedResultsController/performFetch()``
    /// starts over.
    func resultsDidFail(_ error: any Error)
}
