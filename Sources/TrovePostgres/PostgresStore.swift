import Foundation
import Logging
import NIOCore
import NIOPosix
package import PostgresNIO
public import TroveModel
public import TroveStore

/// A store in a PostgreSQL database: the store to choose when several processes on several
/// machines share one object graph.
///
/// It keeps the model in tables laid out as ``SQLiteStore`` lays them out (one table per entity
/// hierarchy, join tables for many-to-many and ordered relationships), with the column types
/// ``PostgresValues`` lists. Saves run in one transaction each, check each row's version, and are
/// serialized across every process writing the database (a transaction-scoped advisory lock), as
/// SQLite's file lock serializes them: optimistic locking, merge policies and unique keys behave
/// as on SQLite.
///
/// Calls block their thread until the server answers, as ``SQLiteStore``'s block on the disk:
/// use the store from a context's executor (never from a SwiftNIO event loop). One store writes
/// on one connection, one statement at a time, and reads on connections of their own (up to
/// `maximumReaderCount`, opened as reads need them): contexts sharing the store read at once, an
/// import reads its next batch's rows ahead (``fetchAhead(_:attributes:keys:)``) and takes its
/// keys (``stageSave(_:)``) while a save runs, and no read waits for a save.
public final class PostgresStore: PersistentStore, @unchecked Sendable {  // @unchecked: `connection` is used only under `lock`.
    public let model: Model
    /// Where the store lives (its description never shows the password).
    public let location: PostgresLocation
    /// The tables the model is kept in.
    let schema: StoreSchema
    /// How to read each table's rows, by table name (made once).
    let readPlans: [String: PostgresReadPlan]
    /// Numbers this open store's change tokens.
    let storeID = StoreChangeToken.nextStoreID()
    /// Held around every use of `connection`; recursive, because ``writingExclusively(_:)``
    /// saves inside its body.
    let lock = NSRecursiveLock()
    /// The connection the store writes on: opened again when the server or the network closed
    /// it (``reopenIfClosed()``).
    private var connection: PostgresConnection
    /// How many ``writingExclusively(_:)`` calls are running (under `lock`): their session lock
    /// goes with the connection, so the connection is not opened again under them.
    private var exclusiveDepth = 0
    /// The connections the store reads on.
    let readers: PostgresReaders
    static let logger: Logger = {
        var logger = Logger(label: "trove.postgres")
        logger.logLevel = .warning
        return logger
    }()

    /// The layout this Trove writes (`trove.formatVersion` in the metadata).
    /// Format 2 added the text forms (``TextForm``): a format-1 store is refused.
    static let formatVersion = 2
    /// The table of free key/value metadata, as SQLite's store has it.
    static let metadataTable = "_trove_metadata"
    /// The one-row table whose counter every save raises: the change token.
    static let changesTable = "_trove_changes"
    /// The key of the advisory lock every save holds for its transaction: one per database, and
    /// one per scratch copy (whose saves need not wait for the database's writers).
    var writeLockKey: Int64 {
        let key: Int64 = 0x7472_6F76_6501  // "trove" + 1
        guard let schema = location.schema else { return key }
        // FNV-1a of the schema's name: the same in every process.
        let hash = schema.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        return key ^ Int64(bitPattern: hash)
    }

    /// Opens the store at `location` made with `model`, creating its tables in an empty database.
    ///
    /// Reads run on connections of their own, at most `maximumReaderCount` at once (GRDB's
    /// `DatabasePool` default): a read beyond it waits for one to end. The store opens one
    /// connection to write on, and as many to read on as reads at once need.
    /// - Throws: ``StoreError`` — ``StoreError/Code/unreachable`` when the server cannot be
    ///   reached or refuses the credentials; ``StoreError/Code/modelMismatch`` when the database
    ///   holds a store of another model; ``StoreError/Code/notATroveStore`` when it holds tables
    ///   that are not a Trove store's.
    public init(location: PostgresLocation, model: Model, maximumReaderCount: Int = 5) throws {
        self.location = location
        self.model = model
        self.readers = PostgresReaders(location: location, limit: maximumReaderCount)
        let schema = StoreSchema(model: model)
        self.schema = schema
        self.readPlans = Dictionary(uniqueKeysWithValues: try schema.tables.map {
            ($0.name, try PostgresReadPlan(table: $0, schema: schema, model: model))
        })
        self.connection = try Self.connect(to: location)
        do {
            try prepare()
        } catch {
            try? connection.close().wait()  // The open failed already; its error is the one to report.
            throw error
        }
    }

