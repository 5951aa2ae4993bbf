import Foundation
import TroveModel
import TroveStore

extension Importer {
    /// Imports the records of a file or of standard input as they stream in, a chunk
    /// (`options.batchSize` records) per transaction, holding only a chunk or two in memory.
    ///
    /// ```swift
    /// let report = try importer.importStream(.file(url), into: "Photo", format: .json(root: "photos.photo"))
    /// ```
    /// Each chunk is saved together with a checkpoint in the store's metadata (see
    /// ``ImportCheckpoint``); after an interruption — a crash, a kill, ``ImportError/Code/cancelled`` —
    /// importing the same input with the same options again resumes just after the last saved
    /// chunk, so that no record is lost or imported twice. The last chunk removes the checkpoint.
    /// The next chunk is read, parsed and coerced on a thread of its own while this one is
    /// saved (so before-record hooks run on that thread; they are `@Sendable`). The context is
    /// reset after each chunk, so objects fetched in it before are let go.
    ///
    /// With a sync scope the import always starts from the first record and writes no
    /// checkpoint (the scope must see every record of the input in one run).
    ///
    /// One file is imported by one streamed import at a time: another import of the same file
    /// (the same file, under any path; in this process or another) waits for this one to end
    /// before it reads the checkpoint (it then says so first: ``ImportProgress/isWaiting``),
    /// so that it never takes a running import's checkpoint for an interrupted one. It holds an
    /// exclusive `flock(2)` on the file while it runs.
    /// - Parameters:
    ///   - resume: `.restart` ignores the checkpoint.
    ///   - progress: called after each chunk is saved; first, when another import of the file
    ///     runs, once before waiting for it (``ImportProgress/isWaiting``), and when the import
    ///     resumes, with where it resumes (``ImportProgress/isResumePoint``).
    ///   - isCancelled: asked after each chunk; `true` stops the import there, checkpoint kept.
    /// - Throws: ``ImportError``: `.invalidJSON` with the byte offset (and line, for NDJSON) of
    ///   the fault, the records before it imported and in the error's report; `.cancelled`;
    ///   `.unreadableInput`; or as ``importRecords(_:into:)``.
    public func importStream(_ input: ImportInput, into entityName: String, format: RecordFormat = .json(root: nil),
                             resume: ResumeMode = .resume, progress: ((ImportProgress) -> Void)? = nil,
                             isCancelled: (() -> Bool)? = nil) throws -> ImportReport {
        if options.dryRun {
            return try rehearsing {
                try $0.importStream(input, into: entityName, format: format, resume: resume, progress: progress, isCancelled: isCancelled)
            }
        }
        let entity = try importTarget(entityName)
        let bytes = try ByteInput(input)
        // Before the checkpoint is read: another import of this file may be writing it.
        bytes.lockExclusively {
            progress?(ImportProgress(bytesRead: 0, totalBytes: bytes.size, recordsRead: 0, recordsRejected: 0, elapsed: .zero,
                                     recordsPerSecond: 0, isFinished: false, isWaiting: true))
        }
        defer { bytes.unlock() }
        let head = String(try bytes.headDigest(), radix: 16)
        let key = ImportCheckpoint.metadataKey(for: entity.name)
        let checkpointing = options.syncScope == nil
        let stored = try context.store.metadata()[key]
        var resumed: ImportReport.ResumePoint?
        var start: ReadPosition?
        if resume == .resume, checkpointing, let checkpoint = stored.flatMap(ImportCheckpoint.decode),
           checkpoint.options == checkpointOptions(format), checkpoint.inputSize == bytes.size, checkpoint.inputHead == head {
            start = try resumePosition(checkpoint, in: bytes)
            if start != nil { resumed = ImportReport.ResumePoint(records: checkpoint.records, byteOffset: checkpoint.byteOffset) }
        }
        let template = ImportCheckpoint(entity: entity.name, input: input.description, inputSize: bytes.size, inputHead: head,
                                        options: checkpointOptions(format), byteOffset: 0, lines: 0, records: 0,
                                        lastRecordOffset: 0, lastRecordDigest: "", savedAt: Date())
        if let resumed {
            // Said at once, so that a run killed again before its first chunk still said it resumed.
            progress?(ImportProgress(bytesRead: resumed.byteOffset, totalBytes: bytes.size, recordsRead: resumed.records,
                                     recordsRejected: 0, elapsed: .zero, recordsPerSecond: 0, isFinished: false,
                                     startBytes: resumed.byteOffset))
        }
        let pipeline = ChunkPipeline(reader: RecordReader(input: bytes, format: format, resume: start), entity: entity,
                                     firstIndex: resumed?.records ?? 0, options: options, model: context.model,
                                     store: context.store, chunkSize: options.batchSize)
        return try stream(pipeline, totalBytes: bytes.size, into: entity, resettingContext: true, resumedAt: resumed,
                          checkpoints: (template, key, saving: checkpointing, stored: stored != nil),
                          progress: progress, isCancelled: isCancelled)
    }

