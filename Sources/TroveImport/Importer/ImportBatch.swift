import TroveContext
import TroveModel
import TroveStore

/// One batch of top-level records: read, find-or-create, apply, save. When applying or saving
/// fails for some records, the context is rolled back and the batch runs again without them,
/// so that a rejected record never leaves part of itself behind.
struct ImportBatch {
    let importer: Importer
    let entity: Entity
    let parsed: ParsedRecords
    /// Store metadata saved in the batch's transaction (a streamed import's checkpoint).
    var metadata: [String: String?] = [:]
    var rejected: [Int: RejectedRecord] = [:]
    /// The rows the batch applied and saved, kept after its run so that the caller can free
    /// them on a thread with time to spare (``ReadAhead/recycle(_:)``).
    var appliedRows: RowApplication?

    /// A batch of records read already (perhaps on another thread).
    init(importer: Importer, entity: Entity, parsed: ParsedRecords) {
        self.importer = importer
        self.entity = entity
        self.parsed = parsed
    }

    var context: ObjectContext { importer.context }
    private var firstIndex: Int { parsed.firstIndex }

    /// Imports the batch and saves it — as rows when nothing needs objects (see
    /// ``RowApplication``), else as objects; with a sync scope, adds the keys of imported
    /// top-level records to `seen` (without one, nothing needs them, and memory stays flat).
    private mutating func run(seen: inout Set<UniqueKey>, cache: inout RowCache) throws -> ImportReport {
        if let failure = parsed.failure { throw failure }
        for rejection in parsed.rejected {
            try reject(rejection)
        }
        let obstacle = context.rowSaveObstacle ?? RowApplication.unsupportedReason(parsed.needs, context: context,
                                                                                    hooks: importer.options.hooks)
        guard let obstacle else { return try runAsRows(seen: &seen, cache: &cache) }
        var report = try runAsObjects(seen: &seen)
        report.appliedAsObjects = obstacle
        return report
    }

    /// Runs the batch and adds what it did to `report` (see ``merge(into:_:)``). `cache` holds
    /// the rows earlier batches of the same import left.
    mutating func run(seen: inout Set<UniqueKey>, cache: inout RowCache, into report: inout ImportReport) throws {
        try merge(into: &report) { batch in try batch.run(seen: &seen, cache: &cache) }
    }

    /// Adds what `body` did with the batch to `report`, and hands the records it rejected
    /// over; a strict import's rejection is rethrown carrying the whole `report` so far.
    mutating func merge(into report: inout ImportReport, _ body: (inout ImportBatch) throws -> ImportReport) throws {
        do {
            let done = try body(&self)
            try handOver(done.rejected)
            report.merge(done)
        } catch let error as ImportError where error.code == .recordRejected {
            let stopped = error.report ?? ImportReport()
            try handOver(stopped.rejected)
            report.merge(stopped)
            throw ImportError(.recordRejected, error.message, report: report)
        }
    }

    /// Hands every record the batch rejected (a batch's report keeps them all) to the options'
    /// ``ImportOptions/onRejected``.
    func handOver(_ records: [RejectedRecord]) throws {
        guard let onRejected = importer.options.onRejected else { return }
        for record in records { try onRejected(record) }
    }

    /// Applies and saves the batch as rows. When the save collides with another writer's
    /// commit (see ``isCollision(_:since:)``), runs again holding the store's write lock
    /// (`alone`), reading every row then.
    mutating func runAsRows(seen: inout Set<UniqueKey>, cache: inout RowCache, alone: Bool = false) throws -> ImportReport {
        let current = try context.store.changeToken()
        cache.check(against: current)
        let readAhead = alone ? nil : parsed.readAhead.flatMap { rows in
            cache.keysWritten(since: rows.token, current: current).map { (rows: rows, stale: $0) }
        }
        let (accepted, rows) = try applyAsRows(cache: cache, readAhead: readAhead)
        do {
            try importer.beforeBatchSave?()
            let counts = try rows.save(metadata: metadata, cache: &cache)
            appliedRows = rows
            return report(accepted, counts: counts, seen: &seen)
        } catch where !alone && isCollision(error, since: readAhead == nil ? current : nil) {
            cache.forget()
            return try context.store.writingExclusively { try runAsRows(seen: &seen, cache: &cache, alone: true) }
        }
    }