    /// Opens the store at a `postgres://` URL (see ``PostgresLocation``) made with `model`.
    public convenience init(url: String, model: Model) throws {
        try self.init(location: PostgresLocation(url), model: model)
    }

    /// Opens an existing store at `location` with the model it was created with.
    /// - Throws: ``StoreError/Code/notFound`` when the database holds no Trove store.
    public convenience init(location: PostgresLocation) throws {
        let connection = try Self.connect(to: location)
        defer { try? connection.close().wait() }  // A connection used for one query; a failed close loses nothing.
        let metadata = try Self.run("reading the model of \(location)", location: location) {
            try Self.readMetadata(connection)
        }
        guard let text = metadata?["trove.model"] else {
            throw StoreError(.notFound, "\(location) holds no Trove store; create one with a model (trove init --model MODEL.json \(location))")
        }
        let model: Model
        do {
            model = try Model(fileData: Data(text.utf8))
        } catch {
            throw StoreError(.corruptValue, "the model kept in \(location) does not load (\(error)); open the store with its model file")
        }
        try self.init(location: location, model: model)
    }

    deinit {
        // Nothing is pending; a close that fails leaves nothing behind.
        try? connection.close().wait()
        readers.close()
    }

    // MARK: Connection

    /// A new connection to `location`, blocking until it is open.
    /// - Throws: ``StoreError`` (see ``connectionError(_:_:)``).
    static func connect(to location: PostgresLocation) throws -> PostgresConnection {
        do {
            return try connecting(to: location).wait()
        } catch {
            throw connectionError(error, location)
        }
    }

