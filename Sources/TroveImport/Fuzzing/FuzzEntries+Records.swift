package import Foundation
package import TroveModel

extension FuzzEntries {
    /// The record scanner: what `RecordReader` finds in JSON text (a top-level array of records,
    /// or one record: an object) and in NDJSON is what parsing the whole text, or each line,
    /// finds; and it refuses exactly the inputs those parses refuse (and JSON text whose top
    /// level is neither an array nor an object). The first byte of the input sets the read
    /// buffer's size (1 to 64 bytes), so records cross buffer boundaries at every place.
    package static func recordScanner(_ data: Data) -> FuzzOutcome {
        let readSize = 1 + Int(data.first ?? 0) % 64
        let scanned = (json: records(of: data, format: .json(root: nil), readSize: readSize),
                       ndjson: records(of: data, format: .ndjson, readSize: readSize))

        let whole: [JSONValue]?
        switch try? JSONValue(parsing: data) {
        case .array(let elements)?: whole = elements
        case .object(let members)?: whole = [.object(members)]
        default: whole = nil
        }
        guard scanned.json == whole else {
            return .broken("JSON records \(describe(scanned.json)), whole-text parse \(describe(whole))")
        }

        var lines: [JSONValue]? = []
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let trimmed = line.drop(while: isJSONWhitespace).reversed().drop(while: isJSONWhitespace).reversed()
            guard !trimmed.isEmpty else { continue }
            guard let value = try? JSONValue(parsing: Data(trimmed)) else { lines = nil; break }
            lines?.append(value)
        }
        guard scanned.ndjson == lines else {
            return .broken("NDJSON records \(describe(scanned.ndjson)), line-by-line parse \(describe(lines))")
        }
        return whole == nil && lines == nil ? .rejected : .accepted
    }

    /// Every record the reader returns, or `nil` when it stops on a fault.
    private static func records(of data: Data, format: RecordFormat, readSize: Int) -> [JSONValue]? {
        let reader = RecordReader(input: ByteInput(data: data, readSize: readSize), format: format)
        var records: [JSONValue] = []
        do {
            while let record = try reader.next() { records.append(record) }
        } catch {
            return nil
        }
        return records
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    private static func describe(_ records: [JSONValue]?) -> String {
        records.map { "\($0.count) records" } ?? "a fault"
    }
}
