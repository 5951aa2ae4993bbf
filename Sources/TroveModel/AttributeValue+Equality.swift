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
