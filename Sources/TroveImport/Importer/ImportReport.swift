import TroveModel

/// What an import did: objects inserted, updated, unchanged, deleted and stubbed per entity,
/// coercions performed, unknown keys seen, and how many records were rejected, with the first
/// ``rejectedKept`` of them and their reasons (``ImportOptions/onRejected`` sees every one).
public struct ImportReport: Sendable, Codable, Hashable {
    /// The counts of one entity.
    public struct EntityCounts: Sendable, Codable, Hashable {
        /// Objects created from records.
        public var inserted = 0
        /// Existing objects whose values or relationships changed.
        public var updated = 0
        /// Existing objects the payload named that already held those values.
        public var unchanged = 0
        /// Objects deleted (orphans of `replaceDeletingOrphans`, or outside the payload in a sync scope).
        public var deleted = 0
        /// Objects created holding only their key, for references to objects not in the store yet.
        public var stubs = 0

        /// Empty counts.
        public init() {}
    }

    /// Top-level records read.
    public var recordsRead = 0
    /// Top-level records imported (read less rejected and skipped).
    public var recordsImported = 0
    /// Top-level records a before-record hook skipped.
    public var recordsSkipped = 0
    /// Counts per entity name.
    public var entities: [String: EntityCounts] = [:]
    /// How many values of each kind were converted to fit their attribute.
    public var coercions: [CoercionKind: Int] = [:]
    /// Record keys no attribute or relationship reads, as `Entity.key`, with how often seen.
    /// Keys named after a transient or derived attribute are among them: the importer never
    /// sets either kind.
    public var unknownKeys: [String: Int] = [:]
    /// The unknown keys that are the name of an attribute or relationship read under other
    /// keys (its `remoteKey`), as `Entity.key` (their counts are in ``unknownKeys``): a record
    /// naming `uploadDate` where the remote key is `upload_date` loses that value, which surely
    /// was meant for the attribute. ``warnings`` says so; a strict import rejects such records.
    public var misnamedKeys: [String: MisnamedKey] = [:]
    /// Top-level records rejected, all of them.
    public var rejectedCount = 0
    /// The first ``rejectedKept`` rejected records, in input order: memory stays flat however
    /// many are rejected. ``ImportOptions/onRejected`` hands over every one, as the import goes.
    public var rejected: [RejectedRecord] = []
    /// How many rejected records a report keeps in ``rejected``: 100.
    public static let rejectedKept = 100
    /// Why a sync scope deleted nothing, when it did not run.
    public var syncScopeSkipped: String?
    /// Where a streamed import resumed from its checkpoint: the records before it were
    /// imported by an earlier, interrupted run (and are not counted here); `nil` for a run
    /// from the start.
    public var resumedAt: ResumePoint?
    /// Why records went through managed objects — the slower path — rather than being written
    /// as rows, when some did: the first reason met (e.g. "Photo has an after-record hook");
    /// `nil` when every batch was written as rows.
    public var appliedAsObjects: String?

    /// Where an interrupted streamed import picked up again.
    public struct ResumePoint: Sendable, Codable, Hashable {
        /// Top-level records read before the checkpoint.
        public var records: Int
        /// Byte offset of the checkpoint in the input.
        public var byteOffset: Int64

        /// Creates a resume point.
        public init(records: Int, byteOffset: Int64) {
            self.records = records
            self.byteOffset = byteOffset
        }
    }

    /// An empty report.
    public init() {}

    /// Adds `other`'s counts to this report.
    public mutating func merge(_ other: ImportReport) {
        recordsRead += other.recordsRead
        recordsImported += other.recordsImported
        recordsSkipped += other.recordsSkipped
        for (name, counts) in other.entities {
            entities[name, default: EntityCounts()].add(counts)
        }
        coercions.merge(other.coercions, uniquingKeysWith: +)
        unknownKeys.merge(other.unknownKeys, uniquingKeysWith: +)
        misnamedKeys.merge(other.misnamedKeys) { mine, _ in mine }
        rejectedCount += other.rejectedCount
        if rejected.count < Self.rejectedKept { rejected += other.rejected.prefix(Self.rejectedKept - rejected.count) }
        syncScopeSkipped = other.syncScopeSkipped ?? syncScopeSkipped
        resumedAt = resumedAt ?? other.resumedAt
        appliedAsObjects = appliedAsObjects ?? other.appliedAsObjects
    }
}

extension ImportReport: CustomStringConvertible {
    /// `2040 records read, 2031 imported, 9 rejected; Photo: 1990 inserted, 41 updated`, then
    /// the rejections, one a line.
    public var description: String {
        var parts = ["\(recordsRead) records read", "\(recordsImported) imported"]
        if recordsSkipped > 0 { parts.append("\(recordsSkipped) skipped") }
        if rejectedCount > 0 { parts.append("\(rejectedCount) rejected") }
        var text = parts.joined(separator: ", ")
        let counts = entities.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        if !counts.isEmpty { text += "; " + counts.joined(separator: "; ") }
        if let resumedAt { text += "; resumed after record \(resumedAt.records)" }
        var lines = [text] + warnings.map { "  warning: \($0)" } + rejected.map { "  \($0)" }
        if rejectedCount > rejected.count { lines.append("  … and \(rejectedCount - rejected.count) more rejected records") }
        return lines.joined(separator: "\n")
    }
}

