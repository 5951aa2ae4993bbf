public import Foundation
public import TroveModel
public import TroveStore

/// A document: a store in a folder package of its own, opened and created asynchronously,
/// saving itself after each quiet spell, with a state that apps observe — Trove's
/// `UIManagedDocument`.
///
/// ```swift
/// let document = try Document(url: folder.appending(path: "Photos.trove"), model: model,
///                             classes: [Photographer.self, Photo.self])
/// try await document.openOrCreate()
/// let ann = try document.context.insert(Photographer.self)   // the context is on the main actor
/// ann.id = "ann"                          // saved by autosave once edits pause
/// try await document.close()              // saves what is left
/// ```
///
/// A document is a **folder package** `Name.trove/` holding `Store.sqlite` (with SQLite's
/// `-wal` and `-shm` files beside it) and `Document.json` (format version, model version hash,
/// creation date): a folder has room for the document's own metadata and, later, attachments
/// next to the store, as `UIManagedDocument`'s package holds `StoreContent/` and
/// `DocumentMetadata.plist`. Copy or move the whole folder, never the store alone while it is open.
///
/// ``open()``, ``create()``, ``save()`` and ``close()`` run their store work off the main
/// actor, on a queue of its own (not on Swift's cooperative pool, which blocking work would stall); the rest of a save (validation, marking objects saved) runs on
/// the main actor with ``context``. The document lives on the main actor.
@MainActor
public final class Document {
    /// The version of the package layout this Trove writes and reads (a newer one is refused).
    public nonisolated static let formatVersion = 1
    /// Posted on the main actor after each change of ``state``; the object is the document,
    /// ``stateKey`` in `userInfo` holds the new ``State``.
    public nonisolated static let stateDidChange = Notification.Name("TroveDocumentStateDidChange")
    /// The `userInfo` key of the new state in ``stateDidChange`` notifications.
    public nonisolated static let stateKey = "state"
    /// The most state changes a ``states()`` stream keeps for a reader that has not taken
    /// them; past it the oldest are dropped (see ``StateChange/missedChanges``).
    public nonisolated static let stateBufferSize = 64

    /// The document package's URL (`Name.trove`).
    public nonisolated let url: URL
    /// The model of the document's store.
    public nonisolated let model: Model
    /// How long the document's context must go without a change before autosave saves it
    /// (each change starts the wait again); `nil` turns autosave off. Default 2 seconds.
    public var autosaveDelay: Duration? = .seconds(2)
    /// How often the open document looks for saves made by other documents on the same file
    /// and by other processes (see ``checkForOtherSaves()``); `nil` looks only before each
    /// save and when asked. Read when the document opens. Default 1 second.
    public var changeCheckInterval: Duration? = .seconds(1)
    /// The document's state: ``State/closed`` until it is opened or created.
    public private(set) var state: State = .closed
    /// The error of the last save when it failed (the state then contains
    /// ``State/savingError``); `nil` after a save succeeds or ``revert()``.
    public internal(set) var lastSaveError: (any Error)?

    private let classes: [any EntityClass.Type]
    private let hooks: ObjectHooks
    private let options: SQLiteStore.Options
    /// The time autosave waits in.
    let clock: any Clock<Duration>
    /// The container of the open document.
    var container: Container?
    /// Whether an open or a create is under way.
    private var isOpening = false
    /// The autosave waiting for its quiet spell to end.
    var pendingAutosave: Task<Void, Never>?
    /// The last save asked for: each save waits for the one before it.
    var lastSave: Task<(any Error)?, Never>?
    /// The tasks following the store (see ``startFollowingStore(_:)``).
    var followers: [Task<Void, Never>] = []
    /// The objects in conflict, with what ``conflicts`` shows of each.
    var clashes: [(object: ManagedObject, conflict: Conflict)] = []
    private let stateChanges = Broadcast<StateChange>(bufferSize: stateBufferSize)

