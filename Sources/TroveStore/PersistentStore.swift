public import TroveModel
public import TrovePredicate

/// Where a context's objects are kept: reads rows as snapshots and saves change sets atomically.
///
/// A store speaks only in `Sendable` values (``RowSnapshot``, ``ChangeSet``); it never sees a
/// managed object. ``SQLiteStore`` is the store Trove ships.
public protocol PersistentStore: AnyObject, Sendable {
    /// The model the store was opened with.
    var model: Model { get }

    /// The rows a query selects, in its order, in one statement.
    func fetch(_ query: StoreQuery) throws -> [RowSnapshot]

    /// The rows of `entity`'s hierarchy whose `attributes` hold one of `keys` (a value per
    /// attribute, in order), in no particular order, for a caller about to write (an import's
    /// find-or-create by unique key): a store may read them where its next write finds them
    /// cheapest.
    func fetchBeforeWriting(_ entity: Entity, attributes: [String], keys: [[AttributeValue]]) throws -> [RowSnapshot]

    /// The IDs of the rows a query selects, in its order, without reading their values.
    func fetchObjectIDs(_ query: StoreQuery) throws -> ObjectIDList

    /// The number of rows a query selects (within its limit and offset).
    func count(_ query: StoreQuery) throws -> Int

    /// The results of an aggregate request, each its values in the order of the request's
    /// result keys, computed in one statement from what is saved.
    func fetchAggregates(_ request: CheckedAggregateRequest) throws -> [[AttributeValue]]

    /// The rows of the given objects, in any order, in as few statements as it takes; IDs
    /// without a row are left out.
    func rows(for ids: [ObjectID]) throws -> [RowSnapshot]

    /// The row with the given permanent ID, or `nil` when there is none.
    func row(for id: ObjectID) throws -> RowSnapshot?

    /// The rows a relationship reaches from each of the given stored objects (all of one
    /// entity hierarchy), in the relationship's order (an ordered relationship's own order,
    /// otherwise primary-key order): one query for up to 500 objects. Objects the
    /// relationship holds nothing for are absent from the result.
    func fetchRelated(_ relationship: String, of ids: [ObjectID]) throws -> [ObjectID: [RowSnapshot]]

    /// Writes every change of `changes` in one transaction: all of it or, on any error, nothing.
    ///
    /// Updates and deletes check each row's version and fail with ``ConflictError`` when a row
    /// changed or vanished since it was read.
    /// - Returns: the permanent IDs of inserted rows and the new version of every written row.
    func save(_ changes: ChangeSet) throws -> SaveResult

    /// Deletes the rows a query selects (its window ignored) and those their `cascade`
    /// relationships reach, in one transaction, without reading them: `deny` rules are checked
    /// first, rows a `nullify` rule unlinks get a new version (when they hold the link), and
    /// links to the deleted rows are removed. All of it or, on any error, nothing.
    /// - Throws: ``DeniedDeleteError`` when a `deny` rule refuses (nothing is deleted);
    ///   ``StoreError`` `.unsupportedFormat` when the store cannot run this delete at once (a
    ///   context then deletes through objects); ``StoreError`` when the store fails.
    func batchDelete(_ query: StoreQuery) throws -> BatchWriteResult

    /// Sets the attributes at the positions of `values` (of the query's entity, already checked
    /// against their types and rules) in every row the query selects (its window ignored) that
    /// holds other values, raising those rows' versions, in one transaction.
    /// - Throws: ``StoreError`` `.constraintViolation` when the new values break a unique key
    ///   (nothing is written); ``StoreError`` when the store fails.
    func batchUpdate(_ query: StoreQuery, values: [Int: AttributeValue]) throws -> BatchWriteResult

    /// The store's free key/value metadata (keys of Trove's own start with `trove.`).
    func metadata() throws -> [String: String]

    /// A token for the store's state now, to ask later whether anything was committed since
    /// (``hasChanged(since:)``); cheap, it reads no row.
    ///
    /// It detects every commit to the store: other processes', other connections' of this
    /// process, and this store's own saves (which ``SaveResult/changeTokenBefore`` and
    /// ``SaveResult/changeTokenAfter`` tell apart). A context keeps the token of its last look
    /// and, when the store has changed since, refreshes the objects it holds.
    func changeToken() throws -> StoreChangeToken

    /// The store's change tokens as commits happen: first the token when the stream starts,
    /// then a new one after commits — other processes', other connections', and this store's
    /// own — so that a context can refresh as soon as another writer saves (Core Data's remote
    /// change notifications).
    ///
    /// Tokens arrive in order; one not yet taken is replaced by a newer one, so a slow consumer
    /// sees the latest state, not every commit. A store that must look for commits (SQLite, by
    /// default) reads ``changeToken()`` every `interval`; one that is told of them (PostgreSQL,
    /// through `LISTEN`/`NOTIFY`) ignores `interval`. The stream ends when its consumer stops
    /// iterating or its task is cancelled.
    /// - Throws: (from the stream) the store's error when reading the token or listening fails.
    func changeTokens(pollingEvery interval: Duration) -> AsyncThrowingStream<StoreChangeToken, any Error>

