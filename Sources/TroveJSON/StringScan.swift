/// Finds where a JSON string's plain text ends, eight bytes at a time: most of a record's bytes
/// are inside strings, and a byte-at-a-time loop spent about 5 instructions on each.
///
/// Each step loads eight bytes as one integer and flags, in the top bit of each byte, those
/// that are a quote, a backslash or (when asked) a control character: `(x - 0x01…) & ~x & 0x80…`
/// flags the zero bytes of `x`, with false flags only above a true one, so the lowest flag is
/// always right.
package enum StringScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The position of the first quote or backslash (or, with `controls`, byte below 0x20) at or
    /// after `start` in `bytes`, or `bytes.count` when there is none; `nonASCII` is set when a
    /// byte before that position is 0x80 or above.
    @inline(__always)
    package static func plainEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, controls: Bool,
                                 nonASCII: inout Bool) -> Int {
        var i = start
        let count = bytes.count
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            var high: UInt64 = 0
            while i + 8 <= count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                var flags = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                if controls { flags |= (word &- ones &* 0x20) & ~word }
                flags &= highBits
                if flags != 0 {
                    let at = flags.trailingZeroBitCount >> 3
                    // Only the bytes before the one found.
                    high |= word & highBits & ((1 << (UInt64(at) << 3)) &- 1)
                    if high != 0 { nonASCII = true }
                    return i + at
                }
                high |= word & highBits
                i += 8
            }
            if high != 0 { nonASCII = true }
        }
        while i < count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (controls && byte < 0x20) { return i }
            if byte >= 0x80 { nonASCII = true }
            i += 1
        }
        return i
    }
}