    /// Applies the records not rejected so far as rows, found in `cache`, in `readAhead` (for
    /// the keys not written since) or in the store, rejecting those whose objects break the
    /// model's rules until none does; returns the records applied and their rows.
    mutating func applyAsRows(cache: RowCache, readAhead: (rows: RowsReadAhead, stale: RowCache.WrittenKeys)?) throws
        -> (accepted: [ParsedRecords.Plan], rows: RowApplication) {
        while true {
            let accepted = acceptedPlans
            var rows = RowApplication(context: context) { [importer] in try importer.mapping(for: $0) }
            try rows.findExisting(lookups(of: accepted), cache: cache, readAhead: readAhead)
            for plan in accepted {
                try rows.apply(plan.node, record: plan.index)
            }
            let failures = rows.validate()
            if failures.isEmpty { return (accepted, rows) }
            try rejectInvalid(ValidationError(failures: failures), accepted, blaming: rows.touched)
        }
    }

    /// Applies and saves the batch as objects; on a collision with another writer's commit,
    /// runs again holding the store's write lock, as ``runAsRows(seen:cache:alone:)`` does.
    private mutating func runAsObjects(seen: inout Set<UniqueKey>, alone: Bool = false) throws -> ImportReport {
        let current = try context.store.changeToken()
        while true {
            let accepted = acceptedPlans
            var application = ImportApplication(context: context, hooks: importer.options.hooks)
            do {
                try application.findExisting(lookups(of: accepted), nodes: accepted.flatMap(\.nodes))
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
                                         reason: "\(error)").rejected(index: plan.index, record: try plan.node.record))
                    failed = true
                    break
                }
            }
            if failed { continue }
            do {
                try importer.beforeBatchSave?()
                let counts = try application.counts()
                for (key, value) in metadata { context.setStoreMetadata(value, forKey: key) }
                try context.save()
                return report(accepted, counts: counts, seen: &seen)
            } catch let error as ValidationError {
                context.rollback()
                try rejectInvalid(error, accepted, blaming: application.touched)
            } catch where !alone && isCollision(error, since: current) {
                // The objects read stay registered: read them again, as the other writer left them.
                context.rollback()
                try context.refreshAllObjects()
                return try context.store.writingExclusively { try runAsObjects(seen: &seen, alone: true) }
            } catch {
                context.rollback()
                throw error
            }
        }
    }

    /// Whether a failed save collided with another writer's commit since the batch's reads: a
    /// row it read changed (``ConflictError``), or a unique key it read as missing was inserted
    /// (a constraint violation), while the store's change token moved since `token`, taken
    /// before the reads (`nil` when some rows were read before it, ahead of time: then any
    /// constraint violation may be one). Running the batch again with the write lock held —
    /// no other commit between its reads and its save — gives what running it after the other
    /// writer would: no retry loop, one more run at most.
    func isCollision(_ error: any Error, since token: StoreChangeToken?) -> Bool {
        guard error is ConflictError || (error as? StoreError)?.code == .constraintViolation else { return false }
        guard let token else { return true }
        // A token that cannot be read counts as moved: the run under the lock then tells.
        return (try? context.store.changeToken()) != token
    }

    /// The plans of the records not rejected so far (all of them, shared not copied, when none is).
    var acceptedPlans: [ParsedRecords.Plan] {
        rejected.isEmpty ? parsed.plans : parsed.plans.filter { rejected[$0.index] == nil }
    }

    /// The find queries of the accepted plans: made while reading, unless records were rejected since.
    func lookups(of accepted: [ParsedRecords.Plan]) -> [KeyLookup] {
        accepted.count == parsed.plans.count ? parsed.lookups : KeyLookup.lookups(accepted)
    }

    /// Rejects the records whose objects break the model's rules, naming each failing value as
    /// the record's reader would (entity.key, at the key); rethrows `error` when no record is to
    /// blame. `touched` tells the last record that touched an object, and the object's key.
    ///
    /// A record's failures are listed in the order the record reads (the object of the record
    /// first, then those nested in it, in the model's order), each object's in the model's order
    /// of its attributes, then relationships; the rejection's path is the first one's. Rows and
    /// objects find failures in other orders (rows in the batch's, objects by insertion and
    /// update): sorted here, both paths give the same rejection.
    mutating func rejectInvalid(_ error: ValidationError, _ accepted: [ParsedRecords.Plan],
                                        blaming touched: (ObjectID) -> (record: Int, key: UniqueKey?)?) throws {
        typealias Blamed = (rank: (node: Int, key: Int), path: String, failure: ValidationError.Failure)
        var byRecord: [Int: (plan: ParsedRecords.Plan, failures: [Blamed])] = [:]
        for failure in error.failures {
            guard let (record, key) = touched(failure.objectID) else { continue }
            // The record that set the failing value, else the last one that touched the object.
            let setter = Self.setter(of: failure.key, on: key, in: accepted)
            guard let plan = setter?.0 ?? accepted.first(where: { $0.index == record }) else { continue }
            // The object's place in the record: the node that set the value, else the record's
            // node of the object, else after the record's nodes (an object it only names: a stub).
            let position = setter.map { found in plan.nodes.firstIndex { $0 === found.1 } ?? 0 }
                ?? key.flatMap { key in plan.nodes.firstIndex { $0.key == key } }
            let node = position.map { plan.nodes[$0] } ?? plan.node
            let named = key.flatMap { key in plan.references.firstIndex { $0.key == key } }.map { plan.nodes.count + $0 }
            let rank = (node: position ?? named ?? plan.nodes.count + plan.references.count, key: rank(of: failure))
            if setter == nil, !failure.objectID.isTemporary, let name = failure.key {
                // A stored object's value that no record sets: the object is saved whole (as
                // Core Data validates it), so the record cannot land until the value is fixed.
                let stored = ValidationError.Failure(
                    objectID: failure.objectID, key: name, rule: failure.rule,
                    message: "the stored value breaks the model's rule: \(failure.message); the record does not set \(name), but \(failure.objectID.entityName) objects are saved whole, so set a valid \(name) in the record or fix the stored object, then import again")
                byRecord[plan.index, default: (plan, [])].failures.append((rank, node.path, stored))
                continue
            }
            let path = failure.key.map { ImportParser.join(node.path, $0) } ?? node.path
            byRecord[plan.index, default: (plan, [])].failures.append((rank, path, failure))
        }
        for index in byRecord.keys.sorted() {
            guard let blamed = byRecord[index] else { continue }
            // Stable: one attribute's failures stay in the order its rules are checked.
            let failures = blamed.failures.enumerated().sorted { a, b in
                (a.element.rank.node, a.element.rank.key, a.offset) < (b.element.rank.node, b.element.rank.key, b.offset)
            }.map(\.element)
            let reason = failures.map { blamed in
                "\(blamed.failure.objectID.entityName)\(blamed.failure.key.map { ".\($0)" } ?? ""): \(blamed.failure.message)"
            }.joined(separator: "; ")
            try reject(Rejection(path: failures.first?.path ?? blamed.plan.node.path, value: nil, expected: "", reason: reason)
                .rejected(index: index, record: try blamed.plan.node.record))
        }
        if byRecord.isEmpty { throw error }
    }

    /// Where a failure's key comes in its entity: attributes in the model's order, then
    /// relationships, then a failure of the object as a whole (no key).
    private func rank(of failure: ValidationError.Failure) -> Int {
        guard let key = failure.key, let entity = context.model.entity(named: failure.objectID.entityName) else { return Int.max }
        if let position = entity.attributeIndex(named: key) { return position }
        if let position = entity.relationshipIndex(named: key) { return entity.attributes.count + position }
        return Int.max
    }

    /// The last plan, and its node, that set `name` on the object with `key`.
    private static func setter(of name: String?, on key: UniqueKey?, in plans: [ParsedRecords.Plan]) -> (ParsedRecords.Plan, ImportNode)? {
        guard let name, let key else { return nil }
        for plan in plans.reversed() {
            for node in plan.nodes.reversed() where node.key == key {
                let entity = node.mapping.entity
                if let position = entity.attributeIndex(named: name), node.values.contains(where: { $0.index == position }) { return (plan, node) }
                if let position = entity.relationshipIndex(named: name), node.toOne.contains(where: { $0.index == position }) { return (plan, node) }
            }
        }
        return nil
    }

    /// Records a rejection; in strict mode, stops the import.
    mutating func reject(_ record: RejectedRecord) throws {
        rejected[record.index] = record
        if importer.options.strict {
            context.rollback()
            var report = ImportReport()
            report.recordsRead = record.index - firstIndex + 1
            report.rejected = [record]
            report.rejectedCount = 1
            throw ImportError(.recordRejected, "strict import stopped at \(record); nothing of its batch was written", report: report)
        }
    }

    func report(_ accepted: [ParsedRecords.Plan],
                        counts: [String: ImportReport.EntityCounts], seen: inout Set<UniqueKey>) -> ImportReport {
        var report = ImportReport()
        report.recordsRead = parsed.count
        report.recordsImported = accepted.count
        report.recordsSkipped = parsed.skipped
        report.entities = counts
        report.rejected = rejected.values.sorted { $0.index < $1.index }
        report.rejectedCount = rejected.count
        if importer.options.syncScope != nil {
            for plan in accepted {
                if let key = plan.node.key { seen.insert(key) }
            }
        }
        let tally = accepted.count == parsed.plans.count ? parsed.tally : ParsedRecords.Tally(accepted)
        report.coercions = tally.coercions
        report.unknownKeys = tally.unknownKeys
        report.misnamedKeys = tally.misnamedKeys
        return report
    }
}