    /// Imports the chunks `pipeline` reads, one per transaction, and stops the pipeline. With `checkpoints` (a template, the metadata key, whether to save them, and
    /// whether the store holds one now), each chunk but the last saves a checkpoint and the
    /// last removes any. `resettingContext` resets the context after each chunk (letting go of
    /// what it holds, the caller's objects included).
    func stream(_ pipeline: ChunkPipeline, totalBytes: Int64?, into entity: Entity, resettingContext: Bool, resumedAt: ImportReport.ResumePoint?,
                checkpoints: (template: ImportCheckpoint, key: String, saving: Bool, stored: Bool)?,
                progress: ((ImportProgress) -> Void)?, isCancelled: (() -> Bool)?) throws -> ImportReport {
        defer { pipeline.stop() }
        // Many saves in a row: a store that can set itself for throughput does while they run.
        func chunks() throws -> ImportReport {
            var report = ImportReport()
            report.resumedAt = resumedAt
            var seen: Set<UniqueKey> = []
            var cache = RowCache()
            // Records before the chunk last read, and before the chunk last done.
            var recordsRead = resumedAt?.records ?? 0
            var recordsBefore = recordsRead
            var wroteCheckpoint = false
            let clock = ContinuousClock()
            let began = clock.now
            // A store that saves on a thread of its own saves each batch while the next one is
            // applied and made ready (``ImportBatch/stage(on:cache:running:)``), unless other
            // writers commit between the import's saves (the batch made ready would run again).
            let stager = context.store as? any BackgroundSavingStore
            var running: (staged: StagedBatch, chunk: RecordChunk)?
            // Nothing of the import runs once it has returned: a save still running when an
            // error ends the loop is waited for. The error is the one to report; the save
            // landed with its batch's checkpoint, or wrote nothing.
            defer { if let finishing = running { _ = Result { try finishing.staged.save.result() } } }
            /// What follows a chunk's save: the context let go, progress said, cancellation asked.
            func done(_ chunk: consuming RecordChunk, _ batch: consuming ImportBatch) throws {
                recordsBefore += chunk.records.count
                if resettingContext { context.reset() }
                if let progress {
                    let elapsed = began.duration(to: clock.now)
                    let seconds = elapsed.inSeconds
                    progress(ImportProgress(bytesRead: chunk.end.offset, totalBytes: totalBytes, recordsRead: recordsBefore,
                                            recordsRejected: report.rejectedCount, elapsed: elapsed,
                                            recordsPerSecond: seconds > 0 ? Double(report.recordsRead) / seconds : 0,
                                            isFinished: chunk.isLast, startBytes: report.resumedAt?.byteOffset ?? 0))
                }
                if !chunk.isLast, isCancelled?() == true {
                    throw ImportError(.cancelled, "the import into \(entity.name) was cancelled after \(recordsBefore) records (byte \(chunk.end.offset)); its checkpoint is kept: import the same input again to resume", report: report)
                }
                pipeline.recycle((consume chunk, consume batch))
            }
            /// Finishes the save that runs, if one does; whether the rows it left in the cache held.
            func finishRunning() throws -> Bool {
                guard let finishing = running else { return true }
                running = nil
                var staged = finishing.staged
                let held = try staged.finish(seen: &seen, cache: &cache, into: &report)
                try done(finishing.chunk, staged.batch)
                return held
            }
            while let item = pipeline.next() {
                let chunk: RecordChunk
                switch item {
                case .success(let read): chunk = read
                case .failure(let error as ImportError) where error.code == .invalidJSON:
                    _ = try finishRunning()
                    throw ImportError(error.code, "\(error.message); \(Self.before(report))", report: report)
                case .failure(let error):
                    _ = try finishRunning()
                    throw error
                }
                var batch = ImportBatch(importer: self, entity: entity, parsed: chunk.records)
                if let (template, key, saving, stored) = checkpoints {
                    if saving && !chunk.isLast {
                        var checkpoint = template
                        checkpoint.byteOffset = chunk.end.offset
                        checkpoint.lines = chunk.end.line
                        checkpoint.records = recordsRead + chunk.records.count
                        checkpoint.lastRecordOffset = chunk.lastRecordOffset
                        checkpoint.lastRecordDigest = String(chunk.lastRecordDigest, radix: 16)
                        checkpoint.savedAt = Date()
                        batch.metadata.updateValue(try checkpoint.encoded(), forKey: key)
                        wroteCheckpoint = true
                    } else if stored || wroteCheckpoint {
                        batch.metadata.updateValue(nil, forKey: key)
                    }
                }
                recordsRead += chunk.records.count
                if let stager, !cache.othersWrite {
                    let ordinary = batch
                    // A batch that cannot be staged now runs the ordinary way once the save
                    // before it has finished, and so does one staged on rows that did not hold
                    // (the cache forgot them then).
                    let staged: StagedBatch?
                    do {
                        staged = try batch.stage(on: stager, cache: &cache, running: running != nil)
                    } catch {
                        staged = nil  // The ordinary run meets the error again, in order, and reports it.
                    }
                    if try finishRunning(), let staged {
                        staged.save.start()
                        running = (staged, chunk)
                        continue
                    }
                    batch = ordinary
                }
                _ = try finishRunning()
                try batch.run(seen: &seen, cache: &cache, into: &report)
                try done(chunk, batch)
            }
            _ = try finishRunning()
            if recordsBefore == 0, let (_, key, _, stored) = checkpoints, stored {
                // An empty input: what another input's checkpoint says no longer applies.
                context.setStoreMetadata(nil, forKey: key)
                try context.save()
            }
            if let scope = options.syncScope {
                try sync(entity, scope: scope, seen: seen, report: &report)
            }
            return report
        }
        let store = context.store
        return try (store as? any BulkWritingStore)?.bulkWriting(chunks) ?? chunks()
    }

