import Foundation

/// JSON values compare as Trove compares all text: strings, numbers' text and object keys by
/// their UTF-8 bytes, not by Swift's canonical equivalence.
extension JSONValue {
    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x.hasSameBytes(as: y)
        case (.string(let x), .string(let y)): return x.hasSameBytes(as: y)
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)): return x == y
        default: return false
        }
    }
}

extension String {
    /// Whether the two strings hold the same UTF-8 bytes (Swift's `==` also takes canonically
    /// equivalent strings, such as `"e\u{301}"` and `"\u{e9}"`, as equal).
    @inline(__always)
    package func hasSameBytes(as other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        let compared = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in
                guard let xStart = x.baseAddress, let yStart = y.baseAddress, xStart != yStart else { return true }
                return memcmp(xStart, yStart, x.count) == 0
            }
        }
        return (compared ?? nil) ?? a.elementsEqual(b)
    }
}