/// Top-level records read into plans, not applied yet: what the import of a batch starts from.
/// Reading touches no context, so a streamed import reads the next chunk on its reader thread,
/// and does there all the work on the plans that needs no context.
struct ParsedRecords {
    /// A top-level record's plan.
    struct Plan {
        /// The record's position in the input.
        let index: Int
        let node: ImportNode
        /// The node and every node nested in it.
        let nodes: [ImportNode]
        /// Every reference (scalar key) in those nodes.
        let references: [(key: UniqueKey, destination: Entity)]

        init(index: Int, node: ImportNode) {
            self.index = index
            self.node = node
            var nodes: [ImportNode] = []
            // Room for the node and its nested objects one level down: most records need no more.
            nodes.reserveCapacity(1 + node.toOne.count)
            var references: [(key: UniqueKey, destination: Entity)] = []
            node.collect(into: &nodes, references: &references)
            self.nodes = nodes
            self.references = references
        }
    }

    /// The coercions and unknown keys of some plans, as the report counts them.
    struct Tally {
        var coercions: [CoercionKind: Int] = [:]
        /// Counts by "Entity.key".
        var unknownKeys: [String: Int] = [:]
        /// Those of ``unknownKeys`` that name a property read under other keys.
        var misnamedKeys: [String: MisnamedKey] = [:]

