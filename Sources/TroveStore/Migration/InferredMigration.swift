public import Foundation
package import TroveModel

/// What migrating a store from the model it keeps to a new model does: the steps, what each
/// costs, and what blocks it. Made by ``SQLiteStore/migrationPlan(forStoreAt:to:)`` without
/// changing the store, and run by ``SQLiteStore/migrate(storeAt:to:keepingBackup:)`` or on open
/// (``SQLiteStore/Options/migration``).
///
/// Every step is inferred from the two models (a lightweight migration, in Core Data's words);
/// the plan also reads the stored data where a change depends on it (nil values before
/// optional → required, duplicates before a new unique key, values that must fit a narrower
/// integer). A plan with ``blockers`` cannot run: each names its place in the new model file and
/// what to do.
public struct InferredMigration: Sendable, Hashable, CustomStringConvertible {
    /// The stored model's version hash.
    public let fromVersion: String
    /// The new model's version hash.
    public let toVersion: String
    /// The changes, in the order of the new model file (removals of stored items last).
    public let steps: [MigrationStep]
    /// What stops the migration; empty when it can run.
    public let blockers: [MigrationBlocker]
    /// How many rows the migration writes: every row of a table it rebuilds, and the rows it
    /// updates in place (a default filled in, a value cleared); 0 when only the schema changes.
    public let rowsRewritten: Int

    /// Whether something stops the migration.
    public var isBlocked: Bool { !blockers.isEmpty }

    /// The plan as `trove migrate` prints it: a line per step, then a line per blocker.
    public var description: String {
        var lines = ["migration from model \(fromVersion) to \(toVersion): \(steps.count) step\(steps.count == 1 ? "" : "s"), "
            + "\(rowsRewritten) row\(rowsRewritten == 1 ? "" : "s") rewritten"]
        lines += steps.map { "  \($0)" }
        if !blockers.isEmpty {
            lines.append("blocked by \(blockers.count) change\(blockers.count == 1 ? "" : "s"):")
            lines += blockers.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}

/// One change a migration makes.
public struct MigrationStep: Sendable, Hashable, CustomStringConvertible {
    /// Where the change is: a path into the new model file (`entities[1].attributes[3]`), or into
    /// the stored model for what the new one removed (`stored entities[2]`).
    public let path: String
    /// What changes, e.g. `add attribute Photo.views (integer64, default 0)`.
    public let summary: String
    /// Whether the step was inferred from the two models (always, for an inferred migration).
    public let isInferred: Bool
    /// The rows the step writes; 0 when it changes only the schema (or nothing stored).
    public let rowsRewritten: Int

    /// Creates a step.
    public init(path: String, summary: String, isInferred: Bool = true, rowsRewritten: Int = 0) {
        self.path = path
        self.summary = summary
        self.isInferred = isInferred
        self.rowsRewritten = rowsRewritten
    }

    public var description: String {
        let cost = rowsRewritten == 0 ? "no rows rewritten" : "\(rowsRewritten) row\(rowsRewritten == 1 ? "" : "s") rewritten"
        return "\(path): \(summary) [\(isInferred ? "inferred" : "custom"), \(cost)]"
    }
}

/// A change a migration cannot make as the data stands: where it is and what to do.
public struct MigrationBlocker: Sendable, Hashable, CustomStringConvertible {
    /// The path of the change in the new model file, e.g. `entities[1].attributes[3]`.
    public let path: String
    /// What is wrong and what to do, e.g. `optional → required, 12 rows are nil; give a default`.
    public let reason: String

    /// Creates a blocker.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// A migration that ran: its plan, and where the backup of the store as it was went.
public struct MigrationOutcome: Sendable {
    /// The inferred part of each stage that ran, oldest first (one for an inferred migration).
    public let stages: [InferredMigration]
    /// The plan of the last stage that ran: the whole plan of an inferred migration.
    public var migration: InferredMigration { stages[stages.count - 1] }
    /// The copy of an SQLite store taken before migrating, `nil` when none was asked for.
    public let backupURL: URL?
    /// The schema holding a PostgreSQL store's tables as they were before migrating, `nil`
    /// when none was asked for (or for an SQLite store).
    public let backupSchema: String?

    package init(stages: [InferredMigration], backupURL: URL?, backupSchema: String? = nil) {
        self.stages = stages
        self.backupURL = backupURL
        self.backupSchema = backupSchema
    }

    /// The outcome of a migration to `model` of a store that has it: one stage of no step.
    package static func nothingToDo(for model: Model) -> MigrationOutcome {
        MigrationOutcome(stages: [InferredMigration(fromVersion: model.versionHash, toVersion: model.versionHash,
                                                    steps: [], blockers: [], rowsRewritten: 0)], backupURL: nil)
    }
}

/// One entry of a store's model version history (``SQLiteStore/modelHistory()``).
public struct ModelVersionRecord: Sendable, Hashable {
    /// The model's version hash.
    public let version: String
    /// When the store was created with this model or migrated to it (ISO 8601, UTC).
    public let date: String
    /// The number of steps the migration to this version took; `nil` for the model the store
    /// was created with.
    public let steps: Int?
    /// The rows that migration rewrote; `nil` for the model the store was created with.
    public let rowsRewritten: Int?
}
