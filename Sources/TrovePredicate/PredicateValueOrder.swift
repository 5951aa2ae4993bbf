import Foundation

/// How two attribute values compare, for the in-memory evaluator and sorting.
///
/// Numbers compare by value across integer, double and decimal; strings, characters and URIs
/// as ``PredicateText/compare(_:_:options:)``; dates by time; `false < true`; UUIDs and binary
/// by bytes. Values of unrelated kinds, and nil, are not ordered.
enum PredicateValueOrder {
    /// Whether `a` equals `b`; nil equals nil only.
    static func equal(_ a: AttributeValue, _ b: AttributeValue, options: StringOptions) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.json(let x), .json(let y)): return x == y
        default: return order(a, b, options: options) == .orderedSame
        }
    }

    /// The order of `a` and `b`, or `nil` when either is nil or they are not comparable.
    static func order(_ a: AttributeValue, _ b: AttributeValue, options: StringOptions) -> ComparisonResult? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return ordered(x, y)
        case (.double(let x), .double(let y)): return x.isNaN || y.isNaN ? nil : ordered(x, y)
        case (.integer(let x), .double(let y)): return order(x, y)
        case (.double(let x), .integer(let y)): return order(y, x).map(reversed)
        case (.decimal(let x), .decimal(let y)): return ordered(x, y)
        case (.decimal(let x), .integer(let y)): return ordered(x, Decimal(y))
        case (.integer(let x), .decimal(let y)): return ordered(Decimal(x), y)
        case (.decimal, .double), (.double, .decimal):
            guard let x = a.numericDouble, let y = b.numericDouble, !x.isNaN, !y.isNaN else { return nil }
            return ordered(x, y)
        case (.date(let x), .date(let y)): return ordered(x, y)
        case (.boolean(let x), .boolean(let y)): return x == y ? .orderedSame : (x ? .orderedDescending : .orderedAscending)
        case (.uuid(let x), .uuid(let y)): return bytes(withUnsafeBytes(of: x.uuid, Array.init), withUnsafeBytes(of: y.uuid, Array.init))
        case (.binary(let x), .binary(let y)): return bytes(x, y)
        default:
            guard let x = a.text, let y = b.text else { return nil }
            return PredicateText.compare(x, y, options: options)
        }
    }

    private static func ordered<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
        x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
    }

    /// An integer against a double, exactly: no rounding of large integers.
    private static func order(_ x: Int64, _ y: Double) -> ComparisonResult? {
        if y.isNaN { return nil }
        if y >= 9_223_372_036_854_775_808.0 { return .orderedAscending }
        if y < -9_223_372_036_854_775_808.0 { return .orderedDescending }
        let whole = Int64(y.rounded(.down))
        if x != whole { return ordered(x, whole) }
        return y == y.rounded(.down) ? .orderedSame : .orderedAscending
    }

    private static func reversed(_ result: ComparisonResult) -> ComparisonResult {
        switch result {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }

    private static func bytes<C: Collection<UInt8>>(_ x: C, _ y: C) -> ComparisonResult {
        if x.elementsEqual(y) { return .orderedSame }
        return x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
    }
}

extension AttributeValue {
    /// The text of a string, character or URI value (as predicates compare them); `nil` for
    /// other kinds.
    public var text: String? {
        switch self {
        case .string(let s): s
        case .character(let c): String(c)
        case .uri(let u): u.absoluteString
        default: nil
        }
    }
}
