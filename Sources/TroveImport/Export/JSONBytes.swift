import TroveModel

/// JSON text written as UTF-8 bytes, for the exporter: the same text as
/// ``JSONValue/serialized(pretty:)`` (compact, object members in the order of their names'
/// bytes), written without building a `String` a value at a time.
struct JSONBytes {
    /// The text written so far.
    var bytes: [UInt8] = []

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends bytes that need no escaping (punctuation, literals, pre-escaped keys, numbers).
    mutating func append(raw: some Sequence<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// Appends one ASCII byte.
    mutating func append(ascii: Unicode.Scalar) {
        bytes.append(UInt8(ascii: ascii))
    }

    /// Appends the decimal digits of `value`, as `String(value)` writes them.
    mutating func append(integer value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 20 digits at most, reversed
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    /// Appends `s` as a JSON string literal, escaped as ``JSONValue/writeString(_:to:)`` escapes
    /// it: runs of bytes that need no escape are copied whole.
    mutating func append(string s: String) {
        var s = s
        s.withUTF8 { append(stringUTF8: $0) }
    }

    private mutating func append(stringUTF8 utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            runStart = index + 1
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            default:
                bytes.append(contentsOf: "u00".utf8)
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `value` as ``JSONValue/serialized(pretty:)`` writes it (not pretty).
    mutating func append(_ value: JSONValue) {
        switch value {
        case .null: append(raw: "null".utf8)
        case .bool(let b): append(raw: (b ? "true" : "false").utf8)
        case .number(let text): append(raw: text.utf8)
        case .string(let s): append(string: s)
        case .array(let elements):
            append(ascii: "[")
            for (index, element) in elements.enumerated() {
                if index > 0 { append(ascii: ",") }
                append(element)
            }
            append(ascii: "]")
        case .object(let members):
            append(ascii: "{")
            for (index, member) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
                if index > 0 { append(ascii: ",") }
                append(string: member.key)
                append(ascii: ":")
                append(member.value)
            }
            append(ascii: "}")
        }
    }
}
