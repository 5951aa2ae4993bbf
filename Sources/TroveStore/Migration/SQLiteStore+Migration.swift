public import Foundation
import GRDB
public import TroveModel

/// What opening a store that was made with another model does (``SQLiteStore/Options/migration``).
public enum MigrationPolicy: Sendable {
    /// Refuse with ``StoreError/Code/modelMismatch`` (the default): nothing changes until asked.
    case refuse
    /// Migrate by inference (see ``InferredMigration``) when nothing blocks it, after copying
    /// the store to `STORE.backup-<stored model hash>` unless `keepingBackup` is `false`.
    case inferred(keepingBackup: Bool)
    /// Migrate through the stages of `plan`, from the version the store has to the newest (which
    /// must be the model the store is opened with), in one transaction, after the same backup.
    /// A store whose model the plan does not list is refused with `.modelMismatch`.
    case staged(ModelMigrationPlan, keepingBackup: Bool)
}

/// Migration: planning, running, and the model version history.
extension SQLiteStore {
    /// The metadata key of the model version history (JSON, oldest first).
    package static let historyKey = "trove.modelHistory"

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
    /// `progress`, when given, is called as rows are written (see ``MigrationProgress``).
    /// - Throws: ``StoreError`` `.migrationBlocked` listing the blockers when the plan has any
    ///   (nothing changes), `.busy` when another process writes, other store errors.
    @discardableResult
    public static func migrate(storeAt url: URL, to model: Model, keepingBackup: Bool = true,
                               progress: MigrationProgress.Handler? = nil) throws -> MigrationOutcome {
        try migrating(storeAt: url, to: model) { db in
            try migrateIfNeeded(db, url: url, to: model, keepingBackup: keepingBackup, progress: progress)
        }
    }

    /// Migrates the store at `url` through the stages of `plan`, from the version it has to the
    /// newest, in one transaction holding its write lock, as opening it with
    /// ``MigrationPolicy/staged(_:keepingBackup:)`` does (the backup as
    /// ``migrate(storeAt:to:keepingBackup:progress:)`` makes it). A store made with the plan's
    /// newest model is left as it is (the outcome has no steps).
    /// - Throws: ``StoreError`` `.modelMismatch` when the plan does not list the store's model,
    ///   `.migrationBlocked` when a stage is blocked (nothing changes), what a stage's code
    ///   throws (nothing changes), other store errors.
    @discardableResult
    public static func migrate(storeAt url: URL, using plan: ModelMigrationPlan, keepingBackup: Bool = true,
                               progress: MigrationProgress.Handler? = nil) throws -> MigrationOutcome {
        try migrating(storeAt: url, to: plan.newest) { db in
            try migrateIfNeeded(db, url: url, using: plan, keepingBackup: keepingBackup, progress: progress)
        }
    }

