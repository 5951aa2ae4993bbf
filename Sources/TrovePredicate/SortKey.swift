public import Foundation

/// One key of a sort order: a key path (through to-one relationships), a direction, and how
/// strings compare.
///
/// ```swift
/// let order = try SortKey.parse("whoTook.name,-views,title:ci")
/// let checked = try order.map { try $0.checked(for: photo, in: model) }
/// photos.sort { checked.compare($0, $1) == .orderedAscending }
/// ```
/// Nil sorts first in ascending order and last in descending order, as SQLite and Core Data
/// order them. Foundation's key-path `SortDescriptor` is translated into sort keys by the fetch
/// methods that take one.
public struct SortKey: Sendable, Hashable, CustomStringConvertible {
    /// How values, strings above all, are compared.
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        /// Numbers by value, dates by time, strings by UTF-8 bytes (SQLite's `BINARY`).
        case standard
        /// Strings after Unicode case folding (``PredicateText/fold(_:options:)`` with `[c]`).
        case caseInsensitive
        /// Strings as ``PredicateText/localizedStandardCompare(_:_:)`` orders them (case and
        /// diacritics ignored, digit runs by value).
        case localizedStandard
    }

    /// The dotted key path, such as `whoTook.name`.
    public var keyPath: String
    /// Whether smaller values come first.
    public var ascending: Bool
    /// How values are compared.
    public var comparison: Comparison

    /// A sort by `keyPath`.
    public init(_ keyPath: String, ascending: Bool = true, comparison: Comparison = .standard) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
    }

    /// The descriptor as ``parse(_:)`` reads it: `-views`, `title:ci`, `name:localized`.
    public var description: String {
        let suffix = switch comparison {
        case .standard: ""
        case .caseInsensitive: ":ci"
        case .localizedStandard: ":localized"
        }
        return (ascending ? "" : "-") + keyPath + suffix
    }

    /// Reads the command line's sort list: keys separated by commas, each optionally preceded
    /// by `-` (descending) and followed by `:ci` (case-insensitive) or `:localized`.
    ///
    /// `"name,-views,title:ci"` is name ascending, then views descending, then title ascending
    /// ignoring case. Keys are not checked against a model here (see ``checked(for:in:)``).
    /// - Throws: ``ObjectPredicateError`` with ``ObjectPredicateError/Code/syntax`` and the column;
    ///   ``ObjectPredicateError/Code/tooLarge`` for more than ``PredicateLimits/maximumSortKeys`` keys.
    public static func parse(_ text: String) throws(ObjectPredicateError) -> [SortKey] {
        var descriptors: [SortKey] = []
        var column = 1
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            defer { column += item.unicodeScalars.count + 1 }
            let leading = item.prefix { $0 == " " }.unicodeScalars.count
            let trimmed = Substring(item.trimmingCharacters(in: .whitespaces))
            var rest = trimmed
            func fail(_ message: String, at offset: Int = 0) -> ObjectPredicateError {
                ObjectPredicateError(.syntax, message, column: column + leading + offset, source: text)
            }
            var ascending = true
            if rest.first == "-" || rest.first == "+" {
                ascending = rest.first == "+"
                rest = rest.dropFirst()
            }
            var comparison = Comparison.standard
            if let colon = rest.firstIndex(of: ":") {
                let option = rest[rest.index(after: colon)...]
                switch option.lowercased() {
                case "ci": comparison = .caseInsensitive
                case "localized": comparison = .localizedStandard
                default:
                    let offset = trimmed.unicodeScalars.distance(from: trimmed.startIndex, to: colon)
                    throw fail("unknown sort option ':\(option)' (use :ci or :localized)", at: offset)
                }
                rest = rest[..<colon]
            }
            guard !rest.isEmpty, !rest.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
                throw fail(rest.isEmpty ? "expected a key to sort by" : "'\(rest)' is not a key path")
            }
            descriptors.append(SortKey(String(rest), ascending: ascending, comparison: comparison))
        }
        try PredicateLimits.checkSortKeys(count: descriptors.count)
        return descriptors
    }

    /// Checks the key path against `entity`: it must reach an attribute through to-one
    /// relationships; `:ci` and `:localized` need a string attribute.
    /// - Throws: ``ObjectPredicateError`` (``ObjectPredicateError/Code/unknownKey`` with suggestions,
    ///   ``ObjectPredicateError/Code/keyPath``, ``ObjectPredicateError/Code/typeMismatch``).
    public func checked(for entity: Entity, in model: Model) throws(ObjectPredicateError) -> CheckedSortKey {
        let keys = keyPath.utf8.contains(UInt8(ascii: ".")) ? keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) : [keyPath]
        let resolved = try PredicateChecker(model: model).resolve(ObjectPredicate.KeyPath(keys), from: entity)
        guard resolved.toManyStepIndex == nil else {
            throw ObjectPredicateError(.keyPath, "cannot sort by '\(keyPath)': it goes through a to-many relationship")
        }
        guard let attribute = resolved.attribute else {
            throw ObjectPredicateError(.keyPath, "cannot sort by relationship '\(keyPath)': sort by one of its keys, such as \(keyPath).\(PredicateChecker(model: model).firstKey(of: resolved.steps.last?.relationship))")
        }
        if comparison != .standard, attribute.type != .string, attribute.type != .character, attribute.type != .uri {
            throw ObjectPredicateError(.typeMismatch, "'\(description)' compares strings, but '\(keyPath)' is \(attribute.type.withArticle) attribute")
        }
        return CheckedSortKey(descriptor: self, keyPath: resolved)
    }
}

/// A sort descriptor checked against an entity; compares ``PredicateSubject``s.
public struct CheckedSortKey: Sendable, Hashable {
    /// The descriptor as given.
    public let descriptor: SortKey
    /// Its key path, resolved (to-one steps, then an attribute).
    public let keyPath: ResolvedKeyPath

    /// The order of `a` and `b` by this key alone.
    public func compare(_ a: some PredicateSubject, _ b: some PredicateSubject) -> ComparisonResult {
        compare(values: value(of: a), value(of: b))
    }

    /// The value this key sorts `subject` by (`null` when a to-one step on the way is empty).
    public func value(of subject: some PredicateSubject) -> AttributeValue {
        PredicateEvaluator(bindings: []).value(of: keyPath, subject)
    }

    /// The order of two values of this key, as ``compare(_:_:)`` orders subjects holding them:
    /// for a caller that keeps the values an object was sorted by.
    public func compare(values x: AttributeValue, _ y: AttributeValue) -> ComparisonResult {
        let order: ComparisonResult
        switch (x, y) {
        case (.null, .null): order = .orderedSame
        case (.null, _): order = .orderedAscending
        case (_, .null): order = .orderedDescending
        default:
            switch (descriptor.comparison, x.text, y.text) {
            case (.caseInsensitive, let s?, let t?): order = PredicateText.compare(s, t, options: .caseInsensitive)
            case (.localizedStandard, let s?, let t?): order = PredicateText.localizedStandardCompare(s, t)
            default: order = PredicateValueOrder.order(x, y, options: []) ?? .orderedSame
            }
        }
        guard !descriptor.ascending else { return order }
        switch order {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }
}

extension Sequence where Element == CheckedSortKey {
    /// The order of `a` and `b` by each descriptor in turn (the first that tells them apart).
    public func compare(_ a: some PredicateSubject, _ b: some PredicateSubject) -> ComparisonResult {
        for descriptor in self {
            let order = descriptor.compare(a, b)
            if order != .orderedSame { return order }
        }
        return .orderedSame
    }
}
