public import TroveModel
public import TroveStore

/// A scratch pad of objects: insert, change, delete and fetch them, then save all changes to
/// the store at once, or roll them back.
///
/// A context holds one ``ManagedObject`` per stored row (uniquing): fetching a row twice gives
/// the same instance. It keeps changed objects alive until they are saved or rolled back, and
/// unchanged ones only while the caller holds them. A context is not `Sendable`: use it from
/// the isolation domain that created it, and pass ``ObjectID``s to other contexts.
public final class ObjectContext {
    // The change-tracking properties are `@exclusivity(unchecked)`, as ManagedObject's are
    // (see there): a context lives in one isolation domain and every access is short.
    /// The model of the context's objects.
    public let model: Model
    /// The store the context reads from and saves to.
    public let store: any PersistentStore
    /// The code that runs at deletes and saves of the entities it names.
    public let hooks: ObjectHooks
    /// The class of each entity's objects.
    let classes: EntityClasses
    /// Whether generated properties of this context's objects take part in Swift's
    /// Observation (see ``ManagedObject``'s `Observable` conformance): `true` for a container's
    /// `viewContext`, `false` by default for other contexts. Taking part costs about a
    /// microsecond per object read, for its registrar; set it before reading objects.
    @exclusivity(unchecked) public var isObservationEnabled = false {
        didSet {
            forEachLiveObject { $0.isObserved = isObservationEnabled }
        }
    }
    /// The key paths Observation knows positions by, made on first use.
    lazy var observationKeys = ObservationKeys(model: model)
    /// Records changes for undo and redo; `nil` (the default) records nothing.
    @exclusivity(unchecked) public var undoManager: ContextUndoManager? {
        didSet {
            undoManager?.context = self
            status.recordsUndo = undoManager != nil
        }
    }
    /// What the context's objects read of it on every change, without loading their weak
    /// reference to it.
    let status = ContextStatus()
    /// The store's change token when this context last looked (see ``refreshIfStoreChanged()``).
    var seenToken: StoreChangeToken?
    /// How a save resolves rows changed in the store since they were read (default `.error`).
    public var mergePolicy: MergePolicy = .error
    /// The context's identity, as its events name it.
    public let identifier = ContextID.make()
    /// The context's saves, as they happen (also posted as ``didSaveNotification``).
    public let didSave = ContextEvents()
    /// The context's processed runs of in-memory changes (also posted as
    /// ``objectsDidChangeNotification``).
    public let objectsDidChange = ContextEvents()
    /// Called after each save of this context (the container's streams and merging).
    let onSave: (@Sendable (ContextEvent) -> Void)?
    /// Whether saves are posted as ``didSaveNotification`` and handed to ``onSave``, not only
    /// sent on ``didSave``: `false` for the context a batch request falls back to, whose save
    /// the requesting context announces as its own.
    var announcesSaves = true
    /// Where the context reads rows and saves: its store, or its parent context.
    let source: any RowSource
    /// The requests this context checked, by shape: a fetch of a shape seen before only coerces
    /// its constants.
    let queries = StoreQueryCache()
    /// The context a child context reads through and saves into; `nil` for a context on the store.
    public let parent: ObjectContext?
    /// Changes made since the last ``processPendingChanges()``.
    @exclusivity(unchecked) var pendingChanges = ObjectChanges()
    /// Called at each insert, delete and change of an object (a document's autosave); setting it
    /// makes every change of an inserted object go through the context.
    @exclusivity(unchecked) var changeHandler: (() -> Void)? {
        didSet { status.isWatched = changeHandler != nil }
    }
    /// The fetched-results controllers that follow this context (see ``tellFollowers(_:)``).
    @exclusivity(unchecked) var followers: [FollowingController] = []

