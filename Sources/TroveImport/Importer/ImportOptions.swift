public import TroveContext
public import TroveModel
public import TrovePredicate

/// How an import runs: batch size, strictness, sync scope, transformers and hooks.
public struct ImportOptions: Sendable {
    /// Top-level records per save (each batch is one transaction; find-or-create runs one
    /// query per entity per batch). Default 1000; within ``batchSizes``, else an import
    /// throws ``ImportError/Code/invalidOptions`` before it reads anything.
    public var batchSize: Int
    /// The batch sizes an import accepts: 1 to 100,000. A batch is held in memory whole,
    /// with its records, plans and rows (about 1 KiB a record of a few fields; a 100,000-record
    /// batch takes some 100 MB), and past a few thousand records a bigger batch is no faster.
    public static let batchSizes = 1...100_000
    /// Stop at the first rejected record, writing nothing of its batch (default `false`: the
    /// other records still land).
    public var strict: Bool
    /// When set, objects of the imported entity that match this predicate and were not in the
    /// payload are deleted after the import; nothing is deleted if any record was rejected.
    public var syncScope: ObjectPredicate?
    /// The value transformers the model's `transformer` keys name.
    public var transformers: ValueTransformerRegistry
    /// Code that runs per record, per object and per key.
    public var hooks: ImportHooks
    /// Sees every rejected record, in input order, when its batch is done (saved, or stopped
    /// by a strict import): to stream them to a file, however many there are, while the
    /// report keeps their count and the first ``ImportReport/rejectedKept``. Runs on the
    /// importing thread; what it throws stops the import (the batch is saved already).
    public var onRejected: (@Sendable (RejectedRecord) throws -> Void)?
    /// Runs the whole import — coercion, find-or-create, nested graphs, validation, the sync
    /// scope, resuming from a checkpoint — and reports it as a real run would (the report and
    /// every rejected record the same), but writes nothing to the store (default `false`).
    ///
    /// The import runs on a scratch copy of the store (``ScratchCopyingStore``: for an
    /// ``SQLiteStore``, a file in the temporary directory — `TMPDIR` — or memory for an
    /// in-memory one; for the PostgreSQL store, a schema of its own in the database), made when
    /// it starts and removed when it ends, so that each batch sees what the batches before it
    /// would have written and the counts match a real run's; the store itself is only read, and
    /// no checkpoint is left in it. Hooks see objects of a context on the copy.
    /// > Warning: A dry run costs a copy of the whole store (its size, and the time to write
    /// > it) on top of the import. It needs the context's store to be a ``ScratchCopyingStore``.
    public var dryRun: Bool

    /// Creates options.
    public init(batchSize: Int = 1000, strict: Bool = false, syncScope: ObjectPredicate? = nil,
                transformers: ValueTransformerRegistry = .standard, hooks: ImportHooks = ImportHooks(),
                onRejected: (@Sendable (RejectedRecord) throws -> Void)? = nil, dryRun: Bool = false) {
        self.batchSize = batchSize
        self.strict = strict
        self.syncScope = syncScope
        self.transformers = transformers
        self.hooks = hooks
        self.onRejected = onRejected
        self.dryRun = dryRun
    }
}

extension ImportOptions {
    /// Checks the options an import is given before it starts.
    /// - Throws: ``ImportError`` `.invalidOptions` naming the option, its value and the
    ///   allowed range.
    func validate() throws {
        guard Self.batchSizes.contains(batchSize) else {
            throw ImportError(.invalidOptions, "the batch size must be from \(Self.batchSizes.lowerBound) to \(Self.batchSizes.upperBound) records, not \(batchSize)")
        }
    }
}

/// Code an import runs for the records and objects of an entity (DCTCoreData's manual hooks).
///
/// ```swift
/// var hooks = ImportHooks()
/// hooks.beforeRecord(of: "Photo") { record in record.objectValue?["private"] == true ? nil : record }
/// hooks.afterRecord(of: "Photo") { photo, record in try photo.setValue(true, forKey: "imported") }
/// hooks.handleKey("colour", of: "Photo") { photo, value in /* takes over the key "colour" */ }
/// ```
public struct ImportHooks: Sendable {
    /// Sees each record of an entity before it is read: return it (rewritten if you like), or
    /// `nil` to skip it. Throwing rejects the record.
    public typealias BeforeRecord = @Sendable (JSONValue) throws -> JSONValue?
    /// Sees each object after its record was applied, with the record.
    public typealias AfterRecord = @Sendable (ManagedObject, JSONValue) throws -> Void
    /// Takes over one JSON key of a record entirely: the model's mapping does not read it.
    public typealias KeyHandler = @Sendable (ManagedObject, JSONValue) throws -> Void

    var before: [String: BeforeRecord] = [:]
    var after: [String: AfterRecord] = [:]
    var keyHandlers: [String: [String: KeyHandler]] = [:]

    /// No hooks.
    public init() {}

    /// Runs `body` on each record of `entityName` before it is read, on the importer's
    /// reading thread (not the caller's).
    public mutating func beforeRecord(of entityName: String, _ body: @escaping BeforeRecord) {
        before[entityName] = body
    }

    /// Runs `body` on each object of `entityName` after its record was applied.
    public mutating func afterRecord(of entityName: String, _ body: @escaping AfterRecord) {
        after[entityName] = body
    }

    /// Lets `body` handle the JSON key `key` of records of `entityName` instead of the mapping.
    public mutating func handleKey(_ key: String, of entityName: String, _ body: @escaping KeyHandler) {
        keyHandlers[entityName, default: [:]][key] = body
    }
}
