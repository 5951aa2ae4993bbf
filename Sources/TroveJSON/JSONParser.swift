public import Foundation

/// Why JSON text could not be parsed, and where: byte offset, line and column (1-based).
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, e.g. "trailing comma before ']'".
    public let reason: String
    /// Offset of the fault in bytes from the start of the text.
    public let offset: Int
    /// Line of the fault, counting from 1.
    public let line: Int
    /// Column of the fault in bytes, counting from 1.
    public let column: Int

    public var description: String {
        "invalid JSON at line \(line), column \(column) (byte \(offset)): \(reason)"
    }
}

extension JSONValue {
    /// Parses JSON text strictly by RFC 8259.
    ///
    /// Rejects what lenient parsers accept: trailing commas, comments, single quotes, `NaN`,
    /// leading zeros, unescaped control characters, invalid UTF-8, and anything after the value.
    /// Nesting deeper than 512 levels is an error rather than a stack overflow.
    /// - Throws: ``JSONParseError`` with the byte offset, line and column of the fault.
    public init(parsing data: Data) throws(JSONParseError) {
        var result: Result<JSONValue, JSONParseError> = .success(.null)
        data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self))
            result = Result { () throws(JSONParseError) in try parser.parseDocument() }
        }
        self = try result.get()
    }

    /// Parses the JSON text in `bytes` (for Trove's own streaming readers, which parse records
    /// in place in their read buffer); see ``init(parsing:)-(Data)``.
    package init(parsing bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) {
        var parser = JSONParser(bytes: bytes)
        self = try parser.parseDocument()
    }

    /// Checks that `data` is JSON text as ``init(parsing:)-(Data)`` accepts it, without building
    /// the value: for readers that must know a document is valid before acting on any of it.
    /// - Throws: the ``JSONParseError`` that parsing would throw.
    package static func validate(_ data: Data) throws(JSONParseError) {
        var result: Result<JSONValue, JSONParseError> = .success(.null)
        data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), buildsValues: false)
            result = Result { () throws(JSONParseError) in try parser.parseDocument() }
        }
        _ = try result.get()
    }

    /// Parses JSON text given as a string; see ``init(parsing:)-(Data)``.
    public init(parsing text: String) throws(JSONParseError) {
        try self.init(parsing: Data(text.utf8))
    }
}

