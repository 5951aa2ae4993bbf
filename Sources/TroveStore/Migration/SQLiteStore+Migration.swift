public import Foundation
import GRDB
public import TroveModel

/// What opening a store that was made with another model does (``SQLiteStore/Options/migration``).
public enum MigrationPolicy: Sendable, Hashable {
    /// Refuse with ``StoreError/Code/modelMismatch`` (the default): nothing changes until asked.
    case refuse
    /// Migrate by inference (see ``InferredMigration``) when nothing blocks it, after copying
    /// the store to `STORE.backup-<stored model hash>` unless `keepingBackup` is `false`.
    case inferred(keepingBackup: Bool)
}

/// Migration: planning, running, and the model version history.
extension SQLiteStore {
    /// The metadata key of the model version history (JSON, oldest first).
    static let historyKey = "trove.modelHistory"

    /// Plans the migration of the store at `url` to `model` without changing anything: the
    /// steps, their cost and what blocks it. Reads the store (for counts of nil values, duplicates
    /// and values that must fit) on a read-only connection.
    /// - Throws: ``StoreError`` when the store cannot be read or is not a Trove store.
    public static func migrationPlan(forStoreAt url: URL, to model: Model) throws -> InferredMigration {
        let (reader, _) = try openForReading(at: url, options: Options(readOnly: true))
        return try mapErrors("planning the migration of \(url.path)") {
            try reader.read { db in
                let stored = try storedModel(in: db, place: url.path)
                return try planned(db, from: stored, to: model).migration
            }
        }
    }