    /// How to make objects of the entity ``kind(named:)`` found last.
    @exclusivity(unchecked) private var lastKind: ObjectKind?
    /// The parts of the object being made, for its initialiser to take over (see ``ObjectParts``).
    @exclusivity(unchecked) var parts = ObjectParts()
    /// Every object the context has in memory, not retained (changed objects are also held
    /// below): an object leaves it when it is deallocated (see ``ManagedObject``'s `deinit`),
    /// so every entry is alive.
    @exclusivity(unchecked) private var registry = ObjectRegistry()
    /// Inserted objects, in the order they were inserted (kept out of the registry).
    @exclusivity(unchecked) var inserted = InsertedObjects()
    /// Objects whose values were changed since the last save (they may have changed back).
    @exclusivity(unchecked) var touched: [ObjectID: ManagedObject] = [:]
    /// Deleted objects.
    @exclusivity(unchecked) var deleted: [ObjectID: ManagedObject] = [:]
    /// Changes that typed properties could not make (they cannot throw): the next save throws
    /// the first and writes nothing.
    @exclusivity(unchecked) var deferredFailures: [ObjectError] = []
    /// Store metadata the next save writes (`nil` removes a key).
    var pendingMetadata: [String: String?] = [:]
    /// Rows read ahead (related or prefetched objects) whose objects nobody holds yet: an
    /// object made from one leaves the cache; `reset()` empties it.
    @exclusivity(unchecked) private(set) var rowCache: [ObjectID: (row: RowSnapshot, read: Duration)] = [:]
    /// How old a row read ahead (prefetched, or loaded with a relationship) may be when its
    /// object is first asked for; an older one is read again. `nil` (the default) uses it
    /// whatever its age, as Core Data's default does.
    public var stalenessInterval: Duration?
    /// The time ``stalenessInterval`` is measured in: the system's continuous clock, or one a
    /// test controls.
    public var clock: TimeSource = .continuous

    /// Creates a context on a store, with the hooks its objects' entities have.
    ///
    /// Objects of the entities of `classes` are instances of those classes (see ``EntityClass``).
    /// - Throws: ``ObjectError`` when a class does not fit the model (see
    ///   ``Container/init(store:classes:hooks:automaticallyMergesChangesIntoViewContext:)``).
    public convenience init(store: any PersistentStore, classes: [any EntityClass.Type] = [], hooks: ObjectHooks = ObjectHooks()) throws {
        self.init(store: store, classes: try EntityClasses(classes, model: store.model), hooks: hooks, onSave: nil)
    }

    init(store: any PersistentStore, classes: EntityClasses, hooks: ObjectHooks, onSave: (@Sendable (ContextEvent) -> Void)?) {
        self.model = store.model
        self.store = store
        self.classes = classes
        self.hooks = hooks
        self.onSave = onSave
        self.source = StoreSource(store)
        self.parent = nil
    }

    private init(parent: ObjectContext) {
        self.model = parent.model
        self.store = parent.store
        self.classes = parent.classes
        self.hooks = parent.hooks
        self.onSave = nil
        self.source = ParentSource(parent)
        self.parent = parent
    }

    deinit {
        status.isAlive = false
    }

    /// A child of this context: it sees this context's unsaved changes, and its ``save()``
    /// pushes its changes into this context, not the store (save this context to write them).
    /// Dropping a child, or rolling it back, discards its changes: a cancelable edit. Use it in
    /// this context's isolation domain.
    public func newChildContext() -> ObjectContext {
        ObjectContext(parent: self)
    }

    // MARK: Inserting and deleting

    /// Inserts a new object of `entityName`, with its attributes' default values.
    /// - Throws: ``ObjectError`` `.unknownEntity`, or `.abstractEntity`.
    @discardableResult
    public func insert(_ entityName: String) throws -> ManagedObject {
        let object = try insertObject(entityName)
        object.awakeFromInsert()
        return object
    }

    /// Inserts an object without waking it: for a child's save pushing an insert already made.
    func insertObject(_ entityName: String) throws -> ManagedObject {
        guard let (entity, type) = entityAndClass(named: entityName) else {
            throw ObjectError(.unknownEntity,
                "the model has no entity '\(entityName)'; its entities are: \(model.entities.map(\.name).joined(separator: ", "))")
        }
        return try insertObject(entity, type)
    }

    /// Inserts an object of `entity`, of `type` (the entity's class), without waking it.
    func insertObject(_ entity: Entity, _ type: ManagedObject.Type) throws -> ManagedObject {
        try checkEditable()
        guard !entity.isAbstract else {
            throw ObjectError(.abstractEntity,
                "entity '\(entity.name)' is abstract; insert one of its sub-entities: \(entity.subentityNames.joined(separator: ", "))")
        }
        let id = ObjectID.temporary(entity: entity)
        let object = make(entity, type, id, values: entity.defaultValues, snapshot: nil,
                          relationships: entity.relationships.map { $0.isToMany ? .toMany([]) : .toOne(nil) })
        inserted.add(object)
        pendingChanges.inserted.insert(id)
        changeHandler?()
        undoManager?.record(.insert(object))
        return object
    }

