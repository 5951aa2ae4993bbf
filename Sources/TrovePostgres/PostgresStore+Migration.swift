import Foundation
import PostgresNIO
public import TroveModel
public import TroveStore

/// Migration: a database's store to a new version of its model, by SQLite's migration engine.
///
/// The store is copied, row by row and with its keys, into an SQLite store file in the temporary
/// directory; ``SQLiteStore`` plans and runs the migration there, exactly as on a store file; and
/// the migrated tables replace the database's in one transaction. So the two stores migrate by
/// one engine, with the same steps, blockers and results, at the cost of two copies of the data.
/// A migration that only adds or renames attributes copies no row:
/// the engine plans it on a scratch file holding the metadata alone, and the database's tables
/// are altered in place.
extension PostgresStore {
    /// Plans the migration of the store at `location` to `model` without changing anything: the
    /// steps, the rows they rewrite and what blocks it (see ``SQLiteStore/migrationPlan(forStoreAt:to:)``).
    ///
    /// It reads one snapshot of the store into a scratch file in the temporary directory
    /// (`TMPDIR`, which needs room for a copy of the data, unless the change only adds), and
    /// takes no lock.
    /// - Throws: ``StoreError`` when the store cannot be read, or the scratch file written.
    public static func migrationPlan(at location: PostgresLocation, to model: Model) throws -> InferredMigration {
        let store = try PostgresStore(location: location)
        return try SQLiteStore.withScratchFolder { folder in
            let file = folder.appendingPathComponent("migrating.trove")
            try store.copyRows(toSQLiteAt: file, includingRows: additionSQL(from: store.model, to: model) == nil)
            return try store.naming(file) { try SQLiteStore.migrationPlan(forStoreAt: file, to: model) }
        }
    }

    /// Migrates the store at `location` to `model` in one transaction holding its write lock:
    /// either every step lands, with the new model and an entry of the version history, or none
    /// does and the database is as it was.
    ///
    /// The write lock is held from the first read to the commit, so no save of another process
    /// is lost; their saves wait meanwhile. A store opened with the old model in another process
    /// is refused its next save (``StoreError/Code/modelMismatch``): open it again with the new
    /// model. Unless `keepingBackup` is `false`, the old tables (and their sequences and
    /// metadata) are moved into a schema `trove_backup_<stored model hash>` (`_2`, `_3`, … when
    /// that exists) rather than dropped. `progress` reports the rows the migration writes in the
    /// scratch file, as ``SQLiteStore/migrate(storeAt:to:keepingBackup:progress:)`` does.
    /// A store already made with `model` is left as it is (the outcome has no steps).
    ///
    /// A migration that only adds — attributes and relationships that are optional and have no
    /// default, new entities (not in an existing hierarchy) — or renames attributes copies
    /// nothing: the tables are altered in place (`ALTER TABLE … ADD COLUMN`,
    /// `RENAME COLUMN`, `CREATE TABLE`), which changes no stored row, so no backup is kept either
    /// (``MigrationOutcome/backupSchema`` is `nil`).
    ///
    /// It needs the right to create schemas (for the backup) and room in the temporary directory
    /// (`TMPDIR`) for a copy of the data.
    /// - Throws: ``StoreError`` `.migrationBlocked` listing the blockers when the plan has any
    ///   (nothing changes); other store errors.
    @discardableResult
    public static func migrate(at location: PostgresLocation, to model: Model, keepingBackup: Bool = true,
                               progress: MigrationProgress.Handler? = nil) throws -> MigrationOutcome {
        try migrate(at: location, to: model, keepingBackup: keepingBackup, inPlace: true) { file in
            try SQLiteStore.migrate(storeAt: file, to: model, keepingBackup: false, progress: progress)
        }
    }

