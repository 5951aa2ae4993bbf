import Foundation
import TroveModel
import TroveStore

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

/// The read-ahead of a streamed import: chunks of records, or the read failure that ends them.
typealias ChunkPipeline = ReadAhead<Result<RecordChunk, any Error>>

extension ReadAhead where Item == Result<RecordChunk, any Error> {
    /// Reads chunks of `chunkSize` records of `entity` into import plans on a thread of its
    /// own, so that reading, parsing and coercing the next chunk overlaps with applying and
    /// saving this one, at most `depth` chunks ahead. The first record is at position
    /// `firstIndex` of the input. The reader now belongs to the pipeline's thread: the caller
    /// must not touch it again. Each chunk's stored rows are read ahead from `store` too
    /// (``RowsReadAhead``).
    convenience init(reader: RecordReader, entity: Entity, firstIndex: Int, options: ImportOptions, model: Model,
                     store: any PersistentStore, chunkSize: Int, depth: Int = 2) {
        let handOver = HandOver(reader: reader)
        self.init(name: "trove.import.reader", depth: depth, store: store) { push, rowsReader in
            let mappings = MappingCache(model: model, transformers: options.transformers)
            let scanner = RecordScanner(parser: ImportParser(hooks: options.hooks) { try mappings.mapping(for: $0) }, entity: entity)
            let reader = handOver.reader
            let chunkSize = max(chunkSize, 1)
            var read = 0
            while true {
                var records: [ReadRecord] = []
                records.reserveCapacity(chunkSize)
                var failure: (any Error)?
                do {
                    while records.count < chunkSize,
                          let record = try reader.next({ bytes throws(JSONParseError) in try scanner.read(bytes) }) {
                        records.append(record)
                    }
                } catch {
                    failure = error
                }
                let ended = failure == nil && records.count < chunkSize
                if !records.isEmpty {
                    // Taken before `atEnd()`, whose reading may move the buffer.
                    var parsed = ParsedRecords(records, firstIndex: firstIndex + read, strict: options.strict)
                    parsed.readAhead = rowsReader.read(parsed)
                    var chunk = RecordChunk(records: parsed,
                                            end: reader.position, lastRecordOffset: reader.lastRecordOffsets.lowerBound,
                                            lastRecordDigest: reader.lastRecordDigest(), isLast: ended)
                    if failure == nil && !ended {
                        do { chunk.isLast = try reader.atEnd() } catch { failure = error }
                    }
                    let isLast = chunk.isLast
                    read += records.count
                    guard push(.success(chunk)) else { return }
                    if isLast { return }
                }
                if let failure {
                    _ = push(.failure(failure))
                    return
                }
                if ended { return }
            }
        }
    }

    /// Reads records already parsed into import plans, `chunkSize` a chunk, as the reader-based
    /// pipeline does (their rows read ahead from `store` too); the chunks hold no input positions.
    convenience init(records: [JSONValue], entity: Entity, options: ImportOptions, model: Model,
                     store: any PersistentStore, chunkSize: Int) {
        self.init(name: "trove.import.parser", depth: 2, store: store) { push, rowsReader in
            let mappings = MappingCache(model: model, transformers: options.transformers)
            let parser = ImportParser(hooks: options.hooks) { try mappings.mapping(for: $0) }
            let chunkSize = max(chunkSize, 1)
            for start in stride(from: 0, to: records.count, by: chunkSize) {
                let end = min(start + chunkSize, records.count)
                var parsed = ParsedRecords(records[start..<end], as: entity, firstIndex: start, parser: parser, strict: options.strict)
                parsed.readAhead = rowsReader.read(parsed)
                let chunk = RecordChunk(records: parsed, end: ReadPosition(offset: 0, line: 0), lastRecordOffset: 0,
                                        lastRecordDigest: 0, isLast: end == records.count)
                guard push(.success(chunk)) else { return }
            }
        }
    }

    /// Starts `produce` as ``init(name:depth:stopping:produce:)`` does, handing it a reader of
    /// rows ahead from `store`, which lets the store go when the pipeline stops.
    private convenience init(name: String, depth: Int, store: any PersistentStore,
                             produce: @escaping @Sendable (_ push: (Item) -> Bool, _ rows: inout RowsReadAhead.Reader) -> Void) {
        let source = RowsReadAhead.Source(store)
        self.init(name: name, depth: depth, stopping: { source.close() }) { push in
            var rows = RowsReadAhead.Reader(source)
            produce(push, &rows)
        }
    }
}

/// Moves the reader to the pipeline's thread: after the hand-over only that thread uses it.
private struct HandOver: @unchecked Sendable {
    let reader: RecordReader
}
