import Logging

/// A merge of another context's save that failed: the view context's automatic merge, or a
/// ``BackgroundContext`` merging other saves.
///
/// The context that failed stays consistent: the deletions it was merging are applied, and the
/// objects it was to update keep the values they had (none is half refreshed); its unsaved
/// changes are kept. Bring it up to date once the cause is gone with
/// ``ObjectContext/refreshAllObjects()``, or refetch.
public struct MergeFailure: Sendable {
    /// The context that could not merge.
    public let context: ContextID
    /// The context whose saved changes it was merging.
    public let source: ContextID
    /// The changes it was merging.
    public let changes: ObjectChanges
    /// Why the merge failed (the store's error reading the updated rows).
    public let error: any Error
    /// How many failures this stream's iterator lost since the last one that reported a loss,
    /// because it fell more than ``MergeFailures/bufferSize`` behind (the oldest are dropped).
    public internal(set) var missedFailures = 0
}

extension MergeFailure: CountsMissedElements {
    var missedCount: Int {
        get { missedFailures }
        set { missedFailures = newValue }
    }
}

/// The merges of a container's contexts that failed, as a stream that any number of tasks can
/// iterate, each from the moment it starts; each failure is logged too (label `trove.context`,
/// level error). Iterating ends when the task is cancelled.
public final class MergeFailures: AsyncSequence, Sendable {
    public typealias Element = MergeFailure

    /// The most failures an iterator keeps waiting for it; past it, the oldest are dropped.
    public static let bufferSize = 64

    private static let logger = Logger(label: "trove.context")
    private let broadcast = Broadcast<MergeFailure>(bufferSize: bufferSize)

    init() {}

    /// Logs the failure and sends it to every iterator.
    func report(_ failure: MergeFailure) {
        Self.logger.error("context \(failure.context) could not merge the save of context \(failure.source): \(failure.error)")
        broadcast.send(failure)
    }

    public func makeAsyncIterator() -> AsyncStream<MergeFailure>.Iterator {
        broadcast.stream().makeAsyncIterator()
    }
}