    /// Runs `body` on the writer connection of the store at `url`, outside any transaction,
    /// holding the write lock; an outcome of no steps for `model` when `body` migrates nothing.
    private static func migrating(storeAt url: URL, to model: Model,
                                  _ body: (Database) throws -> MigrationOutcome?) throws -> MigrationOutcome {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StoreError(.notFound, "no store at \(url.path); create one with `trove init \(url.path) --model MODEL.json`")
        }
        let options = Options()
        let lock = try WriteLock(storePath: url.path)
        let pool = try openPool(at: url, options: options, lock: lock)
        return try mapErrors("migrating \(url.path)") {
            try lock.withLock(timeout: options.busyTimeout, clock: options.clock, doing: "migrating \(url.path)") {
                let outcome = try pool.writeWithoutTransaction { db in
                    try body(db) ?? .nothingToDo(for: model)
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
        switch options.migration {
        case .inferred(let keepingBackup):
            _ = try SQLiteStore.migrateIfNeeded(db, url: url, to: model, keepingBackup: keepingBackup, progress: options.migrationProgress)
        case .staged(let plan, let keepingBackup):
            try migrate(db, using: plan, keepingBackup: keepingBackup)
        case .refuse:
            guard let pending = try SQLiteStore.pendingMigration(db, url: url, to: model),
                  pending.migration.fromVersion == pending.migration.toVersion else { return }
            try SQLiteStore.checkRunnable(pending.migration, place: url?.path ?? "in-memory store")
            guard pending.updates.isEmpty else {
                throw StoreError(.modelMismatch, "\(url?.path ?? "the store") needs a migration to open with this model:\n"
                    + pending.migration.steps.filter { $0.rowsRewritten > 0 }.map { "  - \($0)" }.joined(separator: "\n")
                    + "\nrun `trove migrate`, or open it with SQLiteStore.Options.migration = .inferred")
            }
        }
    }

    /// Runs the stages of `plan` from the version the store has on; nothing when it has this
    /// store's model (or is new).
    private func migrate(_ db: Database, using plan: ModelMigrationPlan, keepingBackup: Bool) throws {
        let place = url?.path ?? "in-memory store"
        guard plan.newest.fileData() == model.fileData() else {
            throw StoreError(.migrationBlocked, "the migration plan ends with model \(plan.newest.versionHash), but \(place)"
                + " is opened with model \(model.versionHash): make the model the store is opened with the plan's last")
        }
        _ = try SQLiteStore.migrateIfNeeded(db, url: url, using: plan, keepingBackup: keepingBackup, progress: options.migrationProgress)
    }

    /// Runs the stages of `plan` from the version the store has on; `nil` when it has the plan's
    /// newest model (or is new).
    static func migrateIfNeeded(_ db: Database, url: URL?, using plan: ModelMigrationPlan, keepingBackup: Bool,
                                progress: MigrationProgress.Handler?) throws -> MigrationOutcome? {
        let place = url?.path ?? "in-memory store"
        let newest = plan.newest
        guard try db.tableExists(SQLiteStore.metadataTable) else { return nil }
        let metadata = try SQLiteStore.readMetadata(db)
        try SQLiteStore.checkFormat(metadata, place: place)
        guard let text = metadata["trove.model"], text != String(decoding: newest.fileData(), as: UTF8.self) else { return nil }
        guard let first = plan.firstStage(forStoredModel: text, versionHash: metadata["trove.modelHash"] ?? "") else {
            throw StoreError(.modelMismatch, "\(place) has model version \(metadata["trove.modelHash"] ?? "?"), which the migration plan"
                + " does not list (it lists \(plan.models.map(\.versionHash).joined(separator: ", "))): add that version and its stage to the plan")
        }
        // The newest version with other hints or rules: the inferred change to this model.
        let stages = first == plan.stages.count ? [.lightweight(from: newest, to: newest)] : Array(plan.stages[first...])
        return try SQLiteStore.run(stages, in: db, url: url, keepingBackup: keepingBackup, progress: progress)
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
    static func migrateIfNeeded(_ db: Database, url: URL?, to model: Model, keepingBackup: Bool,
                                progress: MigrationProgress.Handler?) throws -> MigrationOutcome? {
        guard try pendingMigration(db, url: url, to: model) != nil else { return nil }
        return try run([.lightweight(from: model, to: model)], in: db, url: url, keepingBackup: keepingBackup, progress: progress)
    }

    /// Runs `stages` from the model the store keeps (the first stage's `from` is not read: the
    /// store's own model is), in one transaction, after a backup; records each stage that
    /// changed something in the model history.
    private static func run(_ stages: [MigrationStage], in db: Database, url: URL?, keepingBackup: Bool,
                            progress: MigrationProgress.Handler?) throws -> MigrationOutcome {
        let place = url?.path ?? "in-memory store"
        let stored = try storedModel(in: db, place: place)
        // The first stage is planned before the backup, so that a blocked one copies nothing; a
        // stage that runs code first is planned after it.
        let firstPlan = try stages.first.flatMap { $0.willMigrate == nil ? try planned(db, from: stored, to: $0.to) : nil }
        if let firstPlan { try checkRunnable(firstPlan.migration, place: place) }
        let changes = stages.count > 1 || stages.contains(where: \.isCustom) || firstPlan?.migration.steps.isEmpty == false
        let backup = try keepingBackup && changes ? url.map { try makeBackup(db, of: $0, version: stored.versionHash) } : nil
        var history = try self.history(in: try readMetadata(db))
        var migrations: [InferredMigration] = []
        try MigrationExecutor.run(in: db, progress: progress) { runner in
            var from = stored
            for (index, stage) in stages.enumerated() {
                try stage.willMigrate?(MigrationContext(model: from, db: db))
                let (migration, layout, updates) = try index == 0 ? firstPlan ?? planned(db, from: from, to: stage.to) : planned(db, from: from, to: stage.to)
                try checkRunnable(migration, place: stages.count == 1 ? place : "\(place) (stage \(index + 1) of \(stages.count))")
                runner.begin(stage: index, of: stages.count, rows: migration.rowsRewritten)
                try runner.reshape(layout, updates: updates)
                try stage.didMigrate?(MigrationContext(model: stage.to, db: db))
                if !migration.steps.isEmpty || stage.isCustom {
                    history.append(ModelVersionRecord(version: stage.to.versionHash, date: Date().formatted(.iso8601),
                                                      steps: migration.steps.count, rowsRewritten: migration.rowsRewritten))
                }
                migrations.append(migration)
                from = stage.to
            }
        } finish: { db in
            let model = stages.last?.to ?? stored
            try writeMetadata(["trove.modelHash": model.versionHash,
                               "trove.model": String(decoding: model.fileData(), as: UTF8.self),
                               historyKey: historyJSON(history)], in: db)
        }
        logger.debug("migrated store", metadata: ["path": "\(place)", "from": "\(stored.versionHash)", "to": "\(stages.last?.to.versionHash ?? "?")"])
        return MigrationOutcome(stages: migrations, backupURL: backup)
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
    package static func history(in metadata: [String: String]) throws -> [ModelVersionRecord] {
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