    /// What became of the records before a fault in the input, as `report` counts them.
    static func before(_ report: ImportReport) -> String {
        let (read, imported) = (report.recordsRead, report.recordsImported)
        let records = read == 1 ? "the record before it" : "the \(read) records before it"
        if read == 0 { return "nothing was imported" }
        if imported == read { return read == 1 ? "\(records) was imported" : "\(records) were imported" }
        var others = ["\(report.rejectedCount) rejected"]
        if report.recordsSkipped > 0 { others.append("\(report.recordsSkipped) skipped") }
        let landed = imported == 0 ? "none was imported" : "\(imported) \(imported == 1 ? "was" : "were") imported"
        return "of \(records), \(landed) (\(others.joined(separator: ", ")))"
    }

    /// The options a checkpoint holds: those that change what the records mean.
    private func checkpointOptions(_ format: RecordFormat) -> String {
        "\(format), \(options.strict ? "strict" : "lenient")"
    }

    /// Where to resume from `checkpoint`, after checking that its last record is still there;
    /// `nil` (the input at its start again) when the input changed.
    /// - Throws: ``ImportError`` `.unreadableInput` when standard input changed (it cannot be
    ///   read again from its start).
    private func resumePosition(_ checkpoint: ImportCheckpoint, in bytes: ByteInput) throws -> ReadPosition? {
        let length = Int(checkpoint.byteOffset - checkpoint.lastRecordOffset)
        if checkpoint.lastRecordOffset >= 0, length > 0, length <= ByteInput.maximumRecordSize {
            try bytes.skip(to: checkpoint.lastRecordOffset)
            try bytes.ensure(length)
            if bytes.end - bytes.start >= length,
               String(bytes.digest(bytes.start..<(bytes.start + length)), radix: 16) == checkpoint.lastRecordDigest {
                try bytes.skip(to: checkpoint.byteOffset)
                return ReadPosition(offset: checkpoint.byteOffset, line: checkpoint.lines)
            }
        }
        if bytes.isStandardInput {
            throw ImportError(.unreadableInput, "standard input differs from the interrupted import's at byte \(checkpoint.lastRecordOffset), and it cannot be read again from its start; import with --restart")
        }
        try bytes.skip(to: 0)
        return nil
    }
}
