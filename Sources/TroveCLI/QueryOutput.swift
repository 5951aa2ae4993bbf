import ArgumentParser
import Foundation
import Trove

/// The formats `trove query` prints.
enum QueryFormat: String, ExpressibleByArgument, CaseIterable {
    /// Aligned columns under a header, for people.
    case table
    /// One JSON array of objects.
    case json
    /// One JSON object per line.
    case ndjson
    /// RFC 4180: a header row, then a row per object, lines ending in CRLF.
    case csv
}

/// Prints rows in a format as they come, through a buffer, so that memory does not grow with
/// the number of rows (a table holds its first rows only, to size its columns).
struct RowPrinter {
    private let format: QueryFormat
    private let fields: [QueryField]
    private var output = StandardOutput()
    private var rowCount = 0
    /// Table rows waiting for the column widths to be known.
    private var pendingCells: [[String]] = []
    private var widths: [Int]?

    /// How many rows a table reads before fixing its column widths.
    static let tableSample = 100
    /// The widest a table column grows; longer cells are cut with "…".
    static let tableMaximumWidth = 40

    init(format: QueryFormat, fields: [QueryField]) {
        self.format = format
        self.fields = fields
    }

    /// Prints the row of one object.
    mutating func print(_ row: [KeyPathValue]) throws {
        defer { rowCount += 1 }
        switch format {
        case .json:
            try output.write((rowCount == 0 ? "[\n  " : ",\n  ") + jsonObject(row))
        case .ndjson:
            try output.write(jsonObject(row) + "\n")
        case .csv:
            if rowCount == 0 { try output.write(csvLine(fields.map(\.name))) }
            try output.write(csvLine(zip(row, fields).map { value, field in ValueText.csv(value, type: field.attribute.type) }))
        case .table:
            let cells = zip(row, fields).map { value, field in ValueText.table(value, type: field.attribute.type) }
            if widths == nil {
                pendingCells.append(cells)
                if pendingCells.count >= Self.tableSample { try flushTableSample() }
            } else {
                try output.write(tableLine(cells))
            }
        }
    }

    /// Ends the output (closes the JSON array, prints a table's header when no row came).
    mutating func finish() throws {
        switch format {
        case .json: try output.write(rowCount == 0 ? "[]\n" : "\n]\n")
        case .csv where rowCount == 0: try output.write(csvLine(fields.map(\.name)))
        case .table where widths == nil: try flushTableSample()
        case .ndjson, .csv, .table: break
        }
        try output.flush()
    }

    // MARK: JSON

    private func jsonObject(_ row: [KeyPathValue]) -> String {
        var text = "{"
        for (index, (value, field)) in zip(row, fields).enumerated() {
            if index > 0 { text += "," }
            JSONValue.writeString(field.name, to: &text)
            text += ":" + ValueText.json(value, type: field.attribute.type)
        }
        return text + "}"
    }

    // MARK: CSV

    private func csvLine(_ cells: [String?]) -> String {
        cells.map { cell in
            guard let cell else { return "" }  // nil: an empty field; an empty string is quoted
            guard cell.isEmpty || cell.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return cell }
            return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ",") + "\r\n"
    }

    // MARK: Table

    private mutating func flushTableSample() throws {
        let header = fields.map(\.name)
        let sized = (pendingCells + [header]).reduce(into: [Int](repeating: 0, count: fields.count)) { widths, cells in
            for (index, cell) in cells.enumerated() { widths[index] = max(widths[index], Self.displayWidth(of: cell)) }
        }
        let widths = sized.map { min($0, Self.tableMaximumWidth) }
        self.widths = widths
        try output.write(tableLine(header, leftAligned: true))
        try output.write(tableLine(widths.map { String(repeating: "-", count: $0) }, leftAligned: true))
        for cells in pendingCells { try output.write(tableLine(cells)) }
        pendingCells = []
    }

    private func tableLine(_ cells: [String], leftAligned: Bool = false) -> String {
        var line = ""
        for (index, cell) in cells.enumerated() {
            let width = widths?[index] ?? Self.displayWidth(of: cell)
            let text = Self.displayWidth(of: cell) > width ? Self.truncated(cell, to: width - 1) + "…" : cell
            let padding = String(repeating: " ", count: max(0, width - Self.displayWidth(of: text)))
            if index > 0 { line += "  " }
            line += !leftAligned && fields[index].isNumeric ? padding + text : text + padding
        }
        while line.last == " " { line.removeLast() }
        return line + "\n"
    }

    /// The columns `text` takes in a terminal: two for East Asian wide characters and emoji,
    /// none for combining marks.
    static func displayWidth(of text: String) -> Int {
        text.reduce(0) { width, character in
            guard let scalar = character.unicodeScalars.first else { return width }
            return width + (isWide(scalar) || scalar.properties.isEmojiPresentation ? 2 : 1)
        }
    }

    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            true
        default:
            false
        }
    }

    /// The longest start of `text` that fits in `width` columns.
    private static func truncated(_ text: String, to width: Int) -> String {
        var result = ""
        for character in text {
            guard displayWidth(of: result + String(character)) <= width else { break }
            result.append(character)
        }
        return result
    }
}