    /// A closed document for the package at `url`; nothing is read or written until
    /// ``open()`` or ``create()``.
    ///
    /// - Parameters:
    ///   - url: the package's URL, `Name.trove`.
    ///   - model: the model of the document's store.
    ///   - classes: the generated classes of the model's entities (see ``Container``).
    ///   - hooks: the code that runs at deletes and saves (see ``ObjectHooks``).
    ///   - options: the store's options (durability, busy timeout, its clock).
    ///   - clock: the clock autosave waits on; tests pass one they move by hand.
    /// - Throws: ``ObjectError`` when a class does not fit the model; ``DocumentError``
    ///   `.notADocument` for a `postgres://` URL: a document is a file package, which a
    ///   database is not (use a ``Container`` on a `PostgresStore`).
    public init(url: URL, model: Model, classes: [any EntityClass.Type] = [], hooks: ObjectHooks = ObjectHooks(),
                options: SQLiteStore.Options = SQLiteStore.Options(), clock: any Clock<Duration> = ContinuousClock()) throws {
        guard !url.namesPostgresDatabase else {
            throw DocumentError(.notADocument, url, "a document is a file package (a folder holding Document.json and Store.sqlite) that"
                + " is copied, moved and opened by one user at a time, and a PostgreSQL database is none of these;"
                + " import TrovePostgres and open the database with Container(model:location:classes:hooks:)")
        }
        _ = try EntityClasses(classes, model: model)
        self.url = url
        self.model = model
        self.classes = classes
        self.hooks = hooks
        self.options = options
        self.clock = clock
    }

    // MARK: Opening and closing

    /// Opens the existing document.
    /// - Throws: ``DocumentError`` `.notFound` (nothing at the URL: ``create()`` it),
    ///   `.notADocument`, `.unsupportedFormat`, `.alreadyOpen`; `StoreError` when the store
    ///   cannot be opened (locked, damaged, made with another model). Nothing on disk changes.
    public func open() async throws {
        try await attach { url, model, options in try DocumentPackage.open(url, model: model, options: options) }
    }

    /// Creates the document: a new package with an empty store, open at once.
    /// - Throws: ``DocumentError`` `.alreadyExists` when anything is at the URL (nothing is
    ///   changed), `.alreadyOpen`; the file system's or the store's error when the package
    ///   cannot be written (what was made of it is removed).
    public func create() async throws {
        try await attach { url, model, options in try DocumentPackage.create(url, model: model, options: options, now: Date()) }
    }

    /// Opens the document, or creates it when nothing is at its URL (the lecture's "check, then
    /// open or create" in one call). Throws as ``open()`` and ``create()`` do.
    public func openOrCreate() async throws {
        let url = url
        let exists = try await QueueExecutor.run("trove.document.open") { FileManager.default.fileExists(atPath: url.path) }
        if exists { try await open() } else { try await create() }
    }

    /// Saves unsaved changes (waiting for a save under way), then closes the document: its
    /// context and the objects fetched in it are no longer usable. A document dropped while
    /// open is closed without saving: close it.
    /// - Throws: the save's error; the document then stays open with its changes, so they can
    ///   be fixed and saved, or dropped with ``revert()`` before closing again. Closing a
    ///   closed document does nothing.
    public func close() async throws {
        guard container != nil else { return }
        if let error = await enqueueSave() { throw error }
        guard let container else { return }
        pendingAutosave?.cancel()
        pendingAutosave = nil
        stopFollowingStore()
        container.viewContext.changeHandler = nil
        self.container = nil
        update(.closed)
    }

    /// Makes the document's container with `makeStore` (run off the main actor) and opens it.
    private func attach(_ makeStore: @escaping @Sendable (URL, Model, SQLiteStore.Options) throws -> SQLiteStore) async throws {
        guard container == nil, !isOpening else {
            throw DocumentError(.alreadyOpen, url, "the document is open or being opened; close it first")
        }
        isOpening = true
        defer { isOpening = false }
        let (url, model, options, classes, hooks) = (url, model, options, classes, hooks)
        let container = try await QueueExecutor.run("trove.document.open") {
            try Container(store: try makeStore(url, model, options), classes: classes, hooks: hooks,
                          automaticallyMergesChangesIntoViewContext: false)
        }
        try startFollowingStore(container)
        self.container = container
        container.viewContext.changeHandler = { [weak self] in
            // The document's context lives on the main actor, so its changes are made there.
            MainActor.assumeIsolated { self?.contextDidChange() }
        }
        lastSaveError = nil
        update(.normal)
    }