    /// Runs `body` — reads, then a save that depends on them, such as an import batch's
    /// find-or-create — so that no other writer commits between its reads and its save: with
    /// the store's write lock held, which saves inside `body` take again at no cost.
    func writingExclusively<T>(_ body: () throws -> T) throws -> T
}

/// Speed-ups for long runs of saves (an import) that a store may offer beside
/// ``PersistentStore``; the importer uses them where the store has them and works without.
/// ``SQLiteStore`` offers them: its write-ahead log grows during the run, and rows are read ahead
/// on a reading connection while the writer writes. The PostgreSQL store reads ahead on one of
/// its reading connections. A store with one connection has nothing to gain from them.
public protocol BulkWritingStore: PersistentStore {
    /// The same rows as ``fetchBeforeWriting(_:attributes:keys:)``, read on a reading connection
    /// from any thread, while another thread writes: for work that reads the rows of its next
    /// write ahead of time. They are the store as of ``changeToken()`` taken just before (or
    /// later): the caller checks that nothing it does not know of was written since.
    func fetchAhead(_ entity: Entity, attributes: [String], keys: [[AttributeValue]]) throws -> [RowSnapshot]

    /// Runs `body` — a long run of saves, such as an import — with the store set for
    /// throughput, and puts it back after. A file store lets its write-ahead log grow to
    /// ``SQLiteStore/bulkCheckpointPages`` pages before copying it into the file (so that a page
    /// written by many saves is copied once), and copies what is left when `body` ends.
    /// Durability is unchanged. Runs may nest, also from several contexts.
    func bulkWriting<T>(_ body: () throws -> T) throws -> T
}

/// A store that can run work on a scratch copy of itself — an import's dry run — whose writes
/// never reach the store. ``SQLiteStore`` copies its file into the temporary directory; the
/// PostgreSQL store copies its tables into a schema of their own in the same database.
public protocol ScratchCopyingStore: PersistentStore {
    /// Runs `body` on a copy of the store — every row and its metadata, as of one read —
    /// opened as a store of its own, and removes the copy when `body` returns or throws.
    /// > Warning: It costs a copy of the whole store: its size, and the time to write it.
    /// - Throws: ``StoreError`` when the copy cannot be made, or cannot be removed after (the
    ///   message says where it is, to remove it by hand); whatever `body` throws.
    func withScratchCopy<T>(_ body: (any PersistentStore) throws -> T) throws -> T
}

/// A row as read from a store: its identity, version, attribute values, and the to-one
/// relationships the row itself holds.
public struct RowSnapshot: Sendable, Hashable {
    /// The row's permanent ID (its entity is the most specific one).
    public let objectID: ObjectID
    /// The row's version, raised by every save that changes it.
    public let version: Int64
    /// The values in the order of the entity's ``Entity/attributes``: a derived attribute's as
    /// the store computed it when reading the row, a transient attribute's default.
    public let values: [AttributeValue]
    /// The to-one relationships kept in the row, by position in the entity's
    /// ``Entity/relationships``; a relationship absent here is not known from the row (read it
    /// with ``PersistentStore/fetchRelated(_:of:)``).
    public let toOne: [Int: Link]

    /// Creates a snapshot.
    public init(objectID: ObjectID, version: Int64, values: [AttributeValue], toOne: [Int: Link] = [:]) {
        self.objectID = objectID
        self.version = version
        self.values = values
        self.toOne = toOne
    }
}

/// What a to-one relationship holds: no object, or one.
public enum Link: Sendable, Hashable {
    /// No object.
    case empty
    /// The object with this ID.
    case object(ObjectID)

    /// The linked object's ID, or `nil`.
    public var objectID: ObjectID? {
        if case .object(let id) = self { return id }
        return nil
    }

    /// A link to `id`, or none for `nil`.
    public init(_ id: ObjectID?) {
        self = id.map(Link.object) ?? .empty
    }
}

/// How one relationship of one object changed, by position in the entity's relationships.
///
/// A context describes every change from the side where it happened and from the inverse side
/// alike; a store writes each link once, where it keeps it, and ignores the mirror image.
public enum RelationshipChange: Sendable, Hashable {
    /// A to-one now holds `link`.
    case toOne(Int, Link)
    /// A to-many gained and lost objects; `order` is the whole new order of an ordered one.
    case toMany(Int, added: [ObjectID], removed: [ObjectID], order: [ObjectID]?)
}

/// The changes a save writes: inserted, updated and deleted rows, and store metadata.
public struct ChangeSet: Sendable, Hashable {
    /// A row to insert.
    public struct Insert: Sendable, Hashable {
        /// The object's temporary ID.
        public let objectID: ObjectID
        /// Every attribute value, in the order of the entity's attributes (a store writes the
        /// stored ones; transient and derived attributes have no column).
        public let values: [AttributeValue]
        /// The relationships the new object holds.
        public let relationships: [RelationshipChange]

        /// Creates an insert.
        public init(objectID: ObjectID, values: [AttributeValue], relationships: [RelationshipChange] = []) {
            self.objectID = objectID
            self.values = values
            self.relationships = relationships
        }
    }

