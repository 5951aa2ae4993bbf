import TroveContext
import TroveModel
import TroveStore

extension ImportBatch {
    /// Applies the batch as rows and stages its save on `store` (``BackgroundSavingStore``),
    /// while the batch before it may still be saving (`running`): the rows that save will leave
    /// are in `cache` already, as if it had committed, and ``StagedBatch/finish(seen:cache:into:)``
    /// of that batch says whether they held. Returns `nil`, having changed nothing, when the
    /// batch must run the ordinary way (``run(seen:cache:into:)``): when it needs objects, has
    /// a sync scope, or its records failed to read.
    mutating func stage(on store: any BackgroundSavingStore, cache: inout RowCache, running: Bool) throws -> StagedBatch? {
        guard parsed.failure == nil, importer.options.syncScope == nil, context.rowSaveObstacle == nil,
              RowApplication.unsupportedReason(parsed.needs, context: context, hooks: importer.options.hooks) == nil else { return nil }
        for rejection in parsed.rejected {
            try reject(rejection)
        }
        if !running { cache.begin(at: try store.changeToken()) }
        let readAhead = parsed.readAhead.flatMap { rows in
            cache.keysWrittenWithStaged(since: rows.token).map { (rows: rows, stale: $0) }
        }
        let (accepted, rows) = try applyAsRows(cache: cache, readAhead: readAhead)
        try importer.beforeBatchSave?()
        let prepared = rows.prepareSave(metadata: metadata)
        let save = try store.stageSave(prepared.rows)
        cache.keepStaged(rows.savedRows(prepared, permanentIDs: save.permanentIDs, versions: save.versions, cache: cache),
                         written: rows.writtenKeys(prepared))
        return StagedBatch(batch: self, accepted: accepted, rows: rows, prepared: prepared, save: save)
    }
}

/// A batch applied as rows whose save is staged (``ImportBatch/stage(on:cache:running:)``), to
/// start once the save before it has committed and to finish while the next batch is staged.
struct StagedBatch {
    var batch: ImportBatch
    let accepted: [ParsedRecords.Plan]
    let rows: RowApplication
    let prepared: RowApplication.PreparedSave
    let save: StagedSave

    /// Waits for the save, announces it as the context's, and adds what the batch did to
    /// `report`, as ``ImportBatch/run(seen:cache:into:)`` does. When the save collided with
    /// another writer's commit, runs the batch again holding the write lock. Returns whether
    /// the rows `cache` keeps held (no one else committed before the save): when not, a batch
    /// staged since is to run again.
    mutating func finish(seen: inout Set<UniqueKey>, cache: inout RowCache, into report: inout ImportReport) throws -> Bool {
        var held = false
        let (save, prepared, accepted, rows) = (save, prepared, accepted, rows)
        try batch.merge(into: &report) { batch in
            do {
                let result = try save.result()
                try batch.context.rowsSaved(result, announcing: prepared.changes)
                held = cache.confirm(before: result.changeTokenBefore, after: result.changeTokenAfter)
                batch.appliedRows = rows
                return batch.report(accepted, counts: prepared.counts, seen: &seen)
            } catch where batch.isCollision(error, since: nil) {
                cache.forget()
                return try batch.context.store.writingExclusively { try batch.runAsRows(seen: &seen, cache: &cache, alone: true) }
            }
        }
        return held
    }
}
