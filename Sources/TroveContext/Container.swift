public import Foundation
public import TroveModel
public import TroveStore

/// A model and its store, with the contexts that work on them.
///
/// ```swift
/// let container = try Container(model: model, url: storeURL)
/// let context = container.newContext()
/// ```
/// The container is `Sendable`; its ``viewContext`` belongs to the main actor, and
/// ``newContext()`` makes a context for the caller's own isolation domain.
public final class Container: Sendable {
    /// The model.
    public let model: Model
    /// The store every context of this container reads and saves.
    public let store: any PersistentStore
    /// The code every context of this container runs at deletes and saves.
    public let hooks: ObjectHooks
    @MainActor private var mainContext: ObjectContext?

    /// A container on an existing store.
    public init(store: any PersistentStore, hooks: ObjectHooks = ObjectHooks()) {
        self.model = store.model
        self.store = store
        self.hooks = hooks
    }

    /// A container on the SQLite store at `url`, created when there is no file yet.
    /// - Throws: ``StoreError`` when the file cannot be opened or was made with another model.
    public convenience init(model: Model, url: URL, options: SQLiteStore.Options = SQLiteStore.Options(),
                            hooks: ObjectHooks = ObjectHooks()) throws {
        try self.init(store: SQLiteStore(url: url, model: model, options: options), hooks: hooks)
    }

    /// The context of the main actor, for what the user sees; made on first use.
    @MainActor public var viewContext: ObjectContext {
        if let mainContext { return mainContext }
        let context = ObjectContext(store: store, hooks: hooks)
        mainContext = context
        return context
    }

    /// A new context on the store, for the caller's isolation domain.
    public func newContext() -> ObjectContext {
        ObjectContext(store: store, hooks: hooks)
    }
}
