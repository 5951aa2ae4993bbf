import Foundation
import TroveModel

// MARK: - Booleans, UUIDs, URLs, binary, characters

extension Coerce {
    /// A boolean from `true`/`false`, the numbers 0 and 1, or the strings `true`, `false`,
    /// `yes`, `no`, `1`, `0` in any letter case.
    static func boolean(_ json: JSONValue) throws(CoercionFailure) -> (Bool, CoercionKind) {
        switch json {
        case .bool(let value):
            return (value, .none)
        case .number(let literal):
            let isOne = withBytes(literal[...]) { bytes -> Bool? in
                guard let number = DecimalText(bytes), case .value(let value, _) = number.integer(as: Int8.self),
                      value == 0 || value == 1 else { return nil }
                return value == 1
            }
            guard let isOne else { throw CoercionFailure(.notABoolean, "only the numbers 0 and 1 are booleans") }
            return (isOne, .numberToBoolean)
        case .string(let text):
            let value = withBytes(trimmed(text)) { bytes -> Bool? in
                for (spelling, value) in booleanSpellings where matchesIgnoringCase(bytes, spelling) { return value }
                return nil
            }
            guard let value else {
                throw CoercionFailure(.notABoolean, "a boolean is one of true, false, yes, no, 1, 0")
            }
            return (value, .stringToBoolean)
        default:
            throw CoercionFailure(.wrongKind)
        }
    }

    private static let booleanSpellings: [(StaticString, Bool)] = [
        ("true", true), ("false", false), ("yes", true), ("no", false), ("1", true), ("0", false),
    ]

    /// Whether `bytes` are the ASCII `spelling` (lowercase) in any letter case.
    private static func matchesIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ spelling: StaticString) -> Bool {
        guard bytes.count == spelling.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: spelling.utf8Start, count: spelling.utf8CodeUnitCount)
        for index in 0..<bytes.count {
            let byte = bytes[index]
            let folded = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
            guard folded == expected[index] else { return false }
        }
        return true
    }

    /// A UUID from its hyphenated string form, in either letter case.
    static func uuid(_ json: JSONValue) throws(CoercionFailure) -> (UUID, CoercionKind) {
        guard case .string(let text) = json else { throw CoercionFailure(.wrongKind) }
        guard let uuid = UUID(uuidString: string(of: trimmed(text), in: text)) else {
            throw CoercionFailure(.notAUUID, "not a UUID such as E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        }
        return (uuid, .stringToUUID)
    }

    /// An absolute URL: a scheme (`https:`, `mailto:`…), no whitespace, controls or characters
    /// that URLs never hold unescaped (`"<>\^`{|}`).
    static func url(_ json: JSONValue) throws(CoercionFailure) -> (URL, CoercionKind) {
        guard case .string(let text) = json else { throw CoercionFailure(.wrongKind) }
        let trimmed = trimmed(text)
        let problem: String? = withBytes(trimmed) { bytes in
            if let bad = bytes.first(where: isForbiddenInURLs) {
                return bad == UInt8(ascii: " ") ? "URLs cannot hold spaces (escape them as %20)"
                    : "URLs cannot hold the character \(String(decoding: [bad], as: UTF8.self).debugDescription) unescaped"
            }
            return hasScheme(bytes) ? nil : "not an absolute URL: it has no scheme such as https:"
        }
        if let problem { throw CoercionFailure(.notAURL, problem) }
        guard let url = URL(string: string(of: trimmed, in: text)), url.scheme != nil else {
            throw CoercionFailure(.notAURL, "not a URL")
        }
        return (url, .stringToURL)
    }

    /// Whether `byte` is whitespace, a control character or one of `"<>\^`{|}`.
    private static func isForbiddenInURLs(_ byte: UInt8) -> Bool {
        switch byte {
        case 0...0x20, 0x7F, UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"),
             UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"): true
        default: false
        }
    }

    /// Whether `bytes` start with `letter (letter | digit | + | - | .)* :`.
    private static func hasScheme(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) &- UInt8(ascii: "a") < 26 }
        guard let first = bytes.first, isLetter(first) else { return false }
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: ":") { return true }
            guard isLetter(byte) || byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") else { return false }
        }
        return false
    }

    /// Bytes from standard base64 (`+` and `/`), with or without its `=` padding.
    static func binary(_ json: JSONValue) throws(CoercionFailure) -> (Data, CoercionKind) {
        guard case .string(let text) = json else { throw CoercionFailure(.wrongKind) }
        var encoded = string(of: trimmed(text), in: text)
        let remainder = encoded.utf8.count % 4
        if remainder > 1 { encoded += String(repeating: "=", count: 4 - remainder) }
        guard remainder != 1, let data = Data(base64Encoded: encoded) else {
            throw CoercionFailure(.notBase64, "not base64 (A–Z, a–z, 0–9, + and /, with optional = padding)")
        }
        return (data, .base64ToBinary)
    }

    /// The first character (a whole grapheme cluster) of a nonempty string.
    static func character(_ json: JSONValue) throws(CoercionFailure) -> (Character, CoercionKind) {
        guard case .string(let text) = json else { throw CoercionFailure(.wrongKind) }
        guard let first = text.first else {
            throw CoercionFailure(.emptyString, "an empty string has no character")
        }
        let isSingle = text.index(after: text.startIndex) == text.endIndex
        return (first, isSingle ? .none : .stringToCharacter)
    }

    /// `part` as a `String`, reusing `whole` when `part` is all of it.
    static func string(of part: Substring, in whole: String) -> String {
        part.startIndex == whole.startIndex && part.endIndex == whole.endIndex ? whole : String(part)
    }
}
