import ArgumentParser
import Foundation
import Synchronization
import Trove
import TrovePostgres

/// `trove migrate STORE --model NEW.json [--dry-run] [--no-backup]`: migrates a store to a new
/// version of its model, by inference.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to a new version of its model.",
        discussion: """
            Prints the plan on stdout: each step, whether it is inferred, and the rows it rewrites; then what \
            blocks the migration, each with its path in the new model file and what to do. Without --dry-run, \
            the migration then runs in one transaction holding the store's write lock, after copying the store \
            to STORE.backup-<old model hash> (unless --no-backup): either every step lands or none does. Its \
            progress (rows written) shows on stderr: a bar on a terminal, else a line every 5 seconds.
            Only inferred (lightweight) changes run here: a change that needs code (a custom migration stage) \
            is blocked, as the plan says; the app runs its stages on open (SQLiteStore.Options.migration = \
            .staged). To go through several versions, run trove migrate once per version, oldest first. \
            On a postgres:// URL the store is copied into a scratch file in TMPDIR, migrated there by the same \
            engine, and its tables replace the database's in one transaction holding the write lock; the old \
            tables go to a schema trove_backup_<old model hash> (unless --no-backup).
            Exit codes: 0 migrated (or nothing to do, or a dry run that could run), 1 usage error, 2 blocked by \
            the data or the new model (nothing changed), 3 store error.
            """)

    @OptionGroup var store: StoreArgument

    @Option(name: .long, help: ArgumentHelp("The new model file (JSON).", valueName: "NEW.json"))
    var model: String

    @Flag(name: .long, help: "Print the plan and change nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Do not copy the store to STORE.backup-<old model hash> first.")
    var noBackup = false

    func run() throws {
        let loaded: Model
        do {
            loaded = try Model(contentsOf: URL(fileURLWithPath: model))
        } catch {
            throw CLIFailure(.badInput, "\(model): \(error)\nfix the model file and run `trove migrate` again")
        }
        let location = try store.location
        func plan() throws -> InferredMigration {
            switch location {
            case .file(let url): try SQLiteStore.migrationPlan(forStoreAt: url, to: loaded)
            case .postgres(let database): try PostgresStore.migrationPlan(at: database, to: loaded)
            }
        }
        // A file is planned first, so that a blocked migration does not even open it for writing;
        // a database is planned as it migrates, under the write lock (planning it apart costs a
        // copy of its data), and apart only to print a blocked migration's blockers.
        let isDatabase = if case .postgres = location { true } else { false }
        if dryRun || !isDatabase {
            let plan = try plan()
            guard !plan.steps.isEmpty || plan.isBlocked else { return nothingToDo(plan.toVersion) }
            if dryRun || plan.isBlocked {
                FileHandle.standardOutput.write(Data((plan.description + "\n").utf8))
                if plan.isBlocked { throw blocked(plan) }
                return
            }
        }
        let outcome: MigrationOutcome
        let meter = Mutex(ProgressMeter(input: store.name))
        defer { meter.withLock { $0.finish() } }
        do {
            let progress: MigrationProgress.Handler = { progress in meter.withLock { $0.show(progress) } }
            outcome = switch location {
            case .file(let url): try SQLiteStore.migrate(storeAt: url, to: loaded, keepingBackup: !noBackup, progress: progress)
            case .postgres(let database): try PostgresStore.migrate(at: database, to: loaded, keepingBackup: !noBackup, progress: progress)
            }
        } catch let error as StoreError where error.code == .migrationBlocked {
            meter.withLock { $0.finish() }
            let plan = try plan()
            FileHandle.standardOutput.write(Data((plan.description + "\n").utf8))
            // Not blocked any more: the data changed meanwhile; the migration's error says what blocked it.
            throw plan.isBlocked ? blocked(plan) : CLIFailure(.badInput, error.message)
        }
        guard outcome.stages.contains(where: { !$0.steps.isEmpty }) else { return nothingToDo(outcome.migration.toVersion) }
        meter.withLock { $0.finish() }
        // The plan that ran, made again under the write lock: its counts are the real ones.
        FileHandle.standardOutput.write(Data((outcome.migration.description + "\n").utf8))
        var summary = "migrated \(store.name) to model \(outcome.migration.toVersion): \(outcome.migration.steps.count) steps, "
            + "\(outcome.migration.rowsRewritten) rows rewritten"
        if let backup = outcome.backupURL { summary += "; backup at \(backup.path)" }
        if let backup = outcome.backupSchema { summary += "; the old tables are kept in the schema \(backup)" }
        FileHandle.standardError.write(Data((summary + "\n").utf8))
    }

    private func nothingToDo(_ version: String) {
        FileHandle.standardError.write(Data("\(store.name) already has this model (\(version)); nothing to do\n".utf8))
    }

    private func blocked(_ plan: InferredMigration) -> CLIFailure {
        CLIFailure(.badInput, "\(store.name) cannot be migrated to \(model): \(plan.blockers.count) blocking change"
            + "\(plan.blockers.count == 1 ? "" : "s") (listed above); nothing was changed; a change that needs code runs in the app,"
            + " as a custom migration stage")
    }
}