    /// A connection to `location` being opened, its `search_path` set to the location's schema.
    static func connecting(to location: PostgresLocation) -> EventLoopFuture<PostgresConnection> {
        let configuration: PostgresConnection.Configuration
        if let folder = location.socketFolder {
            configuration = .init(unixSocketPath: "\(folder)/.s.PGSQL.\(location.port)", username: location.user,
                                  password: location.password, database: location.database)
        } else {
            configuration = .init(host: location.host ?? "localhost", port: location.port, username: location.user,
                                  password: location.password, database: location.database, tls: .disable)
        }
        let opening = PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration,
                                                 id: 1, logger: logger)
        guard let schema = location.schema else { return opening }
        return opening.flatMap { connection in
            connection.query(PostgresQuery(unsafeSQL: "SET search_path TO \(quoted(schema))"), logger: logger)
                .map { _ in connection }
                // The setting's error is the one to report.
                .flatMapError { error in connection.close().flatMapThrowing { throw error } }
        }
    }

    /// The ``StoreError`` of a connection to `location` that could not be opened.
    static func connectionError(_ error: any Error, _ location: PostgresLocation) -> StoreError {
        guard sqlState(of: error) != "3D000" else {
            return StoreError(.notFound, "the server has no database \(location.database) (\(location)); create it: trove init \(location) --model MODEL.json, or PostgresStore.createDatabase(at:)")
        }
        return StoreError(.unreachable, "could not connect to \(location): \(describe(error)); check that the server runs and the host, port, user, password and database are right")
    }

    /// Runs `sql` with `values` bound as `$1`, `$2`, … and returns its rows and the number of
    /// rows it changed. Callers hold `lock`.
    @discardableResult
    package func query(_ sql: String, _ values: [AttributeValue] = []) throws -> (rows: [PostgresRow], changed: Int) {
        try query(Self.statement(sql, values))
    }

    /// `sql` with `values` bound, in order, to its parameters.
    static func statement(_ sql: String, _ values: [AttributeValue]) throws -> PostgresQuery {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { try PostgresValues.bind(value, to: &bindings) }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    /// Runs a statement whose values are bound already (made before taking `lock`, see
    /// ``save(_:)``) and returns its rows and the number of rows it changed. Callers hold `lock`.
    @discardableResult
    func query(_ statement: PostgresQuery) throws -> (rows: [PostgresRow], changed: Int) {
        let result = try connection.answer(statement)
        return (result.rows, result.metadata.rows ?? 0)
    }

    /// Runs `body` on a reading connection (see ``PostgresReaders``), turning the server's and
    /// the driver's errors into ``StoreError``s that say what was being done.
    func read<T>(_ doing: String, _ body: (PostgresConnection) throws -> T) throws -> T {
        try Self.run(doing, location: location) { try readers.read(body) }
    }

    /// Runs `body` holding the connection, turning the server's and the driver's errors into
    /// ``StoreError``s that say what was being done.
    package func run<T>(_ doing: String, _ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try Self.run(doing, location: location) {
            try reopenIfClosed()
            return try body()
        }
    }

    /// Opens the writing connection again when the server or the network closed it (a restart,
    /// a failover, an idle timeout): the call that met it closed failed, the next one writes.
    /// Callers hold `lock`.
    /// - Throws: ``StoreError/Code/unreachable`` inside ``writingExclusively(_:)``, whose write
    ///   lock ended with the connection; the error of opening a connection.
    private func reopenIfClosed() throws {
        guard connection.isClosed else { return }
        guard exclusiveDepth == 0 else {
            throw StoreError(.unreachable, "the connection to \(location) that held the write lock was closed, and the lock with it;"
                + " run the work that needed it again")
        }
        connection = try Self.connect(to: location)
    }

    /// Runs `body` in one transaction holding the write lock: all of it or nothing.
    ///
    /// Unless `checkingModel` is `false`, it first checks, under the lock, that the database
    /// still keeps this store's model: another process may have migrated it since this store
    /// opened (``migrate(at:to:keepingBackup:progress:)``), and its tables are then other ones.
    /// - Throws: ``StoreError/Code/modelMismatch`` when it was migrated; what `body` throws.
    func transaction<T>(_ doing: String, checkingModel: Bool = true, _ body: () throws -> T) throws -> T {
        try run(doing) {
            try query("BEGIN")
            do {
                try query("SELECT pg_advisory_xact_lock($1)", [.integer(writeLockKey)])
                // A statement of its own: a statement's snapshot is taken before it waits for the lock.
                if checkingModel { try checkModelUnchanged(doing) }
                let result = try body()
                try query("COMMIT")
                return result
            } catch {
                _ = try? query("ROLLBACK")  // The transaction's error is the one to report; the server rolls back a broken one anyway.
                throw error
            }
        }
    }

    /// Throws ``StoreError/Code/modelMismatch`` when the database keeps another model than this
    /// store's. Callers hold `lock`, in a transaction holding the write lock.
    private func checkModelUnchanged(_ doing: String) throws {
        let sql = "SELECT value FROM \(quoted(Self.metadataTable)) WHERE key = 'trove.modelHash'"
        let stored = try query(sql).rows.first?.decode(String.self)
        guard let stored, stored != model.versionHash else { return }
        throw StoreError(.modelMismatch, "\(doing): \(location) was migrated to model \(stored) since this store opened it with model"
            + " \(model.versionHash); nothing was written: open the store again with the new model")
    }

    /// Runs `body`, turning the server's and the driver's errors into ``StoreError``s that say
    /// what was being done, and where (`location`).
    static func run<T>(_ doing: String, location: PostgresLocation, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch let error as ConflictError {
            throw error
        } catch let error as DeniedDeleteError {
            throw error
        } catch is PostgresValues.NULInText {
            throw StoreError(.constraintViolation, "\(doing): a string holds the NUL character, which PostgreSQL's text cannot keep; remove it before saving")
        } catch let error as PSQLError {
            let state = error.serverInfo?[.sqlState] ?? ""
            let detail = describe(error)
            switch state {
            case "23505", "23503", "23502", "23514":
                throw StoreError(.constraintViolation, "\(doing) broke a constraint of the store (\(detail)); another object has the same unique key — fetch and update that object instead of inserting a new one")
            case "":
                throw StoreError(.unreachable, "\(doing): \(detail) (server \(location))")
            default:
                throw StoreError(.server, "\(doing): the server \(location) reported \(detail)")
            }
        } catch {
            throw StoreError(.unreachable, "\(doing): \(describe(error)) (server \(location))")
        }
    }

    /// The SQLSTATE of a server's error; `nil` for any other error.
    static func sqlState(of error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// The server's message and SQLSTATE, or the driver's error and what caused it (a refused
    /// connection, a host name that does not resolve).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let info = error.serverInfo, let message = info[.message] {
            return "\(message) [SQLSTATE \(info[.sqlState] ?? "?")]"
        }
        return "\(error.code)" + (error.underlying.map { " (\($0))" } ?? "")
    }

    // MARK: Opening

    /// Creates the tables in an empty database, or checks the store there was made with this model.
    private func prepare() throws {
        let modelText = String(decoding: model.fileData(), as: UTF8.self)
        try transaction("opening \(location)", checkingModel: false) {
            guard let metadata = try Self.readMetadata(connection) else {
                let existing = try query("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()").rows.first
                if let count = try existing?.decode(Int64.self), count > 0 {
                    throw StoreError(.notATroveStore, "\(location) holds \(count) tables but no Trove store (no \(Self.metadataTable) table); use an empty database")
                }
                for sql in Self.creationSQL(for: schema) { try query(sql) }
                try writeMetadata(["trove.formatVersion": String(Self.formatVersion), "trove.modelHash": model.versionHash,
                                   "trove.model": modelText, "trove.createdAt": Date().formatted(.iso8601)].mapValues { $0 })
                return
            }
            if metadata["trove.formatVersion"] == "1" {
                throw StoreError(.unsupportedFormat, "\(location) has a store of format 1, made before text forms were kept for [c], [d] and string sorts; export its objects, create the store again and import them")
            }
            guard let version = metadata["trove.formatVersion"].flatMap(Int.init), version <= Self.formatVersion else {
                throw StoreError(.unsupportedFormat, "\(location) has a store of format \(metadata["trove.formatVersion"] ?? "?"), this Trove reads up to \(Self.formatVersion); use a newer Trove")
            }
            let storedHash = metadata["trove.modelHash"] ?? ""
            guard storedHash == model.versionHash else {
                let differences = metadata["trove.model"].flatMap { try? Model(fileData: Data($0.utf8)) }.map { model.differences(from: $0) } ?? []
                let list = differences.isEmpty ? "" : "\n" + differences.map { "  - \($0)" }.joined(separator: "\n")
                throw StoreError(.modelMismatch, "\(location) was created with another model (version hash \(storedHash), this model's is \(model.versionHash)); open it with that model\(list)")
            }
            if metadata["trove.model"] != modelText { try writeMetadata(["trove.model": modelText]) }
        }
    }

    /// The metadata table's rows, or `nil` when the database has no such table.
    private static func readMetadata(_ connection: PostgresConnection) throws -> [String: String]? {
        let exists = try connection.answer("SELECT to_regclass(\(metadataTable))::text").rows.first
        guard (try exists?.decode(String?.self)) != nil else { return nil }
        let rows = try connection.answer(PostgresQuery(unsafeSQL: "SELECT key, value FROM \(quoted(metadataTable))")).rows
        var metadata: [String: String] = [:]
        for row in rows {
            let (key, value) = try row.decode((String, String).self)
            metadata[key] = value
        }
        return metadata
    }

    /// Sets each key to its value, or removes it where the value is `nil`. Callers hold `lock`.
    func writeMetadata(_ changes: [String: String?]) throws {
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let value {
                try query("INSERT INTO \(quoted(Self.metadataTable)) (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                          [.string(key), .string(value)])
            } else {
                try query("DELETE FROM \(quoted(Self.metadataTable)) WHERE key = $1", [.string(key)])
            }
        }
    }

    // MARK: PersistentStore: metadata, tokens, locks

    public func metadata() throws -> [String: String] {
        try read("reading the metadata of \(location)") { try Self.readMetadata($0) ?? [:] }
    }

    /// The token of the last save committed, read on a reading connection, so that it never
    /// waits for a save in progress; it sees every save committed before the call.
    public func changeToken() throws -> StoreChangeToken {
        let sql = PostgresQuery(unsafeSQL: "SELECT counter FROM \(quoted(Self.changesTable))")
        let row = try read("reading the change token of \(location)") { try $0.answer(sql).rows.first }
        return StoreChangeToken(storeID: storeID, version: try row?.decode(Int64.self) ?? 0)
    }

    /// The server's version, as `SHOW server_version` gives it (`16.4`, or with the
    /// distribution's suffix).
    public func serverVersion() throws -> String {
        try read("reading the server version of \(location)") {
            try $0.answer("SHOW server_version").rows.first?.decode(String.self) ?? "?"
        }
    }

    /// Runs `body` holding the write lock every save takes (a session-level advisory lock of
    /// the same key), so that no other process's save commits between its reads and its saves.
    /// The store's other users in this process wait meanwhile: they share its connection.
    /// - Throws: what `body` throws; ``StoreError/Code/unreachable`` from a write in `body` when
    ///   the connection ended meanwhile, and the lock with it (the store is not connected again
    ///   until `body` returns).
    public func writingExclusively<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        _ = try run("taking the write lock of \(location)") {
            try query("SELECT pg_advisory_lock($1)", [.integer(writeLockKey)])
        }
        exclusiveDepth += 1
        defer {
            exclusiveDepth -= 1
            // An unlock that fails leaves the lock to the connection's end (the server frees it
            // then); other processes' saves wait until then, so say so. A closed connection's
            // lock has ended with it.
            if !connection.isClosed {
                do {
                    _ = try run("freeing the write lock of \(location)") {
                        try query("SELECT pg_advisory_unlock($1)", [.integer(writeLockKey)])
                    }
                } catch {
                    Self.logger.warning("could not free the write lock of \(location): \(error); other writers wait until this store closes")
                }
            }
        }
        return try body()
    }
}