        init(_ plans: [Plan]) {
            // A batch performs a few kinds of coercion: counted in a short list, not hashed each time.
            var kinds: [(kind: CoercionKind, count: Int)] = []
            // By mapping (one per entity) and key, named "Entity.key" once per batch, not once per
            // record. Records repeat a few unknown keys: the first 16 met are counted in a short
            // list (compared, not hashed), any others by hash.
            struct Unknown: Hashable {
                let mapping: ObjectIdentifier
                let key: String
            }
            var frequent: [(unknown: Unknown, count: Int)] = []
            var others: [Unknown: Int] = [:]
            var entities: [(mapping: ObjectIdentifier, entity: EntityMapping)] = []
            for plan in plans {
                for node in plan.nodes {
                    for kind in node.coercions {
                        if let at = kinds.firstIndex(where: { $0.kind == kind }) { kinds[at].count += 1 } else { kinds.append((kind, 1)) }
                    }
                    guard !node.unknownKeys.isEmpty else { continue }
                    let mapping = ObjectIdentifier(node.mapping)
                    if !entities.contains(where: { $0.mapping == mapping }) { entities.append((mapping, node.mapping)) }
                    for key in node.unknownKeys {
                        if let at = frequent.firstIndex(where: { $0.unknown.mapping == mapping && $0.unknown.key == key }) {
                            frequent[at].count += 1
                        } else if frequent.count < 16 {
                            frequent.append((Unknown(mapping: mapping, key: key), 1))
                        } else {
                            others[Unknown(mapping: mapping, key: key), default: 0] += 1
                        }
                    }
                }
            }
            for (kind, count) in kinds { coercions[kind, default: 0] += count }
            for (found, count) in frequent + others.map({ ($0.key, $0.value) }) {
                guard let mapping = entities.first(where: { $0.mapping == found.mapping })?.entity else { continue }
                let name = "\(mapping.entity.name).\(found.key)"
                unknownKeys[name, default: 0] += count
                if let misnamed = mapping.misnamed[found.key] { misnamedKeys[name] = misnamed }
            }
        }
    }

