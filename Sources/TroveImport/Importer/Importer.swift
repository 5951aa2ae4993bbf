public import Foundation
public import TroveContext
public import TroveModel
import TrovePredicate
import TroveStore

/// Pours JSON records into the object graph of a context, driven by the model.
///
/// ```swift
/// let importer = Importer(context: context)
/// let report = try importer.importJSON(data, into: "Photo", root: "photos.photo")
/// print(report.entities["Photo"]?.inserted ?? 0, report.rejectedCount)
/// ```
/// For each record the entity's attributes and relationships are looked up under their remote
/// keys and coerced to their types (unknown keys are counted, absent keys leave values alone,
/// `null` clears). Objects are found by their unique keys — one query per entity per batch —
/// or created. A record that fails anywhere is rejected whole, with its path and reason, and
/// the other records still land. Each batch is saved in one transaction; re-importing the same
/// payload changes and writes nothing.
public final class Importer {
    /// The context the import changes and saves.
    public let context: ObjectContext
    /// How the import runs.
    public let options: ImportOptions
    private lazy var mappings = MappingCache(model: context.model, transformers: options.transformers)
    /// Runs before each batch's save, after its reads: a seam for tests, which commit there
    /// what another writer would have committed meanwhile.
    var beforeBatchSave: (() throws -> Void)?

    /// An importer working in `context`, which must have no unsaved changes when an import starts.
    public init(context: ObjectContext, options: ImportOptions = ImportOptions()) {
        self.context = context
        self.options = options
    }

    /// Imports JSON text: a top-level array is a list of records, a single object is one
    /// record, and `root` (a dotted key path such as `photos.photo`) picks an array inside.
    ///
    /// The text is checked whole before anything is applied, so that malformed JSON writes
    /// nothing; meanwhile it is already read as ``importStream(_:into:format:resume:progress:isCancelled:)``
    /// reads a file (the next batches parsed on a thread of their own while this one is
    /// saved; before-record hooks run there), without checkpoints.
    /// - Throws: ``ImportError`` `.invalidJSON` (with line, column and byte offset, before
    ///   anything is written), `.rootNotFound`, or as ``importRecords(_:into:)``.
    public func importJSON(_ data: Data, into entityName: String, root: String? = nil) throws -> ImportReport {
        if options.dryRun { return try rehearsing { try $0.importJSON(data, into: entityName, root: root) } }
        let entity = try importTarget(entityName)
        // Reading starts at once, several chunks ahead, while the whole text is checked here;
        // nothing is applied before the check passes.
        let pipeline = ChunkPipeline(reader: RecordReader(input: ByteInput(data: data), format: .json(root: root), resume: nil),
                                     entity: entity, firstIndex: 0, options: options, model: context.model,
                                     store: context.store, chunkSize: options.batchSize, depth: 8)
        do {
            try JSONValue.validate(data)
        } catch {
            pipeline.stop()
            throw ImportError(.invalidJSON, "\(error); nothing was imported")
        }
        return try stream(pipeline, totalBytes: Int64(data.count), into: entity, resettingContext: false, resumedAt: nil,
                          checkpoints: nil, progress: nil, isCancelled: nil)
    }

    /// Imports records into `entityName`, `options.batchSize` records per saved batch. The
    /// next batch is read into plans (mapped, coerced; before-record hooks run) on a thread of
    /// the importer's own while this one is applied and saved.
    /// - Returns: what was inserted, updated, unchanged, deleted and rejected.
    /// - Throws: ``ImportError`` for an unknown entity, a context with unsaved changes, a bad
    ///   sync scope, or (strict mode) the first rejected record; the store's error if a save fails.
    public func importRecords(_ records: [JSONValue], into entityName: String) throws -> ImportReport {
        if options.dryRun { return try rehearsing { try $0.importRecords(records, into: entityName) } }
        let entity = try importTarget(entityName)
        let pipeline = ChunkPipeline(records: records, entity: entity, options: options, model: context.model,
                                     store: context.store, chunkSize: options.batchSize)
        return try stream(pipeline, totalBytes: nil, into: entity, resettingContext: false, resumedAt: nil,
                          checkpoints: nil, progress: nil, isCancelled: nil)
    }

    /// The entity top-level records go into, once checked that an import can start.
    func importTarget(_ entityName: String) throws -> Entity {
        try options.validate()
        guard let entity = context.model.entity(named: entityName), !entity.isAbstract else {
            throw ImportError(.unknownEntity, "cannot import into '\(entityName)': the model has no such entity, or it is abstract; entities: \(context.model.entities.map(\.name).joined(separator: ", "))")
        }
        guard !context.hasChanges else {
            throw ImportError(.contextHasChanges, "the context has unsaved changes, which the import's saves would write or discard; save or roll back first")
        }
        if options.syncScope != nil && entity.uniqueBy.isEmpty {
            throw ImportError(.syncScope, "a sync scope needs \(entity.name) to have a unique key, to know which objects the payload names")
        }
        return entity
    }

    /// What `body` returns given an importer like this one (its options but ``ImportOptions/dryRun``,
    /// its test seam) working on a scratch copy of the store, which is removed after: a dry run.
    /// - Throws: ``ImportError`` `.invalidOptions` when the store cannot be copied
    ///   (``ScratchCopyingStore``), or when the copy could not be removed after the run (the
    ///   report is in the error); the store's error when it cannot be copied; whatever `body` throws.
    func rehearsing(_ body: (Importer) throws -> ImportReport) throws -> ImportReport {
        guard let store = context.store as? any ScratchCopyingStore else {
            throw ImportError(.invalidOptions, "a dry run imports into a copy of the store, and a \(type(of: context.store)) cannot be copied")
        }
        var options = options
        options.dryRun = false
        var ran: ImportReport?
        do {
            return try store.withScratchCopy { copy in
                let importer = Importer(context: try Container(store: copy).newBackgroundContext(), options: options)
                importer.beforeBatchSave = beforeBatchSave
                let report = try body(importer)
                ran = report
                return report
            }
        } catch let error as StoreError where ran != nil {
            throw ImportError(.invalidOptions, "the dry run ran (its report is in this error), but \(error.message)", report: ran)
        }
    }

    /// The mapping of an entity, computed once.
    func mapping(for entity: Entity) throws -> EntityMapping {
        try mappings.mapping(for: entity)
    }

    // MARK: Sync scope

    func sync(_ entity: Entity, scope: ObjectPredicate, seen: Set<UniqueKey>, report: inout ImportReport) throws {
        guard report.rejectedCount == 0 else {
            report.syncScopeSkipped = "\(report.rejectedCount) record(s) were rejected, so the payload is not the whole truth; nothing was deleted"
            return
        }
        var request = FetchRequest(entityName: entity.name)
        request.predicate = scope
        request.fetchBatchSize = 1000
        let mapping = try mapping(for: entity)
        var deleted = 0
        for object in try context.fetch(request) {
            let keys = try mapping.uniqueKeys.map { constraint in
                UniqueKey(root: entity.rootName, attributes: constraint,
                          values: try constraint.map { try object.value(forKey: entity.attributes[$0].name) })
            }
            if !keys.contains(where: seen.contains) {
                try context.delete(object)
                deleted += 1
            }
        }
        try context.save()
        report.entities[entity.name, default: ImportReport.EntityCounts()].deleted += deleted
    }
}