    /// A row to update: only the changed attributes and relationships. The row's version is
    /// raised even when only relationships changed.
    public struct Update: Sendable, Hashable {
        /// The row's permanent ID.
        public let objectID: ObjectID
        /// The version the row had when read; the update fails if the store has another.
        public let expectedVersion: Int64
        /// The changed attributes, by position in the entity's attributes (a store writes the
        /// stored ones: an update that changes only transient attributes writes nothing).
        public let changes: [Int: AttributeValue]
        /// The changed relationships.
        public let relationships: [RelationshipChange]

        /// Creates an update.
        public init(objectID: ObjectID, expectedVersion: Int64, changes: [Int: AttributeValue],
                    relationships: [RelationshipChange] = []) {
            self.objectID = objectID
            self.expectedVersion = expectedVersion
            self.changes = changes
            self.relationships = relationships
        }
    }

    /// A row to delete.
    public struct Delete: Sendable, Hashable {
        /// The row's permanent ID.
        public let objectID: ObjectID
        /// The version the row had when read; the delete fails if the store has another.
        public let expectedVersion: Int64

        /// Creates a delete.
        public init(objectID: ObjectID, expectedVersion: Int64) {
            self.objectID = objectID
            self.expectedVersion = expectedVersion
        }
    }

    public var inserts: [Insert]
    public var updates: [Update]
    public var deletes: [Delete]
    /// Metadata values to write in the same transaction as the rows; `nil` removes the key.
    public var metadata: [String: String?]

    /// Creates a change set.
    public init(inserts: [Insert] = [], updates: [Update] = [], deletes: [Delete] = [], metadata: [String: String?] = [:]) {
        self.inserts = inserts
        self.updates = updates
        self.deletes = deletes
        self.metadata = metadata
    }

    /// Whether there is nothing to write.
    public var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty && metadata.isEmpty }
}

extension ChangeSet {
    /// The primary key of `id`: a stored object's own, or the one this save gave an inserted
    /// object (`permanentIDs`, taken before anything is written).
    /// - Throws: ``StoreError`` `.constraintViolation` for an object neither stored nor inserted.
    package static func primaryKey(of id: ObjectID, permanentIDs: [ObjectID: ObjectID]) throws -> Int64 {
        if let pk = id.primaryKey ?? permanentIDs[id]?.primaryKey { return pk }
        throw StoreError(.constraintViolation,
            "the save refers to \(id), which is neither stored nor inserted by this save; insert it in the same context")
    }
}

/// What a save wrote: the permanent IDs given to inserted rows and the rows' new versions.
public struct SaveResult: Sendable, Hashable {
    /// Each inserted row's temporary ID mapped to its permanent ID.
    public let permanentIDs: [ObjectID: ObjectID]
    /// The version of each updated row after the save, by ID (an inserted row's is 1).
    public let versions: [ObjectID: Int64]
    /// The store's ``StoreChangeToken`` just before the save's transaction began; `nil` when
    /// nothing was written or the token could not be read.
    ///
    /// Both tokens are taken while no other writer can commit, so only this save lies between
    /// them: a context whose last token equals `changeTokenBefore` missed no one else's commit
    /// and may take ``changeTokenAfter`` as its own; otherwise someone committed in between and
    /// it should refresh.
    public let changeTokenBefore: StoreChangeToken?
    /// The store's ``StoreChangeToken`` just after the save committed; `nil` when nothing was
    /// written or the token could not be read.
    public let changeTokenAfter: StoreChangeToken?

    /// Creates a save result.
    public init(permanentIDs: [ObjectID: ObjectID], versions: [ObjectID: Int64],
                changeTokenBefore: StoreChangeToken? = nil, changeTokenAfter: StoreChangeToken? = nil) {
        self.permanentIDs = permanentIDs
        self.versions = versions
        self.changeTokenBefore = changeTokenBefore
        self.changeTokenAfter = changeTokenAfter
    }
}

extension PersistentStore {
    /// Whether anything was committed to the store since `token` was taken (a token of another
    /// store counts as changed). Reads no row.
    public func hasChanged(since token: StoreChangeToken) throws -> Bool {
        try changeToken() != token
    }

    /// Change tokens read every `interval` (see ``PersistentStore/changeTokens(pollingEvery:)``),
    /// for a store that is not told of commits.
    public func changeTokens(pollingEvery interval: Duration) -> AsyncThrowingStream<StoreChangeToken, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: StoreChangeToken.self, bufferingPolicy: .bufferingNewest(1))
        let polling = Task {
            var last: StoreChangeToken?
            do {
                while true {
                    let token = try changeToken()
                    if token != last { continuation.yield(token) }
                    last = token
                    try await Task.sleep(for: interval)
                }
            } catch is CancellationError {
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in polling.cancel() }
        return stream
    }

    /// The number of stored objects of an entity (with its sub-entities unless told otherwise).
    public func count(of entityName: String, includesSubentities: Bool = true) throws -> Int {
        try count(StoreQuery(FetchRequest(entityName: entityName, includesSubentities: includesSubentities), model: model))
    }
}
