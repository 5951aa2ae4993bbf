public import Foundation
import GRDB
import Logging
import Synchronization
public import TroveModel
import TrovePredicate

/// A store in one SQLite file (or in memory): WAL, one writer (through GRDB), many readers.
///
/// Saved means durable: by default the store runs `synchronous=FULL`, so a save that returned
/// survives a crash of the app and a power loss. ``Durability/normal`` trades that for speed.
///
/// Opening a store checks it was created with the same model (by ``Model/versionHash``) and
/// fails with ``StoreError/Code/modelMismatch`` naming the differences otherwise.
///
/// Several processes (and several stores in one process) may open one file. Their writes are
/// serialized by a write lock on the file `STORE-lock` beside it: every write transaction and
/// every WAL checkpoint runs holding it, because the SQLite linked here (3.40.1) can corrupt a
/// database when two connections write or checkpoint at the same instant (the WAL-reset bug,
/// fixed in 3.51.3). A write that cannot get the lock within ``Options/busyTimeout`` fails with
/// ``StoreError/Code/busy``. Reads never wait for it. ``changeToken()`` tells whether anyone
/// committed since a point.
public final class SQLiteStore: BulkWritingStore {
    /// How hard a save works to survive a power loss.
    public enum Durability: String, Sendable, Hashable {
        /// `synchronous=FULL`: a save that returned is on disk (the default).
        case full
        /// `synchronous=NORMAL`: may lose the last saves on a power loss — never on a crash of
        /// the app — and never corrupts the store. Faster for bulk work.
        case normal
    }

    /// Settings for opening a store.
    public struct Options: Sendable {
        /// How hard a save works to survive a power loss (default ``Durability/full``).
        public var durability: Durability
        /// How long a write waits for another process's write to finish before failing with
        /// ``StoreError/Code/busy`` (default 5 s).
        public var busyTimeout: TimeInterval
        /// The clock that wait is measured on, and that pauses between attempts to take the
        /// lock (default ``TimeSource/continuous``): a test gives one it moves itself.
        public var clock: TimeSource
        /// How many pages the write-ahead log may hold before a save copies them into the store
        /// file (SQLite's `wal_autocheckpoint`; default 1000 pages, about 4 MB). The copy runs
        /// inside the save's commit, so under the write lock. 0 turns it off: then call
        /// ``SQLiteStore/checkpoint()`` yourself, or the log grows without bound.
        public var autoCheckpointPages: Int
        /// How much memory, in KiB, the writing connection keeps for store pages (SQLite's
        /// `cache_size`; default 8192, 8 MiB, four times SQLite's own default). A save that reads
        /// pages and then writes them — an import finds a batch's rows by key, then inserts next
        /// to them — keeps them between the two instead of reading them again: a million-record
        /// import runs 15% faster than with 2 MiB. Reading connections keep SQLite's default.
        public var writerCacheKiB: Int
        /// Called with the SQL of every statement the store runs (parameters as `?`, values
        /// never included), on the connection's thread: for tests that count queries, and
        /// for debugging. `nil` (the default) costs nothing.
        public var statementObserver: (@Sendable (String) -> Void)?
        /// Whether the store is opened for reading only (default `false`), as GRDB's
        /// `Configuration.readonly` and Core Data's `NSReadOnlyPersistentStoreOption`: it needs
        /// no write access to the file, its folder or the disk, and creates no file (not even the
        /// lock file). A missing store is not created; a save, a checkpoint or any other write
        /// fails with ``StoreError/Code/readOnly``.
        ///
        /// When the folder cannot be written and the store has no `-wal` file (a store closed
        /// cleanly has none), SQLite cannot make the `-shm` file a WAL database is read with;
        /// the store is then read as immutable (SQLite's `immutable=1`), which is right because
        /// no one can write a store there either. A `-wal` file without its `-shm` in such a
        /// folder cannot be read safely: opening fails and says so.
        public var readOnly: Bool
        /// What opening a store made with another model does (default ``MigrationPolicy/refuse``:
        /// ``StoreError/Code/modelMismatch``); ``MigrationPolicy/inferred(keepingBackup:)``
        /// migrates it first, as the Migration article describes.
        public var migration: MigrationPolicy
        /// Called as a migration on open writes rows (see ``MigrationProgress``); `nil` (the
        /// default) reports nothing.
        public var migrationProgress: MigrationProgress.Handler?

