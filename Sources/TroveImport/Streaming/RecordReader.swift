import TroveModel

/// How a streamed input holds its records.
public enum RecordFormat: Sendable, Hashable, CustomStringConvertible {
    /// JSON text: a top-level array of records (or one record); with `root`, a dotted key path
    /// such as `photos.photo`, the array (or record) at that path of the top-level object.
    case json(root: String?)
    /// Newline-delimited JSON: one record per line; blank lines are skipped.
    case ndjson

    public var description: String {
        switch self {
        case .json(let root): root.map { "json at \($0)" } ?? "json"
        case .ndjson: "ndjson"
        }
    }
}

/// Where a reader starts: a byte offset just after a record, and (NDJSON) the lines before it.
struct ReadPosition: Sendable, Hashable, Codable {
    var offset: Int64
    var line: Int
}

/// Reads the records of an input one at a time, holding only the read buffer: each record is
/// found by a byte scan (strings and nesting), then parsed in place. A fault stops the reader
/// with its byte offset (and line, for NDJSON); the records before it were returned.
final class RecordReader {
    private enum State {
        case begin
        case inArray(first: Bool)
        case single
        case done
    }

    let input: ByteInput
    let format: RecordFormat
    private let path: [String]
    private var state: State
    /// Newlines consumed, so the next record is on line `lines + 1` or later.
    private(set) var lines = 0
    /// The offset just after the last newline consumed (for columns in messages).
    private var lineStart: Int64 = 0
    /// The last record's place in the buffer, valid until the buffer is next filled (by
    /// `next()` or `atEnd()`).
    private var lastRange: Range<Int> = 0..<0

    /// A reader from the input's current position, which is `resume` when given (just after a
    /// record of the array, or of the lines), else the start.
    init(input: ByteInput, format: RecordFormat, resume: ReadPosition? = nil) {
        self.input = input
        self.format = format
        if case .json(let root?) = format {
            path = root.split(separator: ".").map(String.init)
        } else {
            path = []
        }
        if let resume {
            lines = resume.line
            lineStart = resume.offset
            state = format == .ndjson ? .begin : .inArray(first: false)
        } else {
            state = .begin
        }
    }

    /// Where the reader is: just after the last record returned.
    var position: ReadPosition { ReadPosition(offset: input.consumed, line: lines) }

    /// The byte offsets of the last record returned.
    var lastRecordOffsets: Range<Int64> { input.offset(of: lastRange.lowerBound)..<input.offset(of: lastRange.upperBound) }

    /// FNV-1a 64 of the last record's bytes (ask before reading on).
    func lastRecordDigest() -> UInt64 { input.digest(lastRange) }

    /// The next record, parsed, or `nil` after the last one.
    /// - Throws: ``ImportError`` `.invalidJSON` with the offset (and line) of the fault,
    ///   `.rootNotFound`, or `.unreadableInput`.
    func next() throws -> JSONValue? {
        try next { bytes throws(JSONParseError) in try JSONValue(parsing: bytes) }
    }