    /// Marks `object` for deletion at the next save, applying each relationship's delete rule
    /// at once: `nullify` removes the object from the other side, `cascade` deletes the related
    /// objects too (cycles are safe), `deny` makes the save fail while the relationship holds
    /// objects, `noAction` leaves the other side alone. An object inserted and not yet saved is
    /// simply dropped.
    /// - Throws: ``ObjectError`` `.notInContext` when the object belongs to another context, or
    ///   the store's error when a relationship had to be loaded.
    public func delete(_ object: ManagedObject) throws {
        try checkOwnership(object)
        if object.isDeleted { return }
        try checkEditable()
        try object.fireFault()
        object.prepareForDeletion()
        for hook in hooks.deletionHooks(for: object.entity, in: model) {
            try hook(object)
        }
        undoManager?.record(.delete(object, wasInserted: object.isInserted))
        object.isDeleted = true
        deleted[object.objectID] = object
        if pendingChanges.inserted.remove(object.objectID) == nil { pendingChanges.deleted.insert(object.objectID) }
        changeHandler?()
        pendingChanges.updated.remove(object.objectID)
        pendingChanges.changedKeys[object.objectID] = nil
        for (index, relationship) in object.entity.relationships.enumerated() {
            switch relationship.deleteRule {
            case .nullify:
                for id in try relatedIDs(of: object, at: index) {
                    try unlink(object, index, from: try self.object(with: id))
                }
            case .cascade:
                for id in try relatedIDs(of: object, at: index) {
                    try delete(try self.object(with: id))
                }
            case .deny, .noAction:
                break
            }
        }
        if object.isInserted {
            deleted[object.objectID] = nil
            inserted.remove(object)
            forget(object)
        }
    }

    // MARK: Looking up

    /// The object with `id`: the registered instance, or one made from the store's row.
    /// - Throws: ``ObjectError`` `.objectNotFound` when neither the context nor the store has it.
    public func object(with id: ObjectID) throws -> ManagedObject {
        if let object = registeredObject(for: id) { return object }
        if let cached = try cachedObject(for: id) { return cached }
        guard let snapshot = try source.row(for: id) else {
            throw ObjectError(.objectNotFound, "no object \(id) in this context or its store; it may have been deleted")
        }
        return try materialize(snapshot)
    }

    /// The registered object with `id`, if the context has it in memory; never reads the store.
    public func registeredObject(for id: ObjectID) -> ManagedObject? {
        registry(for: id)
    }

    /// The number of entries in the registry, inserted objects included (for tests of memory).
    var registrySize: Int { registry.count + inserted.count }

    func registry(for id: ObjectID) -> ManagedObject? {
        if let object = registry.object(for: id) { return object }
        // Objects inserted here are not in the registry until saved.
        return id.isTemporary ? inserted.object(with: id) : nil
    }

    // MARK: Changes

    /// Whether any object is inserted, deleted or updated.
    public var hasChanges: Bool {
        !inserted.isEmpty || !deleted.isEmpty || touched.values.contains { $0.isUpdated }
    }

    /// The objects inserted since the last save.
    public var insertedObjects: Set<ManagedObject> { Set(inserted.values) }
    /// The objects with changed values since the last save (not inserted, not deleted).
    public var updatedObjects: Set<ManagedObject> { Set(touched.values.filter(\.isUpdated)) }
    /// The objects deleted since the last save.
    public var deletedObjects: Set<ManagedObject> { Set(deleted.values) }

    /// The number of objects the context has in memory (held by the context or by the caller).
    public var registeredObjectCount: Int {
        registry.count + inserted.count
    }

    func objectDidChange(_ object: ManagedObject, key: String) {
        changeHandler?()
        guard !object.isInserted else {
            // An inserted object is saved whole: no key of it is tracked for the save. An insert
            // already announced reports its changes as updates (as Core Data does).
            if !pendingChanges.inserted.contains(object.objectID) {
                pendingChanges.updated.insert(object.objectID)
                pendingChanges.changedKeys[object.objectID, default: []].insert(key)
            }
            return
        }
        touched[object.objectID] = object
        pendingChanges.updated.insert(object.objectID)
        pendingChanges.changedKeys[object.objectID, default: []].insert(key)
    }

    /// Announces the changes made since the last call, as one ``objectsDidChange`` event and
    /// one ``objectsDidChangeNotification`` (a save calls it first). The view context calls
    /// it by itself once per main-actor turn in which it changed.
    public func processPendingChanges() {
        undoManager?.closeRun()
        guard !pendingChanges.isEmpty else { return }
        let event = ContextEvent(context: identifier, changes: pendingChanges)
        pendingChanges = ObjectChanges()
        objectsDidChange.send(event)
        Self.post(Self.objectsDidChangeNotification, event)
        tellFollowers(.objects(event.changes))
    }

