import TroveModel
import Synchronization

/// An element that can say how many elements before it its stream dropped.
protocol CountsMissedElements: Sendable {
    /// How many elements the stream lost before this one (see ``Broadcast``).
    var missedCount: Int { get set }
}

/// Sends each element to every stream made of it, each from the moment it is made: the
/// plumbing of ``ContextEvents`` and of a ``FetchedResultsController``'s changes.
///
/// Each stream buffers at most `bufferSize` elements its reader has not taken yet: past it the
/// oldest are dropped, and the next element sent tells how many (``CountsMissedElements``),
/// so memory stays bounded however slow a reader is.
final class Broadcast<Element: CountsMissedElements>: Sendable {
    /// One stream's continuation and the elements it lost since it was last told.
    private struct Subscriber {
        let continuation: AsyncStream<Element>.Continuation
        var missed = 0
    }

    private let bufferSize: Int
    private let subscribers = Locked<[UInt64: Subscriber]>([:])
    private let nextID = Atomic<UInt64>(0)

    init(bufferSize: Int) {
        self.bufferSize = bufferSize
    }

    func send(_ element: Element) {
        subscribers.withLock { subscribers in
            for id in Array(subscribers.keys) {
                guard let subscriber = subscribers[id] else { continue }
                var copy = element
                copy.missedCount = subscriber.missed
                // The count goes out with this element; an element pushed out of the buffer
                // starts the next count, with the losses it was carrying.
                let result = subscriber.continuation.yield(copy)
                if case .dropped(let lost) = result {
                    subscribers[id]?.missed = 1 + lost.missedCount
                } else {
                    subscribers[id]?.missed = 0
                }
            }
        }
    }

    /// A new stream of the elements sent from now on; it ends when its task is cancelled or
    /// the broadcast is gone.
    func stream() -> AsyncStream<Element> {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(bufferSize))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = Subscriber(continuation: continuation) }
        return stream
    }

    deinit {
        for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.continuation.finish() }
    }
}