        /// Creates options.
        public init(durability: Durability = .full, busyTimeout: TimeInterval = 5,
                    autoCheckpointPages: Int = 1000, writerCacheKiB: Int = 8192,
                    statementObserver: (@Sendable (String) -> Void)? = nil, readOnly: Bool = false,
                    migration: MigrationPolicy = .refuse, migrationProgress: MigrationProgress.Handler? = nil,
                    clock: TimeSource = .continuous) {
            self.readOnly = readOnly
            self.migration = migration
            self.migrationProgress = migrationProgress
            self.clock = clock
            self.durability = durability
            self.busyTimeout = busyTimeout
            self.autoCheckpointPages = autoCheckpointPages
            self.writerCacheKiB = writerCacheKiB
            self.statementObserver = statementObserver
        }
    }

    static let metadataTable = "_trove_metadata"
    /// The on-disk format this Trove writes and reads.
    static let formatVersion = 1

    public let model: Model
    /// The store file, or `nil` for an in-memory store.
    public let url: URL?
    let writer: any DatabaseWriter
    /// The cross-process write lock of a file store; `nil` in memory, where no one else writes.
    let writeLock: WriteLock?
    /// The write lock of an in-memory store, where only this process's threads write.
    let memoryWriteLock = NSRecursiveLock()
    /// Answers ``changeToken()`` for a file store; `nil` in memory.
    let observer: DataVersionObserver?
    /// The reading connections of a file store; `nil` in memory, where the writer's one
    /// connection reads too.
    let readers: ReadingConnections?
    /// The commits of this store: the change counter of an in-memory store.
    let commitCount = Atomic<Int64>(0)
    /// The ``bulkWriting(_:)`` runs under way.
    let bulkRuns = Locked<Int>(0)
    /// Tells this store's tokens from any other's.
    let storeID = StoreChangeToken.nextStoreID()
    let options: Options
    let schema: StoreSchema
    let readPlans: [String: ReadPlan]
    /// Fetch statements by shape, compiled once each (at most 256 kept).
    let statements = Locked<[StatementShape: ShapedStatement]>([:])
    let insertPlans: [String: InsertPlan]
    static let logger = Logger(label: "trove.store")

    /// Opens the store at `url`, creating it (with its tables) when there is no file yet.
    ///
    /// A creation that fails (a full disk, a folder that cannot be written) leaves nothing
    /// behind: the store file, its `-wal` and `-shm` files and a lock file it made are removed.
    /// - Throws: ``StoreError`` when the file is not a Trove store, was made by a newer Trove,
    ///   or was created with another model.
    public convenience init(url: URL, model: Model, options: Options = Options()) throws {
        if options.readOnly {
            let (writer, path) = try SQLiteStore.openForReading(at: url, options: options)
            try self.init(writer: writer, url: url, readPath: path, model: model, options: options, lock: nil)
            return
        }
        let leftovers = SQLiteStore.filesCreated(openingStoreAt: url)
        do {
            let lock = try WriteLock(storePath: url.path)
            let writer = try SQLiteStore.openPool(at: url, options: options, lock: lock)
            try self.init(writer: writer, url: url, readPath: url.path, model: model, options: options, lock: lock)
        } catch {
            // The connections are closed: the half-made store and the pool went with the scope.
            for path in leftovers { unlink(path) }
            throw error
        }
    }

    /// The files opening the store at `url` would create, to remove when that fails: all of
    /// them when there is no store file yet (the lock file only if it is not there already:
    /// another process may hold it open), none when there is one.
    private static func filesCreated(openingStoreAt url: URL) -> [String] {
        let path = url.path
        let manager = FileManager.default
        guard !manager.fileExists(atPath: path) else { return [] }
        let lock = manager.fileExists(atPath: path + "-lock") ? [] : [path + "-lock"]
        return [path, path + "-wal", path + "-shm", path + "-journal"] + lock
    }