    /// Every object the context has in memory.
    var liveObjects: [ManagedObject] {
        registry.objects + inserted.values
    }

    /// Runs `body` on every object the context has in memory, without gathering the registry's
    /// first; `body` must not register, insert or forget objects.
    func forEachLiveObject(_ body: (ManagedObject) -> Void) {
        for object in registry.objects { body(object) }
        for object in inserted.values { body(object) }
    }

    /// Inserted objects in insertion order.
    var orderedInsertedObjects: [ManagedObject] {
        inserted.values
    }

    // MARK: Registry

    /// The registered instance for a row, refreshed from `snapshot` when it has no unsaved
    /// changes (keeping its transient values); or a new registered instance.
    func materialize(_ snapshot: RowSnapshot) throws -> ManagedObject {
        if let object = registry(for: snapshot.objectID) { return refreshed(object, from: snapshot) }
        return try makeObject(from: snapshot)
    }

    /// A new registered instance for a row of which the registry had no object when the caller
    /// looked; if one was registered since (by code that ran meanwhile), that one, refreshed.
    func makeObject(from snapshot: consuming RowSnapshot) throws -> ManagedObject {
        guard let kind = kind(named: snapshot.objectID.entityName) else {
            throw ObjectError(.unknownEntity, "the store returned a row of entity '\(snapshot.objectID.entityName)', which the model lacks")
        }
        let relationships = snapshot.toOne.isEmpty ? kind.faults : RelationshipState.states(of: kind.entity, from: snapshot)
        let id = snapshot.objectID
        let values = snapshot.values
        let object = make(kind.entity, kind.type, consume id, values: consume values, snapshot: consume snapshot,
                          relationships: consume relationships)
        if let registered = registry.registerIfAbsent(object, for: object.objectID) {
            return object.snapshot.map { refreshed(registered, from: $0) } ?? registered
        }
        object.awakeFromFetch()
        return object
    }

    /// `object` (registered for the row of `snapshot`) with the row's values when it is a
    /// fault, or has no unsaved changes and the row changed (keeping its transient values).
    func refreshed(_ object: ManagedObject, from snapshot: RowSnapshot) -> ManagedObject {
        if object.isFault || (!object.hasChanges && object.snapshot != snapshot) {
            let snapshot = object.isFault ? snapshot : object.keepingTransientValues(in: snapshot)
            object.values = snapshot.values
            object.snapshot = snapshot
            object.relationships = RelationshipState.states(of: object.entity, from: snapshot)
            object.committedRelationships = [:]
            object.observeChangeOfEverything()
            object.awakeFromFetch()
        }
        return object
    }

    /// The registered object for `id` (of `entity`), or a new registered fault: no I/O.
    func objectOrFault(for id: ObjectID, entity: Entity) -> ManagedObject {
        if let object = registry(for: id) { return object }
        if let snapshot = freshCachedRow(for: id), let object = try? materialize(snapshot) { return object }
        let fault = make(entity, classes.type(of: entity), id, values: [], snapshot: nil,
                         relationships: (kind(named: entity.name)?.faults) ?? entity.relationships.map { _ in .fault })
        register(fault)
        return fault
    }

    /// Fills a fault with its row; an object whose row is gone is removed.
    func fulfill(_ object: ManagedObject) throws {
        guard let snapshot = try freshCachedRow(for: object.objectID) ?? source.row(for: object.objectID) else {
            remove(object)
            throw ObjectError(.objectNotFound, "\(object.objectID) is no longer in the store; it was deleted")
        }
        _ = try materialize(snapshot)
    }

    /// Keeps a row read ahead: it refreshes the object in memory if there is one, or waits in
    /// the row cache until the object is asked for.
    func cache(_ snapshot: RowSnapshot) throws {
        if registry.object(for: snapshot.objectID) != nil {
            _ = try materialize(snapshot)
        } else {
            rowCache[snapshot.objectID] = (snapshot, clock.now)
        }
    }

    /// The object made from a cached row, which leaves the cache; `nil` when none is cached.
    func cachedObject(for id: ObjectID) throws -> ManagedObject? {
        guard let snapshot = freshCachedRow(for: id) else { return nil }
        return try materialize(snapshot)
    }

    /// Forgets every row read ahead.
    func clearRowCache() {
        rowCache = [:]
    }

