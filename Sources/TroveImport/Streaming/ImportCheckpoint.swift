public import Foundation
public import TroveStore

/// How far a streamed import into an entity got: saved in the store's metadata in the same
/// transaction as each chunk, so that importing the same input again resumes exactly there.
///
/// A checkpoint belongs to one input (its size and a digest of its first 64 KiB, and a digest
/// of the last record imported, checked again at resume) and one set of options (format, root,
/// strictness). The last chunk's transaction removes it.
public struct ImportCheckpoint: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The entity the top-level records go into (one checkpoint per entity).
    public var entity: String
    /// The input as the import named it: a path, or "standard input".
    public var input: String
    /// The input's size in bytes, when it is a file.
    public var inputSize: Int64?
    /// FNV-1a 64 of the input's first 64 KiB, in hex.
    public var inputHead: String
    /// The options that change what the records mean: format, root and strictness.
    public var options: String
    /// The byte offset just after the last record imported: where a resume reads on.
    public var byteOffset: Int64
    /// Newlines before `byteOffset` (NDJSON line numbers stay right after a resume).
    public var lines: Int
    /// Top-level records read before `byteOffset`.
    public var records: Int
    /// Byte offset of the last record imported.
    public var lastRecordOffset: Int64
    /// FNV-1a 64 of the last record's bytes, in hex.
    public var lastRecordDigest: String
    /// When the chunk was saved.
    public var savedAt: Date

    /// The metadata key of the checkpoint of imports into `entity`.
    public static func metadataKey(for entity: String) -> String { keyPrefix + entity }

    static let keyPrefix = "trove.import.checkpoint."

    /// Every checkpoint in `store`, by entity name.
    /// - Throws: the store's error; a checkpoint that cannot be read is left out.
    public static func all(in store: any PersistentStore) throws -> [ImportCheckpoint] {
        try store.metadata().filter { $0.key.hasPrefix(keyPrefix) }.sorted { $0.key < $1.key }.compactMap { decode($0.value) }
    }

    /// The checkpoint in a metadata value, or `nil` if it is not one.
    static func decode(_ text: String) -> ImportCheckpoint? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(ImportCheckpoint.self, from: Data(text.utf8))
    }

    /// The checkpoint as a metadata value (compact JSON).
    /// - Throws: the encoder's error (a checkpoint holds plain values, which encode); never an
    ///   empty object in its place, which would lose the place to resume from.
    func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    public var description: String {
        "\(entity): \(records) records (\(byteOffset) bytes\(inputSize.map { " of \($0)" } ?? "")) of \(input) imported, \(options), saved \(savedAt.formatted(.iso8601))"
    }
}

/// Whether a streamed import picks up an interrupted import of the same input.
public enum ResumeMode: Sendable, Hashable {
    /// Resume from the entity's checkpoint when it belongs to this input and options; else start
    /// over (the new import's first chunk replaces the checkpoint).
    case resume
    /// Start from the first record whatever the checkpoint says.
    case restart
}

/// How far an import has got, as it goes.
public struct ImportProgress: Sendable, Hashable {
    /// Bytes of the input read and imported (a resumed import starts at its checkpoint).
    public var bytesRead: Int64
    /// The input's size, when it is a file.
    public var totalBytes: Int64?
    /// Top-level records read (those before a resumed checkpoint included).
    public var recordsRead: Int
    /// Top-level records rejected in this run.
    public var recordsRejected: Int
    /// Time since this run started.
    public var elapsed: Duration
    /// Records per second in this run.
    public var recordsPerSecond: Double
    /// Whether the last record is saved.
    public var isFinished: Bool

    /// The share of the input done, from 0 to 1, when its size is known.
    public var fractionCompleted: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, Double(bytesRead) / Double(totalBytes))
    }

    /// The time left at this run's rate, when the input's size is known.
    public var estimatedTimeRemaining: Duration? {
        guard let fraction = fractionCompleted, fraction > 0, let totalBytes else { return nil }
        let seconds = elapsed.inSeconds
        let doneThisRun = Double(bytesRead - startBytes)
        guard doneThisRun > 0 else { return nil }
        return .seconds(seconds * Double(totalBytes - bytesRead) / doneThisRun)
    }

    /// Where this run started in the input (a resumed import's checkpoint).
    public var startBytes: Int64

    /// Whether this is the report an import gives before waiting for another import of the
    /// same input file to end (its checkpoint is that import's until then); nothing is read yet.
    public var isWaiting: Bool

    /// Whether this is the report a resumed import gives before reading anything: where it
    /// resumes (``bytesRead`` and ``recordsRead``), nothing imported by this run yet.
    public var isResumePoint: Bool {
        startBytes > 0 && bytesRead == startBytes && elapsed == .zero
    }

    /// Creates a progress value (Trove makes them; this is for previews and tests).
    public init(bytesRead: Int64, totalBytes: Int64?, recordsRead: Int, recordsRejected: Int, elapsed: Duration,
                recordsPerSecond: Double, isFinished: Bool, startBytes: Int64 = 0, isWaiting: Bool = false) {
        self.bytesRead = bytesRead
        self.totalBytes = totalBytes
        self.recordsRead = recordsRead
        self.recordsRejected = recordsRejected
        self.elapsed = elapsed
        self.recordsPerSecond = recordsPerSecond
        self.isFinished = isFinished
        self.startBytes = startBytes
        self.isWaiting = isWaiting
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