extension PostgresStore {
    /// Creates the database `location` names, connecting to the server's `postgres` database
    /// (as `createdb` does); the user needs the right to create databases.
    /// - Throws: ``StoreError/Code/alreadyExists`` when it exists, ``StoreError/Code/unreachable``
    ///   when the server cannot be reached.
    public static func createDatabase(at location: PostgresLocation) throws {
        do {
            try administer("CREATE DATABASE \(quoted(location.database))", on: location)
        } catch let error as StoreError where error.message.contains("42P04") {
            throw StoreError(.alreadyExists, "the database \(location) exists already; open it, or name another")
        }
    }

    /// Creates the database `location` names when the server has none of that name (see
    /// ``createDatabase(at:)``), and says whether it did. A database that exists is left as it
    /// is, and then the user needs no right to create databases.
    /// - Throws: ``StoreError/Code/unreachable`` when the server cannot be reached;
    ///   ``StoreError/Code/server`` when the user may not create the missing database.
    public static func createDatabaseIfMissing(at location: PostgresLocation) throws -> Bool {
        let found = try administer("SELECT 1 FROM pg_database WHERE datname = $1", [.string(location.database)], on: location)
        guard found == 0 else { return false }
        do {
            try createDatabase(at: location)
            return true
        } catch let error as StoreError where error.code == .alreadyExists {
            return false  // Another process created it meanwhile.
        }
    }

    /// Runs one statement on the server's `postgres` database and returns how many rows it
    /// gave: for creating, finding and dropping databases, which no transaction may hold.
    @discardableResult
    package static func administer(_ sql: String, _ values: [AttributeValue] = [], on location: PostgresLocation) throws -> Int {
        let maintenance = location.database("postgres")
        let connection = try connect(to: maintenance)
        defer { try? connection.close().wait() }  // Used for one statement; a failed close loses nothing.
        return try run("running \(sql)", location: maintenance) {
            var bindings = PostgresBindings(capacity: values.count)
            for value in values { try PostgresValues.bind(value, to: &bindings) }
            return try connection.answer(PostgresQuery(unsafeSQL: sql, binds: bindings)).rows.count
        }
    }
}
