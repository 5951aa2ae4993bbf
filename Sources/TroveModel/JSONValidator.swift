package import Foundation

extension JSONValue {
    /// Checks that `data` is JSON text as ``init(parsing:)-(Data)`` would accept it, without
    /// building the value: several times faster, for readers that must know a document is
    /// valid before acting on any of it.
    /// - Throws: the ``JSONParseError`` that parsing would throw.
    package static func validate(_ data: Data) throws(JSONParseError) {
        var result: Result<Void, JSONParseError> = .success(())
        data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self))
            result = Result { () throws(JSONParseError) in try parser.validateDocument() }
        }
        try result.get()
    }
}

/// The parser's grammar, walked without building values: every check and every error of the
/// `parse` functions, which the cases beyond plain ASCII text fall back to.
extension JSONParser {
    mutating func validateDocument() throws(JSONParseError) {
        skipWhitespace()
        try skipValue()
        skipWhitespace()
        if position < bytes.count {
            throw error("unexpected \(describeByte(at: position)) after the end of the JSON value")
        }
    }

    mutating func skipValue() throws(JSONParseError) {
        guard position < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): try skipObject()
        case UInt8(ascii: "["): try skipArray()
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try scanNumber()
        default: _ = try parseValue()  // true, false, null, or the error parsing gives
        }
    }

    mutating func skipObject() throws(JSONParseError) {
        try enterContainer()
        position += 1
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else {
                if peek() == UInt8(ascii: "}") { throw error("trailing comma before '}'") }
                throw error("expected a string key, found \(describeByte(at: position))")
            }
            let keyStart = position
            try skipString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else {
                // Parsed again only to name the key in the message.
                position = keyStart
                let key = try parseString()
                skipWhitespace()
                throw error("expected ':' after key \"\(key)\", found \(describeByte(at: position))")
            }
            position += 1
            skipWhitespace()
            try skipValue()
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return
            default: throw error("expected ',' or '}' in object, found \(describeByte(at: position))")
            }
        }
    }

    mutating func skipArray() throws(JSONParseError) {
        try enterContainer()
        position += 1
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            if peek() == UInt8(ascii: "]") { throw error("trailing comma before ']'") }
            try skipValue()
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return
            default: throw error("expected ',' or ']' in array, found \(describeByte(at: position))")
            }
        }
    }

    /// Moves past a string: plain ASCII without escapes here, anything else through
    /// `parseString()`, which checks escapes and UTF-8.
    mutating func skipString() throws(JSONParseError) {
        let opening = position
        position += 1
        while position < bytes.count {
            let b = bytes[position]
            if b == UInt8(ascii: "\"") {
                position += 1
                return
            }
            if b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { break }
            position += 1
        }
        position = opening
        _ = try parseString()
    }
}