/// A recursive-descent parser over UTF-8 bytes.
package struct JSONParser {
    static let maximumDepth = 512

    package let bytes: UnsafeBufferPointer<UInt8>
    /// `false` to check the text only: every check and error, no values built (containers and
    /// strings come back empty), several times faster.
    let buildsValues: Bool
    package var position = 0
    var depth = 0

    package init(bytes: UnsafeBufferPointer<UInt8>, buildsValues: Bool = true) {
        self.bytes = bytes
        self.buildsValues = buildsValues
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if position < bytes.count {
            throw error("unexpected \(describeByte(at: position)) after the end of the JSON value")
        }
        return value
    }

    // MARK: Values

    package mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected \(describeByte(at: position)), expected a value")
        }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        guard try openObject() else { return .object([:]) }
        // Collected first, so that the object is made once at its size, never rehashed.
        var pairs: [(key: String, value: JSONValue)] = []
        if buildsValues { pairs.reserveCapacity(16) }
        repeat {
            let key = try memberKey()
            let value = try parseValue()
            if buildsValues { pairs.append((key.string, value)) }
        } while try closeMember()
        return .object(JSONObject(pairs))  // a repeated key (byte for byte) keeps its last value
    }

    // MARK: Objects member by member

    /// A member's key as read: its bytes between the quotes when they hold no escape, else the
    /// decoded key.
    package enum MemberKey {
        case raw(UnsafeBufferPointer<UInt8>)
        case decoded(String)

        /// The key as a string (raw keys are ASCII).
        var string: String {
            switch self {
            case .raw(let bytes): String(decoding: bytes, as: UTF8.self)
            case .decoded(let key): key
            }
        }
    }

    /// Starts reading the object at the parser member by member (``parseObject()`` does, and
    /// so do readers that want only some members' values): `false` for an empty object, which
    /// is then read whole; else ``memberKey()`` reads the first key.
    package mutating func openObject() throws(JSONParseError) -> Bool {
        guard peek() == UInt8(ascii: "{") else { throw error("unexpected \(describeByte(at: position)), expected an object") }
        try enterContainer()
        position += 1
        skipWhitespace()
        guard peek() == UInt8(ascii: "}") else { return true }
        position += 1
        depth -= 1
        return false
    }

    /// Reads a member's key and its colon, leaving the parser at the value, which the caller
    /// reads with ``parseValue()`` or ``skipValue()`` before ``closeMember()``.
    package mutating func memberKey() throws(JSONParseError) -> MemberKey {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else {
            if peek() == UInt8(ascii: "}") { throw error("trailing comma before '}'") }
            throw error("expected a string key, found \(describeByte(at: position))")
        }
        let keyStart = position
        var nonASCII = false
        let end = StringScan.plainEnd(in: bytes, from: position + 1, controls: true, nonASCII: &nonASCII)
        let key: MemberKey
        if !nonASCII, end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            key = .raw(UnsafeBufferPointer(rebasing: bytes[(keyStart + 1)..<end]))
            position = end + 1
        } else {
            key = .decoded(try parseString())
        }
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else {
            var reader = JSONParser(bytes: bytes)
            reader.position = keyStart
            let name = (try? reader.parseString()) ?? ""
            throw error("expected ':' after key \"\(name)\", found \(describeByte(at: position))")
        }
        position += 1
        skipWhitespace()
        return key
    }

    /// Moves past the value at the parser, checking it as ``parseValue()`` does, building nothing.
    package mutating func skipValue() throws(JSONParseError) {
        var checker = JSONParser(bytes: bytes, buildsValues: false)
        checker.position = position
        checker.depth = depth
        _ = try checker.parseValue()
        position = checker.position
    }

    /// After a member's value: `true` when another member follows, `false` at the object's end.
    package mutating func closeMember() throws(JSONParseError) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","):
            position += 1
            return true
        case UInt8(ascii: "}"):
            position += 1
            depth -= 1
            return false
        default: throw error("expected ',' or '}' in object, found \(describeByte(at: position))")
        }
    }

    /// Checks that nothing but whitespace follows the value just read (as ``parseDocument()``).
    package mutating func finishDocument() throws(JSONParseError) {
        skipWhitespace()
        if position < bytes.count {
            throw error("unexpected \(describeByte(at: position)) after the end of the JSON value")
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if peek() == UInt8(ascii: "]") { throw error("trailing comma before ']'") }
            let element = try parseValue()
            if buildsValues { elements.append(element) }
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return .array(elements)
            default: throw error("expected ',' or ']' in array, found \(describeByte(at: position))")
            }
        }
    }

    mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > JSONParser.maximumDepth {
            throw error("nesting deeper than \(JSONParser.maximumDepth) levels")
        }
    }

    mutating func expectWord(_ word: String) throws(JSONParseError) {
        for expected in word.utf8 {
            guard peek() == expected else {
                throw error("unexpected \(describeByte(at: position)), expected a value")
            }
            position += 1
        }
    }

    // MARK: Numbers

    mutating func parseNumber() throws(JSONParseError) -> String {
        let start = position
        try scanNumber()
        guard buildsValues else { return "" }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    /// Moves past a number, checking its grammar.
    mutating func scanNumber() throws(JSONParseError) {
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), isDigit(first) else { throw error("expected a digit in number") }
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = peek(), isDigit(next) { throw error("leading zero in number") }
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let d = peek(), isDigit(d) else { throw error("expected a digit after '.' in number") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let d = peek(), isDigit(d) else { throw error("expected a digit in exponent") }
            skipDigits()
        }
    }

    mutating func skipDigits() {
        while let b = peek(), isDigit(b) { position += 1 }
    }

    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    // MARK: Strings

    mutating func parseString() throws(JSONParseError) -> String {
        position += 1  // opening quote
        let start = position
        var nonASCII = false
        // Fast path: no escapes.
        position = StringScan.plainEnd(in: bytes, from: start, controls: true, nonASCII: &nonASCII)
        guard position < bytes.count else { throw error("unterminated string", at: start - 1) }
        switch bytes[position] {
        case UInt8(ascii: "\""):
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
            position += 1
            // ASCII needs no validation (most keys and many values are ASCII).
            if !nonASCII { return buildsValues ? String(decoding: slice, as: UTF8.self) : "" }
            guard let s = String(validating: slice, as: UTF8.self) else {
                throw error("invalid UTF-8 in string", at: start)
            }
            return s
        case UInt8(ascii: "\\"): break
        default: throw error("unescaped control character in string")
        }
        // Slow path: decode escapes into a byte buffer.
        var buffer = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let b = bytes[position]
            switch b {
            case UInt8(ascii: "\""):
                position += 1
                guard let s = String(validating: buffer, as: UTF8.self) else {
                    throw error("invalid UTF-8 in string", at: start)
                }
                return s
            case UInt8(ascii: "\\"):
                position += 1
                try appendEscape(to: &buffer)
            default:
                if b < 0x20 { throw error("unescaped control character in string") }
                buffer.append(b)
                position += 1
            }
        }
        throw error("unterminated string", at: start - 1)
    }

    mutating func appendEscape(to buffer: inout [UInt8]) throws(JSONParseError) {
        guard let c = peek() else { throw error("unterminated escape in string") }
        position += 1
        switch c {
        case UInt8(ascii: "\""): buffer.append(c)
        case UInt8(ascii: "\\"): buffer.append(c)
        case UInt8(ascii: "/"): buffer.append(c)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard peek() == UInt8(ascii: "\\"), position + 1 < bytes.count,
                      bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate \\u\(String(scalar, radix: 16)) in string")
                }
                position += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("unpaired surrogate \\u\(String(scalar, radix: 16)) in string")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired surrogate \\u\(String(scalar, radix: 16)) in string")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
            buffer.append(contentsOf: Array(String(unicode).utf8))
        default:
            position -= 1
            let shown = c >= 0x20 && c < 0x7F ? "'\\\(Character(Unicode.Scalar(c)))'" : describeByte(at: position)
            throw error("invalid escape \(shown) in string")
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("expected four hex digits after \\u") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[position]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw error("expected four hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    // MARK: Helpers

    package func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    package mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    func describeByte(at offset: Int) -> String {
        guard offset < bytes.count else { return "end of input" }
        let b = bytes[offset]
        if b >= 0x20 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x\(String(b, radix: 16))"
    }

    func error(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        let at = min(offset ?? position, bytes.count)
        var line = 1
        var lineStart = 0
        for i in 0..<at where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        return JSONParseError(reason: reason, offset: at, line: line, column: at - lineStart + 1)
    }
}
