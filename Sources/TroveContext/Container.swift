public import Foundation
public import TroveModel
public import TroveStore
import Synchronization

/// A model and its store, with the contexts that work on them.
///
/// ```swift
/// let container = try Container(model: model, url: storeURL, classes: [Photographer.self, Photo.self])
/// let context = container.newBackgroundContext()
/// let count = try await container.performBackgroundTask { context in try context.fetchCount("Photo") }
/// ```
/// The container is `Sendable`; its ``viewContext`` belongs to the main actor and (by default)
/// merges every other context's saves by itself. Other contexts stay in the isolation domain
/// that made them: pass ``ObjectID``s between contexts, never objects.
public final class Container: Sendable {
    /// The model.
    public let model: Model
    /// The store every context of this container reads and saves.
    public let store: any PersistentStore
    /// The code every context of this container runs at deletes and saves.
    public let hooks: ObjectHooks
    /// The class of each entity's objects.
    let classes: EntityClasses
    /// Every save of every context of this container, as it happens.
    public let didSave = ContextEvents()
    /// The merges of other contexts' saves that failed — the view context's automatic merge and
    /// ``BackgroundContext``'s — each with its error (and logged).
    public let mergeFailures = MergeFailures()
    /// Whether the view context merges other contexts' saves by itself (default `true`).
    public let automaticallyMergesChangesIntoViewContext: Bool
    @MainActor private var mainContext: ObjectContext?
    /// Whether ``viewContext`` was made: until it is, there is nothing to merge saves into.
    private let hasViewContext = Atomic<Bool>(false)

    /// A container on an existing store.
    ///
    /// Every object of an entity of `classes` (and of its sub-entities without a class of their
    /// own) is an instance of that class, whichever way a context makes it: insert, fetch, fault,
    /// relationship, import. The generator writes the whole list of a model's classes.
    /// - Throws: ``ObjectError`` `.unknownEntity` for a class of an entity the model lacks (or
    ///   two classes of one entity), `.typeMismatch` for a class generated from another version
    ///   of its entity (generate again) or one that does not subclass its parent entity's class.
    public init(store: any PersistentStore, classes: [any EntityClass.Type] = [], hooks: ObjectHooks = ObjectHooks(),
                automaticallyMergesChangesIntoViewContext: Bool = true) throws {
        self.model = store.model
        self.store = store
        self.classes = try EntityClasses(classes, model: store.model)
        self.hooks = hooks
        self.automaticallyMergesChangesIntoViewContext = automaticallyMergesChangesIntoViewContext
    }

    /// A container on the SQLite store at `url`, created when there is no file yet, with the
    /// classes of the model's entities (see ``init(store:classes:hooks:automaticallyMergesChangesIntoViewContext:)``).
    ///
    /// `url` is a file. A PostgreSQL store opens through the `TrovePostgres` module, which adds
    /// `Container(model:location:classes:hooks:)` taking a `PostgresLocation`, so that apps on
    /// SQLite alone never build the PostgreSQL driver.
    /// - Throws: ``StoreError`` when the file cannot be opened or was made with another model
    ///   (`.notFound`, naming the fix, for a `postgres://` URL); ``ObjectError`` when a class
    ///   does not fit the model.
    public convenience init(model: Model, url: URL, classes: [any EntityClass.Type] = [],
                            options: SQLiteStore.Options = SQLiteStore.Options(), hooks: ObjectHooks = ObjectHooks()) throws {
        guard !url.namesPostgresDatabase else {
            throw StoreError(.notFound, "Container(model:url:) opens an SQLite store file, and this URL names a PostgreSQL database;"
                + " import TrovePostgres and use Container(model:location:classes:hooks:) with PostgresLocation(\"postgres://…\")")
        }
        try self.init(store: SQLiteStore(url: url, model: model, options: options), classes: classes, hooks: hooks)
    }

    /// The context of the main actor, for what the user sees; made on first use.
    @MainActor public var viewContext: ObjectContext {
        if let mainContext { return mainContext }
        let context = makeContext()
        context.isObservationEnabled = true
        mainContext = context
        hasViewContext.store(true, ordering: .releasing)
        return context
    }

    /// A new context for the caller's own isolation domain (a task, a thread, an actor):
    /// use it only there.
    public func newBackgroundContext() -> ObjectContext {
        makeContext()
    }

    /// Runs `body` with a new context off the caller's thread and returns its result. The
    /// context lives only as long as `body` runs; return IDs or values, not objects.
    ///
    /// `body` runs on a queue of its own (a ``BackgroundContext``'s), never on Swift's
    /// cooperative thread pool, so its store work may block without stalling other tasks.
    public func performBackgroundTask<T: Sendable>(_ body: @Sendable (ObjectContext) throws -> T) async throws -> T {
        try await BackgroundContext(container: self).perform(body)
    }

    private func makeContext() -> ObjectContext {
        ObjectContext(store: store, classes: classes, hooks: hooks) { [weak self] event in
            guard let self else { return }
            didSave.send(event)
            // No merge is queued before the view context exists (a tool that never makes one
            // would otherwise pile up a task per save behind its busy main thread).
            guard automaticallyMergesChangesIntoViewContext, hasViewContext.load(ordering: .acquiring) else { return }
            Task { @MainActor [weak self] in
                guard let self, let view = mainContext, view.identifier != event.context else { return }
                do {
                    try view.mergeChanges(from: event.changes)
                } catch {
                    mergeFailures.report(MergeFailure(context: view.identifier, source: event.context, changes: event.changes, error: error))
                }
            }
        }
    }
}

/// An actor that owns a context, for long-lived background work such as an import: the
/// context is reached only through ``perform(_:)``, so the compiler keeps it on the actor.
///
/// The actor runs on a serial queue of its own, not on Swift's cooperative thread pool (as Core
/// Data gives each private context its own queue): its store work blocks that queue's thread
/// only, however long SQLite waits.
public actor BackgroundContext {
    private let executor = QueueExecutor(label: "trove.background-context")
    private let context: ObjectContext
    private let failures: MergeFailures

    /// A context of `container`; with `mergingOtherSaves`, it merges every other context's
    /// saves as they happen (a merge that fails is reported in the container's
    /// ``Container/mergeFailures``).
    public init(container: Container, mergingOtherSaves: Bool = false) {
        context = container.newBackgroundContext()
        failures = container.mergeFailures
        if mergingOtherSaves {
            // Subscribed before init returns, so that no save made after it is missed.
            let saves = container.didSave.makeAsyncIterator()
            let own = context.identifier
            // Ends at the first save after the actor is gone.
            Task { [weak self] in
                var saves = saves
                while let event = await saves.next() {
                    guard let self else { return }
                    if event.context != own { await merge(event) }
                }
            }
        }
    }

    /// The actor's own queue.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// Runs `body` with the context, on the actor.
    public func perform<T: Sendable>(_ body: @Sendable (ObjectContext) throws -> T) rethrows -> T {
        try body(context)
    }

    private func merge(_ event: ContextEvent) {
        do {
            try context.mergeChanges(from: event.changes)
        } catch {
            failures.report(MergeFailure(context: context.identifier, source: event.context, changes: event.changes, error: error))
        }
    }
}

extension URL {
    /// Whether the URL is a `postgres://` or `postgresql://` one: a database, not a file.
    var namesPostgresDatabase: Bool {
        ["postgres", "postgresql"].contains(scheme?.lowercased() ?? "")
    }
}