    // MARK: Contexts

    /// The document's context, on the main actor (the container's `viewContext`): it takes in
    /// the saves of the document's background contexts, of other documents on the same file
    /// and of other processes by itself (see ``checkForOtherSaves()``).
    /// - Throws: ``DocumentError`` `.notOpen` while the document is closed.
    public var context: ObjectContext {
        get throws { try openContainer().viewContext }
    }

    /// A new context on the document's store for background work (use it only in the
    /// isolation domain that made it); its saves are merged into ``context``.
    /// - Throws: ``DocumentError`` `.notOpen` while the document is closed.
    public func newBackgroundContext() throws -> ObjectContext {
        try openContainer().newBackgroundContext()
    }

    /// The container of the open document.
    func openContainer() throws -> Container {
        guard let container else { throw DocumentError(.notOpen, url, "the document is closed; open() or create() it first") }
        return container
    }

    // MARK: State

    /// The document's state changes from now on, in order, each with the state it led to; the
    /// stream ends when its task is cancelled or the document is gone.
    public func states() -> AsyncStream<StateChange> {
        stateChanges.stream()
    }

    /// Sets the state and tells observers, when it changed.
    func update(_ newState: State) {
        guard newState != state else { return }
        state = newState
        stateChanges.send(StateChange(state: newState))
        NotificationCenter.default.post(name: Self.stateDidChange, object: self, userInfo: [Self.stateKey: newState])
    }
}

extension Document {
    /// What a document is doing and what is wrong with it, as `UIDocument.State`: the empty
    /// set is ``normal``, the other states are flags that combine.
    ///
    /// - ``normal`` (no flag): open, its context can be edited and is saved as it should.
    /// - ``closed``: not open (not yet, or no longer); alone.
    /// - ``savingError``: open, but the last save failed (``Document/lastSaveError`` says
    ///   why); the context keeps its changes. The next save that succeeds, or ``Document/revert()``,
    ///   clears it.
    /// - ``editingDisabled``: a save or a revert is under way; the context refuses changes
    ///   (``ObjectError`` `.editingDisabled`) until the flag is gone. Can combine with ``savingError``.
    /// - ``inConflict``: another document on the same file, another process or a background
    ///   context saved changes that clash with unsaved changes of this one
    ///   (``Document/conflicts`` lists them); the document does not save until they are
    ///   resolved (``Document/resolveConflict(of:by:)``).
    public struct State: OptionSet, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Open, nothing wrong: the empty set (test it with `==`, the flags with `contains`).
        public static let normal: State = []
        /// Not open.
        public static let closed = State(rawValue: 1 << 0)
        /// Unsaved changes clash with another instance's save.
        public static let inConflict = State(rawValue: 1 << 1)
        /// The last save failed.
        public static let savingError = State(rawValue: 1 << 2)
        /// A save or revert runs: the context takes no changes.
        public static let editingDisabled = State(rawValue: 1 << 3)

        public var description: String {
            let names = [(State.closed, "closed"), (.inConflict, "inConflict"), (.savingError, "savingError"),
                         (.editingDisabled, "editingDisabled")].filter { contains($0.0) }.map(\.1)
            return names.isEmpty ? "normal" : names.joined(separator: "+")
        }
    }

    /// One change of a document's state, as ``Document/states()`` delivers it.
    public struct StateChange: Sendable, Hashable {
        /// The state the document changed to.
        public let state: State
        /// How many changes this stream lost just before this one, because its reader fell
        /// more than ``Document/stateBufferSize`` changes behind (the oldest are dropped);
        /// read ``Document/state`` for the latest.
        public internal(set) var missedChanges = 0
    }
}

extension Document.StateChange: CountsMissedElements {
    var missedCount: Int {
        get { missedChanges }
        set { missedChanges = newValue }
    }
}