    /// Migrates the store at `url` to `model` in one transaction, holding its write lock: either
    /// every step lands, with the new model and an entry of the version history, or none does.
    ///
    /// Unless `keepingBackup` is `false`, the store is first copied (SQLite's `VACUUM INTO`, under
    /// the write lock) to `STORE.backup-<stored model hash>` (`-2`, `-3`, … when that exists).
    /// A store already made with `model` is left as it is (the outcome has no steps).
    /// - Throws: ``StoreError`` `.migrationBlocked` listing the blockers when the plan has any
    ///   (nothing changes), `.busy` when another process writes, other store errors.
    @discardableResult
    public static func migrate(storeAt url: URL, to model: Model, keepingBackup: Bool = true) throws -> MigrationOutcome {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StoreError(.notFound, "no store at \(url.path); create one with `trove init \(url.path) --model MODEL.json`")
        }
        let options = Options()
        let lock = try WriteLock(storePath: url.path)
        let pool = try openPool(at: url, options: options, lock: lock)
        return try mapErrors("migrating \(url.path)") {
            try lock.withLock(timeout: options.busyTimeout, clock: options.clock, doing: "migrating \(url.path)") {
                let outcome = try pool.writeWithoutTransaction { db in
                    try migrateIfNeeded(db, url: url, to: model, keepingBackup: keepingBackup)
                        ?? MigrationOutcome(migration: InferredMigration(fromVersion: model.versionHash, toVersion: model.versionHash,
                                                                         steps: [], blockers: [], rowsRewritten: 0), backupURL: nil)
                }
                try pool.close()
                return outcome
            }
        }
    }

    /// The models this store has had, oldest first: the one it was created with, then one entry
    /// per migration. A store made before the history was kept starts with its current model.
    /// - Throws: ``StoreError/Code/corruptValue`` when the recorded history is damaged (the
    ///   message names the metadata row to delete); the store's data is not affected.
    public func modelHistory() throws -> [ModelVersionRecord] {
        try SQLiteStore.history(in: metadata())
    }

    // MARK: Opening

    /// On open, migrates a store made with another model when ``Options/migration`` asks for it.
    /// Runs on the writer connection under the write lock, outside any transaction.
    ///
    /// A model of the same version hash (only rules, hints, defaults or optionality differ)
    /// opens under either policy, unless the data stands in its way: a blocker (nil values of an
    /// attribute now required, without a default) refuses with `.migrationBlocked`, and values
    /// to fill in (defaults for those nil values) need ``MigrationPolicy/inferred(keepingBackup:)``.
    func migrateOnOpen(_ db: Database) throws {
        let keepingBackup: Bool
        switch options.migration {
        case .inferred(let keep): keepingBackup = keep
        case .refuse:
            guard let pending = try SQLiteStore.pendingMigration(db, url: url, to: model),
                  pending.migration.fromVersion == pending.migration.toVersion else { return }
            try SQLiteStore.checkRunnable(pending.migration, place: url?.path ?? "in-memory store")
            guard pending.updates.isEmpty else {
                throw StoreError(.modelMismatch, "\(url?.path ?? "the store") needs a migration to open with this model:\n"
                    + pending.migration.steps.filter { $0.rowsRewritten > 0 }.map { "  - \($0)" }.joined(separator: "\n")
                    + "\nrun `trove migrate`, or open it with SQLiteStore.Options.migration = .inferred")
            }
            return
        }
        _ = try SQLiteStore.migrateIfNeeded(db, url: url, to: model, keepingBackup: keepingBackup)
    }

    /// The plan from the model the store keeps to `model`, when they differ (in anything, not
    /// only in version hash); `nil` for a store that keeps `model` or an empty one.
    static func pendingMigration(_ db: Database, url: URL?, to model: Model)
        throws -> (migration: InferredMigration, layout: MigrationLayout, updates: [MigrationValueUpdate])? {
        guard try db.tableExists(metadataTable) else { return nil }
        let place = url?.path ?? "in-memory store"
        let metadata = try readMetadata(db)
        try checkFormat(metadata, place: place)
        guard metadata["trove.model"] != String(decoding: model.fileData(), as: UTF8.self) else { return nil }
        return try planned(db, from: storedModel(in: db, place: place), to: model)
    }

    private static func checkRunnable(_ migration: InferredMigration, place: String) throws {
        guard migration.isBlocked else { return }
        throw StoreError(.migrationBlocked, "\(place) cannot be migrated to this model (\(migration.blockers.count) blocking change"
            + "\(migration.blockers.count == 1 ? "" : "s"); nothing was changed):\n"
            + migration.blockers.map { "  - \($0)" }.joined(separator: "\n"))
    }

    /// Migrates when the store keeps another model than `model`; `nil` when it keeps `model`
    /// or is empty (a new store).
    static func migrateIfNeeded(_ db: Database, url: URL?, to model: Model, keepingBackup: Bool) throws -> MigrationOutcome? {
        guard let (migration, layout, updates) = try pendingMigration(db, url: url, to: model) else { return nil }
        let place = url?.path ?? "in-memory store"
        try checkRunnable(migration, place: place)
        let backup = try keepingBackup && !migration.steps.isEmpty ? url.map { try makeBackup(db, of: $0, version: migration.fromVersion) } : nil
        var history = try self.history(in: try readMetadata(db))
        if !migration.steps.isEmpty {
            history.append(ModelVersionRecord(version: model.versionHash, date: Date().formatted(.iso8601),
                                              steps: migration.steps.count, rowsRewritten: migration.rowsRewritten))
        }
        try MigrationExecutor.run(layout, updates: updates, in: db) { db in
            try writeMetadata(["trove.modelHash": model.versionHash,
                               "trove.model": String(decoding: model.fileData(), as: UTF8.self),
                               historyKey: historyJSON(history)], in: db)
        }
        logger.debug("migrated store", metadata: ["path": "\(place)", "from": "\(migration.fromVersion)", "to": "\(migration.toVersion)"])
        return MigrationOutcome(migration: migration, backupURL: backup)
    }

    // MARK: Other processes

    /// The error for a store migrated (by another process, or another store on the file) to a
    /// model other than this store's since it was opened; `nil` when it keeps this store's model.
    func migratedSinceOpening(_ db: Database) throws -> StoreError? {
        let metadata = try SQLiteStore.readMetadata(db)
        guard let current = metadata["trove.modelHash"],
              current != model.versionHash else { return nil }
        // The date only adds to the message: a damaged history leaves it out.
        let when = (try? SQLiteStore.history(in: metadata))?.last.map { " on \($0.date)" } ?? ""
        return StoreError(.modelMismatch, "\(url?.path ?? "the store") was migrated to model version \(current)\(when),"
            + " after this store was opened with version \(model.versionHash); nothing was read or written: open it again with the new model")
    }

    /// ``migratedSinceOpening(_:)`` read on the writer connection, to explain a read that
    /// failed; `nil` when it cannot be read, and the caller throws the failure it is explaining.
    func migratedSinceOpening() -> StoreError? {
        (try? writer.read { try migratedSinceOpening($0) }) ?? nil
    }

    // MARK: Parts

    static func planned(_ db: Database, from stored: Model, to model: Model)
        throws -> (migration: InferredMigration, layout: MigrationLayout, updates: [MigrationValueUpdate]) {
        let mapping = MigrationMapping(old: stored, new: model)
        let layout = MigrationLayout(mapping: mapping, old: StoreSchema(model: stored), new: StoreSchema(model: model))
        var planner = MigrationPlanner(mapping: mapping, layout: layout, db: db)
        let migration = try planner.plan()
        return (migration, layout, planner.updates)
    }

    /// The model the store keeps in its metadata (a store opened without a model file uses it).
    static func storedModel(in db: Database, place: String) throws -> Model {
        guard try db.tableExists(metadataTable) else {
            throw StoreError(.notATroveStore, "\(place) is an SQLite database but not a Trove store (no \(metadataTable) table)")
        }
        let metadata = try readMetadata(db)
        try checkFormat(metadata, place: place)
        guard let text = metadata["trove.model"] else {
            throw StoreError(.notATroveStore, "\(place) keeps no model in its metadata; open it with its model file")
        }
        do {
            return try Model(fileData: Data(text.utf8))
        } catch {
            throw StoreError(.unsupportedFormat, "the model kept in \(place) cannot be read by this Trove: \(error)")
        }
    }

    /// Copies the store with `VACUUM INTO` to `STORE.backup-<version>`, numbered when taken.
    private static func makeBackup(_ db: Database, of url: URL, version: String) throws -> URL {
        var backup = URL(fileURLWithPath: url.path + ".backup-\(version)")
        var number = 2
        while FileManager.default.fileExists(atPath: backup.path) {
            backup = URL(fileURLWithPath: url.path + ".backup-\(version)-\(number)")
            number += 1
        }
        try db.execute(sql: "VACUUM INTO \(sqlStringLiteral(backup.path))")
        return backup
    }

    /// The model history kept in `metadata`.
    /// - Throws: ``StoreError/Code/corruptValue`` when the history's text is not the JSON array
    ///   Trove writes (the store's data is not affected; only the record of its models is).
    static func history(in metadata: [String: String]) throws -> [ModelVersionRecord] {
        let first = ModelVersionRecord(version: metadata["trove.modelHash"] ?? "?", date: metadata["trove.createdAt"] ?? "?",
                                       steps: nil, rowsRewritten: nil)
        guard let text = metadata[historyKey] else { return [first] }
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsing: text)
        } catch {
            throw StoreError(.corruptValue, "the model history in _trove_metadata (\(historyKey)) is damaged: \(error);"
                + " the store's data is not affected: delete that row to start the history again")
        }
        guard case .array(let entries) = parsed else {
            throw StoreError(.corruptValue, "the model history in _trove_metadata (\(historyKey)) is not a JSON array;"
                + " the store's data is not affected: delete that row to start the history again")
        }
        return entries.compactMap { entry in
            guard case .object(let fields) = entry, let version = fields["version"]?.stringValue,
                  let date = fields["date"]?.stringValue else { return nil }
            return ModelVersionRecord(version: version, date: date, steps: fields["steps"]?.int64Value.map { Int($0) },
                                      rowsRewritten: fields["rowsRewritten"]?.int64Value.map { Int($0) })
        }
    }

    private static func historyJSON(_ history: [ModelVersionRecord]) -> String {
        JSONValue.array(history.map { record in
            var fields: [String: JSONValue] = ["version": .string(record.version), "date": .string(record.date)]
            if let steps = record.steps { fields["steps"] = .integer(Int64(steps)) }
            if let rows = record.rowsRewritten { fields["rowsRewritten"] = .integer(Int64(rows)) }
            return .object(JSONObject(fields))
        }).serialized()
    }
}