extension ImportReport {
    /// What the import ignored that the records surely meant, one sentence each (empty when
    /// nothing): each of ``misnamedKeys``, with how often it was seen, in name order.
    public var warnings: [String] {
        misnamedKeys.sorted { $0.key < $1.key }.map { name, key in
            let times = unknownKeys[name] ?? 0
            return "\(key) (seen \(times) time\(times == 1 ? "" : "s"))"
        }
    }
}

/// A record key that is the name of an attribute or relationship read under other keys (its
/// `remoteKey`): the import ignores it, though its value surely was meant for the property.
public struct MisnamedKey: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The entity whose records hold the key.
    public let entity: String
    /// The attribute or relationship the key names (and the key itself).
    public let property: String
    /// `attribute` or `relationship`.
    public let kind: String
    /// The keys the property is read under, as the model gives them (dotted paths joined).
    public let remoteKeys: [String]

    /// Creates a description of a misnamed key.
    public init(entity: String, property: String, kind: String, remoteKeys: [String]) {
        self.entity = entity
        self.property = property
        self.kind = kind
        self.remoteKeys = remoteKeys
    }

    /// `the key 'uploadDate' of Photo records was ignored: the attribute uploadDate is read
    /// from 'upload_date' only; rename the key, or add it to the attribute's remoteKey`.
    public var description: String {
        let keys = remoteKeys.map { "'\($0)'" }.joined(separator: " or ")
        return "the key '\(property)' of \(entity) records was ignored: the \(kind) \(property) is read from \(keys) only;"
            + " rename the key to \(keys), or add '\(property)' to the \(kind)'s remoteKey"
    }
}

extension ImportReport.EntityCounts: CustomStringConvertible {
    /// `1990 inserted, 41 updated, 3 stubs`: the counts that are not zero (`nothing` when all are).
    public var description: String {
        let counts = [(inserted, "inserted"), (updated, "updated"), (unchanged, "unchanged"), (deleted, "deleted"), (stubs, "stubs")]
        let shown = counts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return shown.isEmpty ? "nothing" : shown.joined(separator: ", ")
    }
}

extension ImportReport.EntityCounts {
    mutating func add(_ other: ImportReport.EntityCounts) {
        inserted += other.inserted
        updated += other.updated
        unchanged += other.unchanged
        deleted += other.deleted
        stubs += other.stubs
    }
}

/// A record that was not imported, and why; nothing of it was written.
public struct RejectedRecord: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The record's position among the top-level records, from 0.
    public let index: Int
    /// Where in the record the fault is, as a JSON path (`owner.photos[2].views`); empty for
    /// the record as a whole.
    public let path: String
    /// The start of the value at fault.
    public let excerpt: String
    /// What was expected there (an attribute type, "an object", …).
    public let expected: String
    /// Why it was rejected.
    public let reason: String
    /// The whole record as compact JSON, to fix and import again.
    public let record: String

    public var description: String {
        let place = path.isEmpty ? "record \(index)" : "record \(index) at \(path)"
        return excerpt.isEmpty ? "\(place): \(reason)" : "\(place): \(reason) (got \(excerpt), expected \(expected))"
    }
}

/// An import could not run, or (in strict mode) stopped at a rejected record.
public struct ImportError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidJSON, rootNotFound, unknownEntity, unknownTransformer, contextHasChanges, recordRejected, syncScope
            case unreadableInput, cancelled, invalidOptions
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The input is not valid JSON; the message has the line, column and byte offset.
        public static let invalidJSON = Code(.invalidJSON)
        /// The `root` key path does not lead to an array or object in the input.
        public static let rootNotFound = Code(.rootNotFound)
        /// The model has no such entity, or it is abstract.
        public static let unknownEntity = Code(.unknownEntity)
        /// The model names a transformer that is not registered.
        public static let unknownTransformer = Code(.unknownTransformer)
        /// The context had unsaved changes, which the import's saves would mix in.
        public static let contextHasChanges = Code(.contextHasChanges)
        /// Strict mode stopped at a rejected record; nothing of that batch was written.
        public static let recordRejected = Code(.recordRejected)
        /// The sync scope cannot be used (its entity has no unique key, or the predicate is wrong).
        public static let syncScope = Code(.syncScope)
        /// The input cannot be opened or read (or a resume cannot reach its checkpoint in it).
        public static let unreadableInput = Code(.unreadableInput)
        /// The import was cancelled; it stopped at a chunk boundary with its checkpoint kept.
        public static let cancelled = Code(.cancelled)
        /// An option is out of its range (``ImportOptions/batchSizes``); nothing was read or written.
        public static let invalidOptions = Code(.invalidOptions)

        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What was wrong, where, and what to do.
    public let message: String
    /// What the import did before it stopped (strict mode), if it ran.
    public let report: ImportReport?

    /// Creates an error.
    public init(_ code: Code, _ message: String, report: ImportReport? = nil) {
        self.code = code
        self.message = message
        self.report = report
    }

    public var description: String { message }
}