    let firstIndex: Int
    /// The number of records read.
    let count: Int
    var plans: [Plan] = []
    /// The tally of all plans (the report's, when no record is rejected while applying).
    private(set) var tally = Tally([])
    /// The find queries of all plans.
    private(set) var lookups: [KeyLookup] = []
    /// What the plans need to be applied as rows.
    private(set) var needs: [RowApplication.Need] = []
    /// The stored rows of the records' keys, when read ahead (``RowsReadAhead``).
    var readAhead: RowsReadAhead?
    /// Records a before-record hook skipped.
    var skipped = 0
    /// Records that could not be read, in input order.
    var rejected: [RejectedRecord] = []
    /// What stopped the reading when it was not a record's fault (e.g. an unknown transformer).
    var failure: (any Error)?

    /// The plans of records read (by the ``ImportParser`` or the ``RecordScanner``), the first
    /// at position `firstIndex` of the input; `strict` rejects the records holding a key that
    /// is the name of a property read under other keys (``ImportReport/misnamedKeys``).
    init(_ records: some Collection<ReadRecord>, firstIndex: Int, strict: Bool) {
        self.firstIndex = firstIndex
        count = records.count
        defer {
            tally = Tally(plans)
            lookups = KeyLookup.lookups(plans)
            needs = RowApplication.needs(of: plans)
        }
        for (offset, record) in records.enumerated() {
            let index = firstIndex + offset
            switch record.outcome {
            case .success(let node?):
                let plan = Plan(index: index, node: node)
                guard strict, let rejection = Self.misnamedKey(in: plan) else {
                    plans.append(plan)
                    continue
                }
                do {
                    rejected.append(rejection.rejected(index: index, record: try record.source.value))
                } catch {
                    failure = error
                    return
                }
            case .success(nil): skipped += 1
            case .failure(let rejection as Rejection):
                do {
                    rejected.append(rejection.rejected(index: index, record: try record.source.value))
                } catch {
                    failure = error
                    return
                }
            case .failure(let error):
                failure = error
                return
            }
        }
    }

    /// The plans of parsed records, read by `parser`.
    init(_ records: some Collection<JSONValue>, as entity: Entity, firstIndex: Int, parser: ImportParser, strict: Bool) {
        self.init(records.map { ReadRecord($0, as: entity, parser: parser) }, firstIndex: firstIndex, strict: strict)
    }

    /// Why a strict import rejects a record: the first key of its objects (in the record's
    /// order) that is the name of a property read under other keys; `nil` when there is none.
    private static func misnamedKey(in plan: Plan) -> Rejection? {
        for node in plan.nodes {
            for key in node.unknownKeys {
                guard let misnamed = node.mapping.misnamed[key] else { continue }
                let value = (try? node.record)?.objectValue?[key]
                return Rejection(path: ImportParser.join(node.path, key), value: value,
                                 expected: misnamed.remoteKeys.map { "the key '\($0)'" }.joined(separator: " or "),
                                 reason: "\(misnamed) (a strict import rejects the record)")
            }
        }
        return nil
    }
}