    /// Migrates the store at `location` through the stages of `plan`, from the version it has
    /// to the newest, as ``SQLiteStore/migrate(storeAt:using:keepingBackup:progress:)`` migrates a
    /// file: the stages' code runs over the scratch file's rows. The rest is as
    /// ``migrate(at:to:keepingBackup:progress:)`` does it: one transaction under the write lock,
    /// the old tables kept in a backup schema unless `keepingBackup` is `false`.
    /// - Throws: ``StoreError`` `.modelMismatch` when the plan does not list the store's model,
    ///   `.migrationBlocked` when a stage is blocked, what a stage's code throws (nothing changes
    ///   in any of these cases), other store errors.
    @discardableResult
    public static func migrate(at location: PostgresLocation, using plan: ModelMigrationPlan, keepingBackup: Bool = true,
                               progress: MigrationProgress.Handler? = nil) throws -> MigrationOutcome {
        try migrate(at: location, to: plan.newest, keepingBackup: keepingBackup, inPlace: false) { file in
            try SQLiteStore.migrate(storeAt: file, using: plan, keepingBackup: false, progress: progress)
        }
    }

    /// Copies the store at `location` into a scratch file under its write lock, migrates the
    /// file to `model` with `migrateFile`, and replaces the store's tables with the file's; or,
    /// when `inPlace` allows it and the change only adds, copies the metadata alone and alters
    /// the tables.
    private static func migrate(at location: PostgresLocation, to model: Model, keepingBackup: Bool, inPlace: Bool,
                                _ migrateFile: (URL) throws -> MigrationOutcome) throws -> MigrationOutcome {
        let store = try PostgresStore(location: location)
        guard store.model.fileData() != model.fileData() else {
            // Nothing to do: no need to copy the data to find out.
            return .nothingToDo(for: model)
        }
        let additions = inPlace ? additionSQL(from: store.model, to: model) : nil
        return try store.writingExclusively {
            try SQLiteStore.withScratchFolder { folder in
                let file = folder.appendingPathComponent("migrating.trove")
                let copied = try store.copyRows(toSQLiteAt: file, includingRows: additions == nil)
                let outcome = try store.naming(file) { try migrateFile(file) }
                let migrated = try SQLiteStore(url: file, model: model, options: SQLiteStore.Options(readOnly: true))
                // The history grows when a stage changed rows or tables, or ran code.
                guard try migrated.metadata()[SQLiteStore.historyKey] != copied[SQLiteStore.historyKey] else {
                    // The same model but for its text (hints, rules), as opening with it would keep.
                    try store.transaction("keeping the model of \(location)") {
                        try store.writeMetadata(["trove.model": String(decoding: model.fileData(), as: UTF8.self)])
                    }
                    return outcome
                }
                if let additions {
                    try store.alterTables(additions, metadata: migrated.metadata())
                    return MigrationOutcome(stages: outcome.stages, backupURL: nil, backupSchema: nil)
                }
                let backup = try store.replaceTables(with: migrated, keepingBackup: keepingBackup)
                return MigrationOutcome(stages: outcome.stages, backupURL: nil, backupSchema: backup)
            }
        }
    }

