public import TroveModel

/// The versions of a model, oldest first, with a stage between each two: what an app gives
/// (``SQLiteStore/Options/migration``, ``MigrationPolicy/staged(_:keepingBackup:)``) to open
/// stores made with any of its versions, as SwiftData's `SchemaMigrationPlan` lists
/// `MigrationStage`s.
///
/// ```swift
/// let plan = try ModelMigrationPlan([
///     .lightweight(from: v1, to: v2),
///     .custom(from: v2, to: v3, didMigrate: { context in … }),
/// ])
/// ```
/// A store several versions behind runs every stage from its version on, in order, in one
/// transaction: it ends with the newest model, or (on any error) exactly as it was. Its model
/// history records each version it went through.
public struct ModelMigrationPlan: Sendable {
    /// The stages, oldest first; each starts from the model the one before ends with.
    public let stages: [MigrationStage]

    /// The models, oldest first: the first stage's `from`, then each stage's `to`.
    public var models: [Model] { (stages.first.map { [$0.from] } ?? []) + stages.map(\.to) }

    /// The newest model: the last stage's `to` (a plan has a stage at least).
    package var newest: Model { stages[stages.count - 1].to }

    /// A plan of `stages`, oldest first.
    /// - Throws: ``StoreError`` `.migrationBlocked` when there is no stage, or when a stage does
    ///   not start from the model the one before ends with (the message names both).
    public init(_ stages: [MigrationStage]) throws {
        guard !stages.isEmpty else {
            throw StoreError(.migrationBlocked, "a migration plan needs at least one stage")
        }
        for (index, pair) in zip(stages, stages.dropFirst()).enumerated() where pair.0.to.fileData() != pair.1.from.fileData() {
            throw StoreError(.migrationBlocked, "stage \(index + 2) of the migration plan starts from model \(pair.1.from.versionHash),"
                + " but stage \(index + 1) ends with \(pair.0.to.versionHash): give each stage the model the one before ends with")
        }
        self.stages = stages
    }

    /// The index of the stage that starts from the stored model (its model file text, else its
    /// version hash: the newest version of that hash); `stages.count` when it is the newest model;
    /// `nil` when the plan does not know it.
    func firstStage(forStoredModel text: String, versionHash: String) -> Int? {
        let models = models
        if let exact = models.lastIndex(where: { String(decoding: $0.fileData(), as: UTF8.self) == text }) { return exact }
        return models.lastIndex { $0.versionHash == versionHash }
    }
}

/// One step of a ``ModelMigrationPlan``: from one version of the model to the next, inferred
/// (lightweight) or with code of the app's own around the inferred change.
///
/// A custom stage is SwiftData's shape: `willMigrate` runs over the store while it has the old
/// model, then the change from the old model to the new one is inferred and made (as
/// ``InferredMigration`` describes, its blockers included), then `didMigrate` runs with the new
/// model. Each gets a ``MigrationContext`` that reads and writes rows of the model it has.
///
/// A value computed from data the new model drops (split `name` into `first` and `last`, turn a
/// string into a relationship) takes two stages: a custom one to a version that has both, whose
/// `didMigrate` reads the old value and writes the new, then a lightweight one that drops the
/// old. The whole plan runs in one transaction, so no store is ever left at the version between.
public struct MigrationStage: Sendable {
    /// Code a custom stage runs over the store's rows.
    public typealias Body = @Sendable (MigrationContext) throws -> Void

    /// The model the stage starts from.
    public let from: Model
    /// The model the stage ends with.
    public let to: Model
    /// Runs before the change, over the rows of `from`.
    let willMigrate: Body?
    /// Runs after the change, over the rows of `to`.
    let didMigrate: Body?

    /// Whether the stage runs code of its own.
    public var isCustom: Bool { willMigrate != nil || didMigrate != nil }

    /// A stage whose change is inferred from the two models alone.
    public static func lightweight(from: Model, to: Model) -> MigrationStage {
        MigrationStage(from: from, to: to, willMigrate: nil, didMigrate: nil)
    }

    /// A stage that runs `willMigrate` over the store with model `from`, makes the inferred
    /// change to `to`, then runs `didMigrate` with model `to`. An error thrown by either ends
    /// the whole migration with nothing changed.
    public static func custom(from: Model, to: Model, willMigrate: Body? = nil, didMigrate: Body? = nil) -> MigrationStage {
        MigrationStage(from: from, to: to, willMigrate: willMigrate, didMigrate: didMigrate)
    }
}
