import TroveContext
import TroveModel

/// One batch of top-level records: read, find-or-create, apply, save. When applying or saving
/// fails for some records, the context is rolled back and the batch runs again without them,
/// so that a rejected record never leaves part of itself behind.
struct ImportBatch {
    let importer: Importer
    let entity: Entity
    let parsed: ParsedRecords
    /// Store metadata saved in the batch's transaction (a streamed import's checkpoint).
    var metadata: [String: String?] = [:]
    private var rejected: [Int: RejectedRecord] = [:]

    /// A batch of records read already (perhaps on another thread).
    init(importer: Importer, entity: Entity, parsed: ParsedRecords) {
        self.importer = importer
        self.entity = entity
        self.parsed = parsed
    }

    /// A batch of `records`, the first at position `firstIndex` of the input.
    init(importer: Importer, entity: Entity, records: ArraySlice<JSONValue>, firstIndex: Int) {
        let parser = ImportParser(hooks: importer.options.hooks) { [importer] entity in try importer.mapping(for: entity) }
        self.init(importer: importer, entity: entity, parsed: ParsedRecords(records, as: entity, firstIndex: firstIndex, parser: parser))
    }

    private var context: ObjectContext { importer.context }
    private var firstIndex: Int { parsed.firstIndex }

    /// Imports the batch and saves it; with a sync scope, adds the keys of imported top-level
    /// records to `seen` (without one, nothing needs them, and memory stays flat).
    mutating func run(seen: inout Set<UniqueKey>) throws -> ImportReport {
        if let failure = parsed.failure { throw failure }
        let plans = parsed.plans
        let skipped = parsed.skipped
        for rejection in parsed.rejected {
            try reject(rejection)
        }

        while true {
            let accepted = plans.filter { rejected[$0.index] == nil }
            var application = ImportApplication(context: context, hooks: importer.options.hooks)
            do {
                try application.findExisting(accepted.flatMap { $0.node.allNodes }, references: accepted.flatMap { $0.node.allReferences })
            } catch {
                context.rollback()
                throw error
            }
            var failed = false
            for plan in accepted {
                do {
                    try application.apply(plan.node, record: plan.index)
                } catch {
                    context.rollback()
                    try reject(Rejection(path: plan.node.path, value: nil, expected: "",
                                         reason: "\(error)").rejected(index: plan.index, record: plan.node.record))
                    failed = true
                    break
                }
            }
            if failed { continue }
            do {
                let counts = application.counts()
                for (key, value) in metadata { context.setStoreMetadata(value, forKey: key) }
                try context.save()
                return report(accepted, skipped: skipped, counts: counts, seen: &seen)
            } catch let error as ValidationError {
                context.rollback()
                let byRecord = Dictionary(grouping: error.failures) { application.record(touching: $0.objectID) }
                for (index, failures) in byRecord {
                    guard let index, let plan = accepted.first(where: { $0.index == index }) else { continue }
                    // Name the failing value as the record's reader would: entity.key, at the key.
                    let reason = failures.map { failure in
                        "\(failure.objectID.entityName)\(failure.key.map { ".\($0)" } ?? ""): \(failure.message)"
                    }.joined(separator: "; ")
                    let path = failures.first?.key.map { ImportParser.join(plan.node.path, $0) } ?? plan.node.path
                    try reject(Rejection(path: path, value: nil, expected: "", reason: reason)
                        .rejected(index: index, record: plan.node.record))
                }
                if byRecord.keys.allSatisfy({ $0 == nil }) { throw error }
            } catch {
                context.rollback()
                throw error
            }
        }
    }

    /// Records a rejection; in strict mode, stops the import.
    private mutating func reject(_ record: RejectedRecord) throws {
        rejected[record.index] = record
        if importer.options.strict {
            context.rollback()
            var report = ImportReport()
            report.recordsRead = record.index - firstIndex + 1
            report.rejected = [record]
            throw ImportError(.recordRejected, "strict import stopped at \(record); nothing of its batch was written", report: report)
        }
    }

    private func report(_ accepted: [(index: Int, node: ImportNode)], skipped: Int,
                        counts: [String: ImportReport.EntityCounts], seen: inout Set<UniqueKey>) -> ImportReport {
        var report = ImportReport()
        report.recordsRead = parsed.count
        report.recordsImported = accepted.count
        report.recordsSkipped = skipped
        report.entities = counts
        report.rejected = rejected.values.sorted { $0.index < $1.index }
        var unknown: [String: [String: Int]] = [:]
        for plan in accepted {
            if importer.options.syncScope != nil, let key = plan.node.key { seen.insert(key) }
            for node in plan.node.allNodes {
                for kind in node.coercions { report.coercions[kind, default: 0] += 1 }
                for key in node.unknownKeys { unknown[node.mapping.entity.name, default: [:]][key, default: 0] += 1 }
            }
        }
        // Named "Entity.key" once per batch, not once per record.
        for (entity, keys) in unknown {
            for (key, count) in keys { report.unknownKeys["\(entity).\(key)", default: 0] += count }
        }
        return report
    }
}

/// Top-level records read into plans, not applied yet: what the import of a batch starts from.
/// Reading touches no context, so a streamed import reads the next chunk on its reader thread.
struct ParsedRecords {
    let firstIndex: Int
    /// The number of records read.
    let count: Int
    var plans: [(index: Int, node: ImportNode)] = []
    /// Records a before-record hook skipped.
    var skipped = 0
    /// Records that could not be read, in input order.
    var rejected: [RejectedRecord] = []
    /// What stopped the reading when it was not a record's fault (e.g. an unknown transformer).
    var failure: (any Error)?

    init(_ records: some Collection<JSONValue>, as entity: Entity, firstIndex: Int, parser: ImportParser) {
        self.firstIndex = firstIndex
        count = records.count
        for (offset, record) in records.enumerated() {
            let index = firstIndex + offset
            do {
                if let node = try parser.parse(record, as: entity, path: "") {
                    plans.append((index, node))
                } else {
                    skipped += 1
                }
            } catch let rejection as Rejection {
                rejected.append(rejection.rejected(index: index, record: record))
            } catch {
                failure = error
                return
            }
        }
    }
}