    /// Opens the existing store at `url` with the model it was created with, as kept in its
    /// metadata: for tools that have no model file at hand (`trove inspect`).
    /// - Throws: ``StoreError`` `.notFound` when there is no file (nothing is created), or
    ///   when the file is not a Trove store or cannot be read.
    public convenience init(url: URL, options: Options = Options()) throws {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StoreError(.notFound, "no store at \(url.path); create one with `trove init \(url.path) --model MODEL.json`")
        }
        let lock = options.readOnly ? nil : try WriteLock(storePath: url.path)
        let (writer, readPath): (any DatabaseWriter, String) = try lock.map { (try SQLiteStore.openPool(at: url, options: options, lock: $0), url.path) }
            ?? SQLiteStore.openForReading(at: url, options: options)
        let model = try SQLiteStore.mapErrors("reading the model of \(url.path)") {
            try writer.read { try SQLiteStore.storedModel(in: $0, place: url.path) }
        }
        try self.init(writer: writer, url: url, readPath: readPath, model: model, options: options, lock: lock)
    }

    /// Creates a store in memory: SQLite itself, gone when the store is released.
    public convenience init(inMemoryWith model: Model, options: Options = Options()) throws {
        let writer = try SQLiteStore.mapErrors("creating an in-memory store") {
            try DatabaseQueue(configuration: SQLiteStore.configuration(options: options))
        }
        try self.init(writer: writer, url: nil, readPath: nil, model: model, options: options, lock: nil)
    }

    /// - Parameter readPath: what reading connections open: the file's path, or an SQLite URI
    ///   that reads it as immutable (see ``Options/readOnly``).
    private init(writer: any DatabaseWriter, url: URL?, readPath: String?, model: Model, options: Options, lock: WriteLock?) throws {
        self.writer = writer
        self.url = url
        self.model = model
        self.options = options
        self.writeLock = lock
        self.observer = try readPath.map { try DataVersionObserver(path: $0, busyTimeout: options.busyTimeout) }
        self.readers = readPath.map { ReadingConnections(path: $0, options: options) }
        let schema = StoreSchema(model: model)
        self.schema = schema
        self.readPlans = Dictionary(uniqueKeysWithValues: try schema.tables.map {
            ($0.name, try ReadPlan(table: $0, schema: schema, model: model))
        })
        self.insertPlans = schema.layouts.mapValues { InsertPlan(layout: $0, schema: schema) }
        try prepare()
    }

    /// Creates the tables of a new store, or checks an existing store's format and model.
    private func prepare() throws {
        let place = url?.path ?? "in-memory store"
        let modelText = String(decoding: model.fileData(), as: UTF8.self)
        if options.readOnly {
            return try SQLiteStore.mapErrors("opening \(place) for reading") {
                try writer.read { db in
                    let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                    _ = try checkExisting(db, tables: tables, place: place)
                }
            }
        }
        try SQLiteStore.mapErrors("opening \(place)") {
            try writeLocked("opening \(place)") { db in
                try migrateOnOpen(db)
                try db.inTransaction(.immediate) {
                    let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                    if tables.isEmpty {
                        for sql in SQLiteStore.creationSQL(for: schema) {
                            try db.execute(sql: sql)
                        }
                        try SQLiteStore.writeMetadata(
                            ["trove.formatVersion": String(SQLiteStore.formatVersion),
                             "trove.modelHash": model.versionHash,
                             "trove.model": modelText,
                             "trove.createdAt": Date().formatted(.iso8601)],
                            in: db)
                        SQLiteStore.logger.debug("created store", metadata: ["path": "\(place)"])
                        return .commit
                    }
                    let metadata = try checkExisting(db, tables: tables, place: place)
                    // Same shape; keep the latest import hints and validation rules on record.
                    if metadata["trove.model"] != modelText {
                        try SQLiteStore.writeMetadata(["trove.model": modelText], in: db)
                    }
                    return .commit
                }
            }
        }
    }

    /// Checks that an existing store is a Trove store of a format this Trove reads, made with
    /// this model; returns its metadata.
    private func checkExisting(_ db: Database, tables: [String], place: String) throws -> [String: String] {
        guard tables.contains(SQLiteStore.metadataTable) else {
            throw StoreError(.notATroveStore,
                "\(place) is an SQLite database but not a Trove store (no \(SQLiteStore.metadataTable) table); open a file made by `trove init` or choose a new path")
        }
        let metadata = try SQLiteStore.readMetadata(db)
        try SQLiteStore.checkFormat(metadata, place: place)
        let storedHash = metadata["trove.modelHash"] ?? ""
        guard storedHash == model.versionHash else {
            let differences = metadata["trove.model"]
                .flatMap { try? Model(fileData: Data($0.utf8)) }
                .map { model.differences(from: $0) } ?? []
            let list = differences.isEmpty ? "" : "\n" + differences.map { "  - \($0)" }.joined(separator: "\n")
            throw StoreError(.modelMismatch, """
                \(place) was created with another model or migrated to one (version hash \(storedHash), this model's is \(model.versionHash)); \
                open it with that model, or migrate it to this one (`trove migrate \(place) --model NEW.json --dry-run` shows \
                the plan; in code, SQLiteStore.Options.migration)\(list)
                """)
        }
        return metadata
    }

    static func checkFormat(_ metadata: [String: String], place: String) throws {
        guard let text = metadata["trove.formatVersion"], let version = Int(text) else {
            throw StoreError(.notATroveStore, "\(place) has no format version in its metadata; it was not made by Trove")
        }
        guard version <= formatVersion else {
            throw StoreError(.unsupportedFormat,
                "\(place) has format version \(version), this Trove reads up to \(formatVersion); use a newer Trove")
        }
    }

    // MARK: Connections

    static func configuration(options: Options) -> Configuration {
        var config = Configuration()
        config.busyMode = .timeout(options.busyTimeout)
        config.foreignKeysEnabled = true
        config.label = "trove"
        let observer = options.statementObserver
        let checkpointPages = max(options.autoCheckpointPages, 0)
        let cacheKiB = max(options.writerCacheKiB, 0)
        config.prepareDatabase { db in
            SQLFunctions.register(on: db.sqliteConnection)
            if !db.configuration.readonly {
                // The writer checkpoints inside its commits, which run under the write lock.
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(checkpointPages)")
                // A negative size is in KiB.
                try db.execute(sql: "PRAGMA cache_size = -\(cacheKiB)")
            }
            if let observer {
                db.trace(options: .statement) { event in observer(event.description) }
            }
        }
        return config
    }

    /// Opens the pool holding the write lock: GRDB writes while it opens a pool (switching a
    /// new file to WAL, and a throwaway table whenever the `-wal` file is missing or empty).
    static func openPool(at url: URL, options: Options, lock: WriteLock) throws -> DatabasePool {
        try mapErrors("opening \(url.path)") {
            try lock.withLock(timeout: options.busyTimeout, clock: options.clock, doing: "opening \(url.path)") {
                let pool = try DatabasePool(path: url.path, configuration: configuration(options: options))
                // GRDB sets synchronous=NORMAL when it enables WAL; Trove's default is FULL.
                let pragma = options.durability == .full ? "FULL" : "NORMAL"
                try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = \(pragma)") }
                return pool
            }
        }
    }

    /// Opens the existing store at `url` for reading only (see ``Options/readOnly``): the
    /// connection, and what reading connections open — the path, or the URI that reads the
    /// file as immutable when the folder cannot hold the `-shm` file SQLite needs.
    static func openForReading(at url: URL, options: Options) throws -> (DatabaseQueue, String) {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.notFound, "no store at \(path); create one with `trove init \(path) --model MODEL.json`")
        }
        var configuration = configuration(options: options)
        configuration.readonly = true
        func open(_ path: String) throws -> DatabaseQueue {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            // Reading the schema reads the WAL index too: where it cannot be made, this fails.
            try queue.read { _ = try $0.tableExists(metadataTable) }
            return queue
        }
        return try mapErrors("opening \(path) for reading") {
            do {
                return (try open(path), path)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN || error.resultCode == .SQLITE_READONLY {
                // No -shm file and none can be made. Without a -wal file nobody writes the store
                // (a writer would need to make both), so it cannot change under this reader.
                guard !FileManager.default.fileExists(atPath: path + "-wal") else {
                    throw StoreError(.readOnly, """
                        opening \(path) for reading: it has a write-ahead log (\(path)-wal) but no -shm file, and none can be \
                        made in its folder, so its last saves cannot be read safely; open it once where its folder can be \
                        written (that folds the log into the store), or copy the three files to a writable folder
                        """)
                }
                let uri = "file:" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path) + "?immutable=1"
                return (try open(uri), uri)
            }
        }
    }

    /// Closes every connection holding the write lock, so that the checkpoint SQLite runs when
    /// the last connection to the file closes happens under it too. That checkpoint needs an
    /// exclusive lock on the file, held only when no other connection exists anywhere, so it
    /// cannot race another writer even unlocked: the wait here is short (at most 1 s), and when
    /// the lock stays busy the connections close without it.
    deinit {
        guard let writeLock else { return }
        let writer = self.writer, observer = self.observer, readers = self.readers
        do {
            try writeLock.withLock(timeout: min(options.busyTimeout, 1), clock: options.clock, doing: "closing") {
                observer?.close()
                readers?.close()
                try writer.close()
            }
        } catch {
            SQLiteStore.logger.debug("closed without the write lock", metadata: ["path": "\(writeLock.storePath)", "reason": "\(error)"])
        }
    }

    /// The version of the SQLite library in use, e.g. `3.40.1`.
    public func sqliteVersion() throws -> String {
        try SQLiteStore.mapErrors("reading the SQLite version") {
            try writer.read { try String.fetchOne($0, sql: "SELECT sqlite_version()") ?? "unknown" }
        }
    }

    // MARK: Reading

    /// Runs `body` on a reading connection — in memory, on the writer's one connection — and
    /// maps errors as ``mapErrors(_:_:)``. Each statement reads the store as of its own start;
    /// `consistently` reads every statement from one snapshot (one read transaction).
    func read<T>(_ doing: @autoclosure () -> String, consistently: Bool = false, _ body: (any StatementSource) throws -> T) throws -> T {
        do {
            return try SQLiteStore.mapErrors(doing()) {
                if let readers {
                    return consistently ? try readers.readConsistently(body) : try readers.read(body)
                }
                return consistently ? try writer.read { try body($0) } : try writer.unsafeRead { try body($0) }
            }
        } catch let error as StoreError where error.code == .sqlite || error.code == .corruptValue {
            // A table or column gone, or a value of another type: the store may have been migrated.
            throw migratedSinceOpening() ?? error
        }
    }

    // MARK: Errors

    /// Runs `body`, turning GRDB's errors into ``StoreError``s that say what was being done,
    /// and the failure of a predicate function back into its ``ObjectPredicateError``. `doing`
    /// is made only for an error: interpolated at every read, it cost every fetch.
    static func mapErrors<T>(_ doing: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            if let failure = SQLFunctions.evaluationError(in: error.message) { throw failure }
            let doing = doing()
            switch error.resultCode {
            case .SQLITE_NOTADB:
                throw StoreError(.notATroveStore, "\(doing): the file is not an SQLite database")
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                throw StoreError(.busy, "\(doing): the store is locked by another connection (\(error.message ?? "busy")); another process is writing, try again")
            case .SQLITE_CONSTRAINT:
                throw StoreError(.constraintViolation, "\(doing): \(error.message ?? "constraint violated")")
            case .SQLITE_FULL:
                throw StoreError(.sqlite, "\(doing): the disk is full (SQLite: \(error.message ?? "database or disk is full"));"
                    + " nothing of this step was written: free some space and try again")
            case .SQLITE_READONLY:
                throw StoreError(.readOnly, "\(doing): the store cannot be written (SQLite: \(error.message ?? "readonly database"));"
                    + " it was opened for reading, or its file, its folder or the disk is read-only; give write access to"
                    + " the file and its folder to write")
            case .SQLITE_CANTOPEN:
                throw StoreError(.fileAccess, "\(doing): SQLite cannot open the store's files (\(error.message ?? "unable to open database file"));"
                    + " the file or its folder may be missing, unreadable or read-only — writing needs the folder writable for"
                    + " the -wal and -shm files; `trove query`, `count` and `inspect` read without it")
            case .SQLITE_IOERR:
                throw StoreError(.sqlite, "\(doing): SQLite could not read or write the store's files (disk I/O error,"
                    + " extended code \(error.extendedResultCode.rawValue)): the disk may be full or failing, or a file beside"
                    + " the store (its -wal or -shm file) was deleted or moved while the store was open; free space or put the"
                    + " files back, close every program using the store and open it again")
            default:
                throw StoreError(.sqlite, "\(doing): SQLite error \(error.resultCode.rawValue): \(error.message ?? "\(error)")")
            }
        }
    }
}
