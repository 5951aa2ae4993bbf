public import Foundation
public import TroveModel
import TroveStore
import Synchronization

/// What changed in a context: the IDs of inserted, updated and deleted objects, and the keys
/// changed in each updated one. `Sendable`: it crosses to other contexts and tasks.
public struct ObjectChanges: Sendable, Hashable {
    /// Objects inserted.
    public var inserted: Set<ObjectID> = []
    /// Objects whose values or relationships changed.
    public var updated: Set<ObjectID> = []
    /// Objects deleted.
    public var deleted: Set<ObjectID> = []
    /// For each updated object, the attributes and relationships that changed.
    public var changedKeys: [ObjectID: Set<String>] = [:]

    /// No changes.
    public init() {}

    /// Whether nothing changed.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// A change event of a context, as its streams deliver it.
public struct ContextEvent: Sendable, Hashable {
    /// Which context it came from.
    public let context: ContextID
    /// What changed.
    public let changes: ObjectChanges
    /// How many events this stream's iterator lost since the last event that reported a loss,
    /// because it fell more than ``ContextEvents/bufferSize`` events behind (the oldest ones
    /// are dropped). 0 when none was lost; otherwise merging the changes one by one is no
    /// longer enough: refetch what the iterator follows.
    public internal(set) var missedEvents = 0
    /// The store's change tokens just before and just after the save committed (see
    /// ``SaveResult``): a context whose last token is `tokenBefore` missed no other commit.
    let tokenBefore: StoreChangeToken?
    let tokenAfter: StoreChangeToken?

    init(context: ContextID, changes: ObjectChanges, tokens result: SaveResult? = nil) {
        self.context = context
        self.changes = changes
        tokenBefore = result?.changeTokenBefore
        tokenAfter = result?.changeTokenAfter
    }
}

extension ContextEvent: CountsMissedElements {
    var missedCount: Int {
        get { missedEvents }
        set { missedEvents = newValue }
    }
}

/// The identity of a context, to tell events of different contexts apart.
public struct ContextID: Sendable, Hashable, CustomStringConvertible {
    private let value: UInt64
    private static let next = Atomic<UInt64>(1)

    static func make() -> ContextID {
        ContextID(value: next.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    public var description: String { "context-\(value)" }
}

extension ObjectContext {
    /// Posted after a context saved, with no `object`: the user info holds the saving context's
    /// ``ContextID`` under ``contextKey``, the ``ObjectChanges`` under ``changesKey`` and the ID
    /// sets under ``insertedKey``, ``updatedKey`` and ``deletedKey``. Observers run on the
    /// saving context's thread.
    public static let didSaveNotification = Notification.Name("TroveContextDidSave")
    /// Posted when a run of in-memory changes is processed (``processPendingChanges()``); same
    /// user info as ``didSaveNotification``.
    public static let objectsDidChangeNotification = Notification.Name("TroveObjectsDidChange")
    /// User-info key of the ``ContextID`` of the context that posted.
    public static let contextKey = "context"
    /// User-info key of the ``ObjectChanges``.
    public static let changesKey = "changes"
    /// User-info key of the inserted objects' IDs (`Set<ObjectID>`).
    public static let insertedKey = "inserted"
    /// User-info key of the updated objects' IDs (`Set<ObjectID>`).
    public static let updatedKey = "updated"
    /// User-info key of the deleted objects' IDs (`Set<ObjectID>`).
    public static let deletedKey = "deleted"

    static func post(_ name: Notification.Name, _ event: ContextEvent) {
        NotificationCenter.default.post(name: name, object: nil, userInfo: [
            contextKey: event.context, changesKey: event.changes, insertedKey: event.changes.inserted,
            updatedKey: event.changes.updated, deletedKey: event.changes.deleted,
        ])
    }
}

/// A stream of context events that any number of tasks can iterate, each from the moment it
/// starts. Iterating ends when the task is cancelled.
///
/// Each iterator buffers at most ``bufferSize`` events it has not taken yet: an iterator that
/// falls further behind loses the oldest ones, and the next event it is sent tells how many
/// (``ContextEvent/missedEvents``), so memory stays bounded however slow a reader is.
public final class ContextEvents: AsyncSequence, Sendable {
    public typealias Element = ContextEvent

    /// The most events an iterator keeps waiting for it; past it, the oldest are dropped.
    public static let bufferSize = 256

    private let broadcast = Broadcast<ContextEvent>(bufferSize: bufferSize)

    init() {}

    func send(_ event: ContextEvent) {
        broadcast.send(event)
    }

    public func makeAsyncIterator() -> AsyncStream<ContextEvent>.Iterator {
        stream().makeAsyncIterator()
    }

    /// A stream of the events sent from now on (subscribed at once, unlike an iterator made
    /// later in a task).
    func stream() -> AsyncStream<ContextEvent> {
        broadcast.stream()
    }
}