    /// The next record as `read` makes it of the record's bytes (one JSON value, nothing
    /// around it), or `nil` after the last one; `read` throws the ``JSONParseError`` of
    /// invalid JSON. Throws as ``next()``.
    func next<T>(_ read: (UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> T) throws -> T? {
        if format == .ndjson { return try nextLine(read) }
        switch state {
        case .begin:
            try enterRoot()
            return try next(read)
        case .inArray(let first):
            guard let byte = try skipWhitespace() else { throw invalid("unexpected end of input in the array of records") }
            if byte == .closeBracket {
                input.start += 1
                try finish()
                return nil
            }
            if !first {
                guard byte == .comma else { throw invalid("expected ',' or ']' after a record, found \(describe(byte))") }
                input.start += 1
                guard let next = try skipWhitespace() else { throw invalid("unexpected end of input in the array of records") }
                if next == .closeBracket { throw invalid("trailing comma before ']'") }
            }
            state = .inArray(first: false)
            return try record(read)
        case .single:
            let value = try record(read)
            try finish()
            return value
        case .done:
            return nil
        }
    }

    /// Whether the records are all read; at the end of an array it also reads (and checks)
    /// the rest of the input.
    func atEnd() throws -> Bool {
        if format == .ndjson { return try skipWhitespace() == nil }
        switch state {
        case .done: return true
        case .inArray(let first) where !first:
            guard try skipWhitespace() == .closeBracket else { return false }
            input.start += 1
            try finish()
            return true
        default: return false
        }
    }

    // MARK: JSON

    /// Walks the key path to the array (or single record) of records.
    private func enterRoot() throws {
        for (level, key) in path.enumerated() {
            let here = path[..<level].joined(separator: ".")
            guard try skipWhitespace() == .openBrace else {
                throw ImportError(.rootNotFound, "the input has no key path '\(path.joined(separator: "."))': \(here.isEmpty ? "the input" : "'\(here)'") is not an object; check --root")
            }
            input.start += 1
            var found = false
            var first = true
            while !found {
                guard var byte = try skipWhitespace() else { throw invalid("unexpected end of input in an object") }
                if byte == .closeBrace {
                    throw ImportError(.rootNotFound, "the input has no key path '\(path.joined(separator: "."))': '\(key)' is missing; check --root")
                }
                if !first {
                    guard byte == .comma else { throw invalid("expected ',' or '}' in object, found \(describe(byte))") }
                    input.start += 1
                    guard let next = try skipWhitespace() else { throw invalid("unexpected end of input in an object") }
                    byte = next
                }
                first = false
                found = try member(wanted: key)
            }
        }
        switch try skipWhitespace() {
        case .openBracket?:
            input.start += 1
            state = .inArray(first: true)
        case .openBrace?:
            state = .single
        case let byte:
            let place = path.isEmpty ? "" : " at '\(path.joined(separator: "."))'"
            guard let byte else { throw invalid("unexpected end of input, expected an array of records\(place)") }
            // A byte that starts no JSON value makes the input invalid JSON, not a misplaced root.
            guard let kind = kind(of: byte) else {
                throw invalid("unexpected \(describe(byte)), expected an array of records or one record\(place)")
            }
            throw ImportError(.rootNotFound, "expected an array of records or one record\(place), found \(kind)")
        }
    }

    /// Reads a member's key and colon; when the key is `wanted` returns `true` with the reader
    /// at its value, else skips (but checks) the value.
    private func member(wanted: String) throws -> Bool {
        guard try skipWhitespace() == .quote else { throw invalid("expected a string key") }
        guard case .string(let key) = try parse(try scanValue()) else { throw invalid("expected a string key") }
        guard try skipWhitespace() == .colon else { throw invalid("expected ':' after key \"\(key)\"") }
        input.start += 1
        guard try skipWhitespace() != nil else { throw invalid("unexpected end of input, expected a value") }
        if key == wanted { return true }
        _ = try parse(try scanValue())
        return false
    }

    /// After the array: the rest of each enclosing object, then nothing but whitespace.
    private func finish() throws {
        state = .done
        for _ in path {
            while true {
                guard let byte = try skipWhitespace() else { throw invalid("unexpected end of input in an object") }
                input.start += 1
                if byte == .closeBrace { break }
                guard byte == .comma else { throw invalid("expected ',' or '}' in object, found \(describe(byte))") }
                guard try skipWhitespace() == .quote else { throw invalid("expected a string key") }
                guard case .string = try parse(try scanValue()) else { throw invalid("expected a string key") }
                guard try skipWhitespace() == .colon else { throw invalid("expected ':' after a key") }
                input.start += 1
                guard try skipWhitespace() != nil else { throw invalid("unexpected end of input, expected a value") }
                _ = try parse(try scanValue())
            }
        }
        if let byte = try skipWhitespace() { throw invalid("unexpected \(describe(byte)) after the end of the JSON value") }
    }

    /// The record at the reader, read.
    private func record<T>(_ read: (UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> T) throws -> T {
        let scan = try scanValue()
        lastRange = input.start..<(input.start + scan.length)
        return try parse(scan, read)
    }

    // MARK: NDJSON

    private func nextLine<T>(_ read: (UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> T) throws -> T? {
        guard try skipWhitespace() != nil else { return nil }
        var length = 0
        while true {
            let found = input.buffer.withUnsafeBufferPointer { bytes -> Int? in
                var i = input.start + length
                while i < input.end {
                    if bytes[i] == .newline { return i - input.start }
                    i += 1
                }
                length = i - input.start
                return nil
            }
            if let found { length = found; break }
            guard try input.fill() else { break }
        }
        var content = length
        while content > 0, isWhitespace(input.buffer[input.start + content - 1]) { content -= 1 }
        lastRange = input.start..<(input.start + content)
        let value = try parse((content, 0, 0), read)
        input.start += length - content
        return value
    }

    // MARK: Bytes

    /// Skips whitespace (counting newlines) and returns the next byte, or `nil` at the end.
    private func skipWhitespace() throws -> UInt8? {
        while true {
            while input.start < input.end {
                let byte = input.buffer[input.start]
                guard isWhitespace(byte) else { return byte }
                input.start += 1
                if byte == .newline {
                    lines += 1
                    lineStart = input.consumed
                }
            }
            guard try input.fill() else { return nil }
        }
    }

    private func isWhitespace(_ byte: UInt8) -> Bool {
        byte == .space || byte == .newline || byte == .tab || byte == .carriageReturn
    }

    /// The length of the JSON value at the reader, found by scanning strings and nesting (not
    /// checking it: the parser does), and the newlines in it: how many, and the position just
    /// after the last (relative to the value). At the end of the input, what there is.
    private func scanValue() throws -> (length: Int, newlines: Int, afterLastNewline: Int) {
        var newlines = 0
        var afterLastNewline = 0
        var length = 0
        var depth = 0
        var inString = false
        var escaped = false
        var scalar = false
        while true {
            // The bounds are read once: the input's properties are checked on each access.
            let (start, end) = (input.start, input.end)
            let done = input.buffer.withUnsafeBufferPointer { bytes -> Bool in
                var i = start + length
                defer { length = i - start }
                while i < end {
                    let byte = bytes[i]
                    if inString {
                        if escaped {
                            escaped = false
                        } else if byte == .backslash {
                            escaped = true
                        } else if byte == .quote {
                            inString = false
                            if depth == 0 { i += 1; return true }
                        } else {
                            // Most of a record is text: run to its next quote or backslash.
                            var nonASCII = false
                            i = StringScan.plainEnd(in: UnsafeBufferPointer(rebasing: bytes[..<end]), from: i + 1,
                                                    controls: false, nonASCII: &nonASCII)
                            continue
                        }
                    } else if scalar {
                        if isWhitespace(byte) || byte == .comma || byte == .closeBracket || byte == .closeBrace { return true }
                    } else {
                        switch byte {
                        case .quote: inString = true
                        case .openBrace, .openBracket: depth += 1
                        case .closeBrace, .closeBracket:
                            depth -= 1
                            if depth <= 0 { i += 1; return true }
                        case .newline:
                            newlines += 1
                            afterLastNewline = i + 1 - start
                        default: if depth == 0 { scalar = true }
                        }
                    }
                    i += 1
                }
                return false
            }
            if done { return (length, newlines, afterLastNewline) }
            guard try input.fill() else { return (length, newlines, afterLastNewline) }
        }
    }

    /// Parses the scanned value at the reader and consumes it.
    private func parse(_ scan: (length: Int, newlines: Int, afterLastNewline: Int)) throws -> JSONValue {
        try parse(scan) { bytes throws(JSONParseError) in try JSONValue(parsing: bytes) }
    }

    /// Reads the scanned value at the reader with `read` and consumes it.
    private func parse<T>(_ scan: (length: Int, newlines: Int, afterLastNewline: Int),
                          _ read: (UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> T) throws -> T {
        let start = input.start
        let result = input.buffer.withUnsafeBufferPointer { bytes in
            Result { () throws(JSONParseError) in try read(UnsafeBufferPointer(rebasing: bytes[start..<(start + scan.length)])) }
        }
        switch result {
        case .success(let value):
            input.start += scan.length
            if scan.newlines > 0 {
                lines += scan.newlines
                lineStart = input.offset(of: start + scan.afterLastNewline)
            }
            return value
        case .failure(let error):
            let offset = input.offset(of: start) + Int64(error.offset)
            let column = error.line == 1 ? Int(input.offset(of: start) - lineStart) + error.column : error.column
            throw ImportError(.invalidJSON, "invalid JSON at line \(lines + error.line), column \(column) (byte \(offset)): \(error.reason)")
        }
    }

    private func invalid(_ reason: String) -> ImportError {
        ImportError(.invalidJSON, "invalid JSON at line \(lines + 1), column \(input.consumed - lineStart + 1) (byte \(input.consumed)): \(reason)")
    }

    /// The kind of JSON value that starts with `byte`, as messages name it; `nil` when no value
    /// starts with it.
    private func kind(of byte: UInt8) -> String? {
        switch byte {
        case .quote: "string"
        case .openBracket: "array"
        case .openBrace: "object"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): "boolean"
        case UInt8(ascii: "n"): "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): "number"
        default: nil
        }
    }

    private func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }
}

extension UInt8 {
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let space = UInt8(ascii: " ")
    static let newline = UInt8(ascii: "\n")
    static let tab = UInt8(ascii: "\t")
    static let carriageReturn = UInt8(ascii: "\r")
}
