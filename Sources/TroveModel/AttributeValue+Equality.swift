import Foundation

// MARK: - Text compares by its bytes

/// Values are equal when they hold the same bytes: text (strings, characters, and the strings
/// and keys inside JSON) compares by its UTF-8 bytes, as SQLite's `BINARY` collation and the
/// predicates' plain `==` do, not by Swift's canonical equivalence. So `"e\u{301}"` and
/// `"\u{e9}"` are two values, in memory as in the store: two unique keys (two objects, whatever
/// the batches), and changing one into the other is a change. The hash stays the synthesized
/// one: values with the same bytes are canonically equivalent too, so they hash alike.
extension AttributeValue {
    public static func == (a: AttributeValue, b: AttributeValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.string(let x), .string(let y)): x.hasSameBytes(as: y)
        case (.integer(let x), .integer(let y)): x == y
        case (.double(let x), .double(let y)): x == y
        case (.decimal(let x), .decimal(let y)): x == y
        case (.boolean(let x), .boolean(let y)): x == y
        case (.date(let x), .date(let y)): x == y
        case (.binary(let x), .binary(let y)): x == y
        case (.uuid(let x), .uuid(let y)): x == y
        case (.uri(let x), .uri(let y)): x == y
        case (.character(let x), .character(let y)): x.utf8.elementsEqual(y.utf8)
        case (.json(let x), .json(let y)): x == y
        default: false
        }
    }
}

/// JSON values compare as ``AttributeValue`` does: strings and object keys by their bytes.
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