    /// Runs `body`, which works on the scratch file `file`, with `file` named as this store in
    /// the messages of its errors.
    private func naming<T>(_ file: URL, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw StoreError(error.code, error.message.replacingOccurrences(of: file.path, with: "\(location)"))
        }
    }

    // MARK: Copying

    /// The rows a `FETCH` from a copy's cursor takes.
    private static let copyChunk = 5000

    /// Copies every row (unless `includingRows` is `false`), the last key of each table and the
    /// metadata, read in one snapshot, into a new SQLite store of this store's model at `url`;
    /// returns the metadata copied.
    @discardableResult
    private func copyRows(toSQLiteAt url: URL, includingRows: Bool) throws -> [String: String] {
        let copy = try SQLiteStore(url: url, model: model, options: SQLiteStore.Options(durability: .normal))
        return try run("copying \(location) into a scratch file for its migration") {
            try query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do {
                for table in schema.transferTables where includingRows {
                    let columns = table.columns.map { quoted($0.name) }.joined(separator: ", ")
                    try query("DECLARE \"rows\" NO SCROLL CURSOR FOR SELECT \(columns) FROM \(quoted(table.name))")
                    while true {
                        let rows = try query("FETCH \(Self.copyChunk) FROM \"rows\"").rows
                        if rows.isEmpty { break }
                        try copy.appendRows(try rows.map { try values(of: $0, in: table) }, to: table)
                    }
                    try query("CLOSE \"rows\"")
                }
                var lastKeys: [String: Int64] = [:]
                for table in schema.tables {
                    let row = try query("SELECT last_value, is_called FROM \(quoted(Self.sequence(of: table.name)))").rows.first
                    guard let (last, isCalled) = try row?.decode((Int64, Bool).self) else { continue }
                    lastKeys[table.name] = isCalled ? last : last - 1
                }
                let rows = try query("SELECT key, value FROM \(quoted(Self.metadataTable))").rows
                let metadata = Dictionary(try rows.map { try $0.decode((String, String).self) }, uniquingKeysWith: { _, last in last })
                try copy.restore(lastKeys: lastKeys, metadata: metadata)
                try query("COMMIT")
                return metadata
            } catch {
                _ = try? query("ROLLBACK")  // The copy's error is the one to report; nothing was written.
                throw error
            }
        }
    }

    /// A row's cells as values of `table`'s columns.
    private func values(of row: PostgresRow, in table: TransferTable) throws -> [AttributeValue] {
        try zip(row, table.columns).map { cell, column in
            guard let value = PostgresValues.read(cell, as: column.type) else {
                throw StoreError(.corruptValue, "the table \(table.name) of \(location) holds \(PostgresValues.describe(cell)) in its column"
                    + " \(column.name), which is of type \(column.type.rawValue); fix or delete that row")
            }
            return value
        }
    }

    /// Runs `statements` (``additionSQL(from:to:)``'s) and replaces the metadata with
    /// `metadata` (the migrated scratch store's), in one transaction that checks the database
    /// still has this store's model, and raises the change counter.
    private func alterTables(_ statements: [String], metadata: [String: String]) throws {
        var metadata = metadata
        metadata["trove.formatVersion"] = String(Self.formatVersion)
        try transaction("migrating \(location) in place") {
            for sql in statements { try query(sql) }
            try query("DELETE FROM \(quoted(Self.metadataTable))")
            try writeMetadata(metadata)
            _ = try raiseCounter()
        }
    }

    /// Replaces this store's tables with those of `source`, the migrated scratch store, in one
    /// transaction: the old ones moved into a backup schema, whose name it returns, or dropped.
    /// The change counter goes on from the old one, raised by one.
    private func replaceTables(with source: SQLiteStore, keepingBackup: Bool) throws -> String? {
        var metadata = try source.metadata()
        metadata["trove.formatVersion"] = String(Self.formatVersion)
        let lastKeys = try source.lastKeys()
        let newSchema = StoreSchema(model: source.model)
        return try transaction("migrating \(location)", checkingModel: false) {
            let counter = try query("SELECT counter FROM \(quoted(Self.changesTable))").rows.first?.decode(Int64.self) ?? 0
            let tables = schema.transferTables.map(\.name) + [Self.metadataTable, Self.changesTable]
            let sequences = schema.tables.map { Self.sequence(of: $0.name) }
            var backup: String?
            if keepingBackup {
                let name = try newBackupSchema()
                try query("CREATE SCHEMA \(quoted(name))")
                for table in tables { try query("ALTER TABLE \(quoted(table)) SET SCHEMA \(quoted(name))") }
                for sequence in sequences { try query("ALTER SEQUENCE \(quoted(sequence)) SET SCHEMA \(quoted(name))") }
                backup = name
            } else {
                try query("DROP TABLE \(tables.map(quoted).joined(separator: ", ")) CASCADE")
                if !sequences.isEmpty { try query("DROP SEQUENCE \(sequences.map(quoted).joined(separator: ", "))") }
            }
            // Indexes and foreign keys after the rows: built and checked once, not row by row.
            for sql in Self.tableSQL(for: newSchema) { try query(sql) }
            for table in newSchema.transferTables {
                let insert = TransferInsert(table)
                try source.readRows(of: table, chunk: Self.copyChunk) { rows in try query(try insert.statement(rows)) }
            }
            for sql in Self.indexSQL(for: newSchema) { try query(sql) }
            for table in newSchema.tables {
                guard let last = lastKeys[table.name], last > 0 else { continue }
                try query("SELECT setval($1::regclass, $2)", [.string(quoted(Self.sequence(of: table.name))), .integer(last)])
            }
            try query("DELETE FROM \(quoted(Self.metadataTable))")
            try writeMetadata(metadata.mapValues { $0 })
            try query("UPDATE \(quoted(Self.changesTable)) SET counter = $1", [.integer(counter)])
            _ = try raiseCounter()
            return backup
        }
    }

    /// A name for a new backup schema: `trove_backup_` and the start of the model's hash, then
    /// `_2`, `_3`, … while a schema of that name exists. Callers hold `lock`.
    private func newBackupSchema() throws -> String {
        let base = "trove_backup_" + model.versionHash.prefix(16).lowercased()
        var name = base
        var n = 1
        while try !query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [.string(name)]).rows.isEmpty {
            n += 1
            name = "\(base)_\(n)"
        }
        return name
    }
}

