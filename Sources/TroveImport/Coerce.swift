import Foundation
import TroveModel

/// The coercion table, shared by ``AttributeCoercer`` and ``LenientDecoder``.
///
/// Each function takes a JSON value and gives the Swift value with the ``CoercionKind`` that
/// made it, or throws ``CoercionFailure``. Nothing here allocates unless it must make a string.
enum Coerce {
    /// The value of an attribute of `type` that `json` gives.
    static func value(_ json: JSONValue, to type: AttributeType, dates: DateReading) throws(CoercionFailure) -> CoercedValue {
        if case .null = json { return CoercedValue(.null, kind: .none) }
        switch type {
        case .string:
            let (text, kind) = try string(json)
            return CoercedValue(.string(text), kind: kind)
        case .integer16:
            let (value, kind) = try integer(json, as: Int16.self)
            return CoercedValue(.integer(Int64(value)), kind: kind)
        case .integer32:
            let (value, kind) = try integer(json, as: Int32.self)
            return CoercedValue(.integer(Int64(value)), kind: kind)
        case .integer64:
            let (value, kind) = try integer(json, as: Int64.self)
            return CoercedValue(.integer(value), kind: kind)
        case .double:
            let (value, kind) = try double(json)
            return CoercedValue(.double(value), kind: kind)
        case .float:
            let (value, kind) = try float(json)
            return CoercedValue(.double(Double(value)), kind: kind)
        case .decimal:
            let (value, kind) = try decimal(json)
            return CoercedValue(.decimal(value), kind: kind)
        case .boolean:
            let (value, kind) = try boolean(json)
            return CoercedValue(.boolean(value), kind: kind)
        case .date:
            let (value, kind) = try date(json, reading: dates)
            return CoercedValue(.date(value), kind: kind)
        case .binary:
            let (value, kind) = try binary(json)
            return CoercedValue(.binary(value), kind: kind)
        case .uuid:
            let (value, kind) = try uuid(json)
            return CoercedValue(.uuid(value), kind: kind)
        case .uri:
            let (value, kind) = try url(json)
            return CoercedValue(.uri(value), kind: kind)
        case .character:
            let (value, kind) = try character(json)
            return CoercedValue(.character(value), kind: kind)
        case .json:
            return CoercedValue(.json(json), kind: .none)
        }
    }

    // MARK: Messages

    /// The value as JSON text, cut to at most 80 characters.
    static func excerpt(of value: JSONValue) -> String {
        let text = value.serialized()
        guard text.count > 80 else { return text }
        return String(text.prefix(79)) + "…"
    }

    /// "expected integer16, got the number 70000: out of range (-32768...32767)".
    static func message(expected: String, got: String, excerpt: String, detail: String) -> String {
        let value = switch got {
        case "object": "an object"
        case "array": "an array"
        case "string": "the string " + excerpt
        case "number": "the number " + excerpt
        case "absent": "nothing"
        default: excerpt
        }
        return "expected \(expected), got \(value)" + (detail.isEmpty ? "" : ": " + detail)
    }

    // MARK: Strings

    /// A string as it is, or a number as its JSON text exactly as sent: the text is the value
    /// (`3.14159265358979323846` keeps every digit, `1e-400` and `2.50` stay as written), never
    /// read through a `Double` and printed again.
    static func string(_ json: JSONValue) throws(CoercionFailure) -> (String, CoercionKind) {
        switch json {
        case .string(let text):
            return (text, .none)
        case .number(let literal):
            return (literal, .numberToString)
        default:
            throw CoercionFailure(.wrongKind)
        }
    }

    // MARK: Whitespace

    /// `text` without whitespace (Unicode White_Space) at either end.
    static func trimmed(_ text: String) -> Substring {
        let scalars = text.unicodeScalars
        var lower = scalars.startIndex
        var upper = scalars.endIndex
        while lower < upper, isWhitespace(scalars[lower]) { lower = scalars.index(after: lower) }
        while lower < upper {
            let last = scalars.index(before: upper)
            guard isWhitespace(scalars[last]) else { break }
            upper = last
        }
        return text[lower..<upper]
    }

    @inline(__always)
    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 {
            return scalar == " " || (0x09...0x0D).contains(scalar.value)
        }
        return scalar.properties.isWhitespace
    }

    /// Calls `body` with the UTF-8 bytes of `text`, copying them only when they are not contiguous.
    @inline(__always)
    static func withBytes<R>(_ text: Substring, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(body)
    }
}
