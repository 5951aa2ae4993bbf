import Foundation
import TroveModel

/// Records read ahead into import plans, with where the input stands after the last of them.
///
/// `@unchecked`: its plans are made on the reader thread and, once queued, used only by the
/// importer's thread.
struct RecordChunk: @unchecked Sendable {
    var records: ParsedRecords
    /// Just after the last record.
    var end: ReadPosition
    var lastRecordOffset: Int64
    var lastRecordDigest: UInt64
    /// Whether no record follows (the rest of the input was read and checked).
    var isLast: Bool
}

/// Reads chunks of records into import plans on a thread of its own, at most `depth` chunks
/// ahead of the importer, so that reading, parsing and coercing the next chunk overlaps with
/// applying and saving this one.
final class ChunkPipeline: @unchecked Sendable {
    // Every stored property below is guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [Result<RecordChunk, any Error>] = []
    /// Chunks the importer is done with, to be freed on the reader thread.
    private var spent: [RecordChunk] = []
    private var finished = false
    private var stopped = false
    private let depth: Int

    /// Starts reading records of `entity`, the first of them at position `firstIndex` of the
    /// input. The reader now belongs to the pipeline's thread: the caller must not touch it again.
    init(reader: RecordReader, entity: Entity, firstIndex: Int, options: ImportOptions, model: Model, chunkSize: Int, depth: Int = 2) {
        self.depth = depth
        let handOver = HandOver(reader: reader)
        let thread = Thread { [self] in
            let mappings = MappingCache(model: model, transformers: options.transformers)
            let parser = ImportParser(hooks: options.hooks) { try mappings.mapping(for: $0) }
            produce(handOver.reader, chunkSize: max(chunkSize, 1)) { records, first in
                ParsedRecords(records, as: entity, firstIndex: firstIndex + first, parser: parser)
            }
        }
        // Deeply nested records recurse in the parser.
        thread.stackSize = 8 << 20
        thread.name = "trove.import.reader"
        thread.start()
    }

    /// The next chunk or read failure, waiting for it; `nil` after the last.
    func next() -> Result<RecordChunk, any Error>? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !finished { condition.wait() }
        guard !queue.isEmpty else { return nil }
        let item = queue.removeFirst()
        condition.broadcast()
        return item
    }

    /// Hands back a chunk the importer is done with, so that the reader thread, not the
    /// importer's, spends the time freeing its records and plans. The caller must not use it again.
    func recycle(_ chunk: RecordChunk) {
        condition.lock()
        spent.append(chunk)
        condition.unlock()
    }

    /// Tells the reading thread to stop at its next chunk (the importer is done with it).
    func stop() {
        condition.lock()
        stopped = true
        queue = []
        condition.broadcast()
        condition.unlock()
    }

    private func produce(_ reader: RecordReader, chunkSize: Int, parse: ([JSONValue], Int) -> ParsedRecords) {
        var read = 0
        while true {
            condition.lock()
            var garbage = spent
            spent = []
            condition.unlock()
            garbage.removeAll()
            var records: [JSONValue] = []
            records.reserveCapacity(chunkSize)
            var failure: (any Error)?
            do {
                while records.count < chunkSize, let record = try reader.next() { records.append(record) }
            } catch {
                failure = error
            }
            let ended = failure == nil && records.count < chunkSize
            if !records.isEmpty {
                // Taken before `atEnd()`, whose reading may move the buffer.
                var chunk = RecordChunk(records: parse(records, read), end: reader.position, lastRecordOffset: reader.lastRecordOffsets.lowerBound,
                                        lastRecordDigest: reader.lastRecordDigest(), isLast: ended)
                if failure == nil && !ended {
                    do { chunk.isLast = try reader.atEnd() } catch { failure = error }
                }
                let isLast = chunk.isLast
                read += records.count
                guard push(.success(chunk)) else { return }
                if isLast { break }
            }
            if let failure {
                _ = push(.failure(failure))
                break
            }
            if ended { break }
        }
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Queues an item, waiting while `depth` are queued; `false` once the importer stopped.
    private func push(_ item: Result<RecordChunk, any Error>) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= depth && !stopped { condition.wait() }
        guard !stopped else { return false }
        queue.append(item)
        condition.broadcast()
        return true
    }
}

/// Moves the reader to the pipeline's thread: after the hand-over only that thread uses it.
private struct HandOver: @unchecked Sendable {
    let reader: RecordReader
}