    /// The cached row of `id`, which leaves the cache; `nil` when there is none or it is
    /// older than ``stalenessInterval``.
    private func freshCachedRow(for id: ObjectID) -> RowSnapshot? {
        guard !rowCache.isEmpty, let entry = rowCache.removeValue(forKey: id) else { return nil }
        if let limit = stalenessInterval, clock.now - entry.read > limit { return nil }
        return entry.row
    }

    /// Forgets cached rows of these objects (their store rows just changed).
    func uncache(_ ids: some Sequence<ObjectID>) {
        guard !rowCache.isEmpty else { return }
        for id in ids { rowCache[id] = nil }
    }

    /// A new object of `entity`, of `type` (its registered class), not registered yet.
    private func make(_ entity: Entity, _ type: ManagedObject.Type, _ id: consuming ObjectID, values: consuming [AttributeValue],
                      snapshot: consuming RowSnapshot?, relationships: consuming [RelationshipState]) -> ManagedObject {
        parts.values = consume values
        parts.snapshot = consume snapshot
        parts.relationships = consume relationships
        return type.init(ObjectCreation(entity: entity, objectID: consume id, isObserved: isObservationEnabled, context: .passUnretained(self)))
    }

    /// The entity named `name` and its class; the last one asked for is remembered, as rows
    /// and inserts come in runs of one entity.
    func entityAndClass(named name: String) -> (Entity, ManagedObject.Type)? {
        kind(named: name).map { ($0.entity, $0.type) }
    }

    /// How to make objects of the entity named `name` (remembered: see ``entityAndClass(named:)``).
    private func kind(named name: String) -> ObjectKind? {
        if let last = lastKind, last.name == name { return last }
        guard let entity = model.entity(named: name) else { return nil }
        let kind = ObjectKind(entity, classes)
        lastKind = kind
        return kind
    }

    func register(_ object: ManagedObject) {
        registry.register(object, for: object.objectID)
    }

    /// Removes `object`'s entry under `id`, if the entry is `object`'s (a fault of the same row
    /// may have replaced an object that left the context).
    private func unregister(_ object: ManagedObject, at id: ObjectID) {
        registry.remove(object, at: id)
    }

    /// An object of this context is being deallocated: it leaves the registry.
    func objectWillDeallocate(_ object: ManagedObject) {
        unregister(object, at: object.objectID)
    }

    /// Takes an object out of the context: it is no longer tracked and has no context.
    func forget(_ object: ManagedObject) {
        unregister(object, at: object.objectID)
        object.context = nil
    }

    /// Takes out an object whose row is gone: no change of it is pending any more, and it is
    /// ``ManagedObject/isRemoved``.
    func remove(_ object: ManagedObject) {
        inserted.remove(object)
        touched[object.objectID] = nil
        deleted[object.objectID] = nil
        object.isDeleted = false
        object.isRemoved = true
        object.committedRelationships = [:]
        forget(object)
    }

    /// Forgets every object and every change.
    func clearAll() {
        for object in registry.objects {
            object.context = nil
        }
        for object in inserted.everyObject where object.context === self {
            object.context = nil
        }
        registry.removeAll()
        rowCache = [:]
        seenToken = nil
        clearChanges()
    }

    func clearChanges() {
        undoManager?.removeAll()
        pendingChanges = ObjectChanges()
        inserted.removeAll()
        touched = [:]
        deleted = [:]
        pendingMetadata = [:]
        deferredFailures = []
    }

    /// Throws when the context takes no change now (see ``ContextStatus/editingDisabledReason``).
    func checkEditable() throws {
        if let reason = status.editingDisabledReason { throw ObjectError(.editingDisabled, reason) }
    }

    func checkOwnership(_ object: ManagedObject) throws {
        guard object.context === self else {
            throw ObjectError(.notInContext,
                "\(object.objectID) belongs to another context (or none); get it in this one with object(with: id)")
        }
    }
}

/// How a context makes the objects of one entity.
final class ObjectKind {
    let name: String
    let entity: Entity
    /// The entity's registered class.
    let type: ManagedObject.Type
    /// A fault for each relationship: the relationships of a fetched object whose row holds no link.
    let faults: [RelationshipState]

    init(_ entity: Entity, _ classes: EntityClasses) {
        name = entity.name
        self.entity = entity
        type = classes.type(of: entity)
        faults = entity.relationships.map { _ in .fault }
    }
}

@available(*, unavailable, message: "a context stays in the isolation domain that created it; pass ObjectIDs instead")
extension ObjectContext: Sendable {}