/// How values read in each format.
enum ValueText {
    private static let dateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// JSON: strings, exact numbers, booleans, `null`; a to-many path gives an array.
    static func json(_ field: KeyPathValue, type: AttributeType) -> String {
        switch field {
        case .one(let value): return json(value, type: type)
        case .many(let values): return "[" + values.map { json($0, type: type) }.joined(separator: ",") + "]"
        }
    }

    /// CSV: the text of the value, `nil` for no value; a to-many path gives a JSON array.
    static func csv(_ field: KeyPathValue, type: AttributeType) -> String? {
        switch field {
        case .one(let value): text(value, type: type)
        case .many: json(field, type: type)
        }
    }

    /// A table cell: the text on one line, empty for no value, a to-many path's values joined
    /// by ", ".
    static func table(_ field: KeyPathValue, type: AttributeType) -> String {
        let cell = switch field {
        case .one(let value): text(value, type: type) ?? ""
        case .many(let values): values.map { text($0, type: type) ?? "" }.joined(separator: ", ")
        }
        guard cell.contains(where: { $0.isNewline || $0 == "\t" }) else { return cell }
        return cell.replacingOccurrences(of: "\r\n", with: "\\n").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\t", with: "\\t")
    }

    /// A value as JSON.
    static func json(_ value: AttributeValue, type: AttributeType) -> String {
        switch value {
        case .null: return "null"
        case .integer, .boolean, .json: return text(value, type: type) ?? "null"
        case .double(let d) where d.isFinite: return text(value, type: type) ?? "null"
        case .decimal(let d) where !d.isNaN: return text(value, type: type) ?? "null"
        case .double, .decimal: return "null"  // NaN and infinities: JSON has no such numbers
        case .string, .date, .binary, .uuid, .uri, .character:
            var out = ""
            JSONValue.writeString(text(value, type: type) ?? "", to: &out)
            return out
        }
    }

    /// A value as text: numbers with every digit, dates in ISO 8601 UTC with milliseconds,
    /// binary in base64, JSON as compact text; `nil` for no value.
    static func text(_ value: AttributeValue, type: AttributeType) -> String? {
        switch value {
        case .null: nil
        case .string(let s): s
        case .integer(let i): String(i)
        case .double(let d) where !d.isFinite: d.isNaN ? "NaN" : (d > 0 ? "Infinity" : "-Infinity")
        // A float attribute prints as the Float it holds (0.1, not 0.10000000149011612).
        case .double(let d) where type == .float: JSONValue.numberText(Double(Float(d).description) ?? d)
        case .double(let d): JSONValue.numberText(d)
        case .decimal(let d): d.isNaN ? "NaN" : d.description
        case .boolean(let b): b ? "true" : "false"
        case .date(let d): d.formatted(dateStyle)
        case .binary(let data): data.base64EncodedString()
        case .uuid(let u): u.uuidString
        case .uri(let u): u.absoluteString
        case .character(let c): String(c)
        case .json(let j): j.serialized()
        }
    }
}

/// Standard output through a buffer, written in large pieces.
struct StandardOutput {
    private var buffer: [UInt8] = []
    private static let capacity = 1 << 16

    mutating func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.capacity { try flush() }
    }

    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try FileHandle.standardOutput.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