/// The INSERT of a transfer table's rows into a new table: one array parameter a column, text
/// forms made for each text attribute.
private struct TransferInsert {
    let table: TransferTable
    /// Per column, its element type and whether it keeps text forms.
    let elements: [(element: PostgresColumnArray.Element, hasForms: Bool)]
    let sql: String

    init(_ table: TransferTable) {
        self.table = table
        var names: [String] = []
        var elements: [(PostgresColumnArray.Element, Bool)] = []
        var casts: [String] = []
        for column in table.columns {
            let element = PostgresColumnArray.Element(column.type)
            let hasForms = column.isAttribute && TextForm.applies(to: column.type)
            elements.append((element, hasForms))
            names.append(column.name)
            casts.append(element.sqlCast)
            guard hasForms else { continue }
            for form in TextForm.allCases {
                names.append(form.column(of: column.name))
                casts.append(PostgresColumnArray.Element.text.sqlCast)
            }
        }
        self.elements = elements
        sql = "INSERT INTO \(quoted(table.name)) (\(names.map(quoted).joined(separator: ", "))) SELECT "
            + casts.enumerated().map { "unnest($\($0.offset + 1)\($0.element))" }.joined(separator: ", ")
    }

    /// The statement inserting `rows`, its values bound.
    func statement(_ rows: [[AttributeValue]]) throws -> PostgresQuery {
        var bindings = PostgresBindings(capacity: elements.count)
        for array in try PostgresColumnArray.inHalves(rows, arrays) ?? [] { bindings.append(array) }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    /// The array parameters of `rows`, one a column.
    private func arrays(_ rows: ArraySlice<[AttributeValue]>) throws -> [PostgresColumnArray] {
        var arrays: [PostgresColumnArray] = []
        for (element, hasForms) in elements {
            arrays.append(PostgresColumnArray(element, capacity: rows.count))
            if hasForms { arrays += TextForm.allCases.map { _ in PostgresColumnArray(.text, capacity: rows.count) } }
        }
        for row in rows {
            var array = 0
            for ((_, hasForms), (value, column)) in zip(elements, zip(row, table.columns)) {
                try append(value, to: &arrays[array], column.name)
                array += 1
                guard hasForms else { continue }
                for (form, formed) in zip(TextForm.allCases, TextForm.values(of: value)) {
                    try append(formed, to: &arrays[array], form.column(of: column.name))
                    array += 1
                }
            }
        }
        return arrays
    }

    private func append(_ value: AttributeValue, to array: inout PostgresColumnArray, _ column: String) throws {
        guard try array.append(value) else {
            throw StoreError(.corruptValue, "the migrated table \(table.name) holds \(value) in its column \(column), which PostgreSQL's column"
                + " cannot take; nothing was changed")
        }
    }
}
