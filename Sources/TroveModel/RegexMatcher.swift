import Foundation

/// Whole-string matching of ICU regular expressions (as `NSRegularExpression` reads them) with
/// a bounded amount of work: the one matcher behind `MATCHES`, the model's `regex` rules (checked
/// when the model loads) and the validation of values against them at save. It lives with the
/// model, the lowest layer that uses it; the predicate language adds `wholeMatch`, which throws
/// its ``match(_:pattern:caseInsensitive:)`` failures as predicate errors.
///
/// A pattern is anchored with `\A(?:…)\z`, so `$` cannot match before a final newline. ICU
/// backtracks, and some patterns (`(a+)+c` against a run of `a`s) take exponential time; past
/// ``stepBudget`` the match stops, and so does a match whose backtracking stack runs out. Either
/// way the answer is unknown, so the match is ``Match/gaveUp(_:)`` rather than "no match".
///
/// Compiled patterns are kept in a cache of at most ``cacheCapacity`` patterns and
/// ``cacheCharacterCapacity`` pattern characters, the least recently used evicted first; a
/// pattern is compiled once while it stays there, for checking and matching alike. That matters
/// beyond speed: Foundation on Linux keeps a copy of every pattern longer than 256 UTF-16 units
/// that it compiles (2 bytes a unit, never freed; measured, and found by the predicate fuzzer),
/// so compiling on every match would grow memory with every row. A pattern is at most
/// ``maximumPatternLength`` units long.
package enum RegexMatcher {
    /// How much backtracking one match may do, in ICU's ticks of 10,000 engine steps (ICU
    /// reports progress once a tick): 500 ticks are 5 million steps, about a second. Measured:
    /// linear patterns over a megabyte of text use under 100 ticks; ICU itself stops (without
    /// saying so) near 4,200 ticks, which this budget stays well under.
    package static let stepBudget = 500
    /// The most compiled patterns kept.
    package static let cacheCapacity = 128
    /// The most pattern characters (UTF-16 units) kept in all.
    package static let cacheCharacterCapacity = 256 * 1024
    /// The longest pattern, in UTF-16 units: one that fits in the cache, so that it is compiled
    /// once rather than for every value it is matched against.
    package static let maximumPatternLength = cacheCharacterCapacity

    /// What matching a value against a pattern as a whole found.
    package enum Match: Sendable, Equatable {
        /// The value matches.
        case matched
        /// The value does not match, or the pattern is invalid (the callers reject constant
        /// patterns before any match, with ``problem(with:)``).
        case unmatched
        /// The pattern is longer than ``maximumPatternLength`` (one read from a value, as
        /// constants are refused before); the text says so.
        case tooLong(String)
        /// The engine gave up (the step budget is spent or its stack runs out), so whether the
        /// value matches is unknown; the text says why.
        case gaveUp(String)
    }

    /// Whether `value` as a whole matches `pattern`, or why that is unknown.
    package static func match(_ value: String, pattern: String, caseInsensitive: Bool) -> Match {
        if let tooLong = lengthProblem(with: pattern) { return .tooLong(tooLong) }
        guard let expression = compiled(pattern, caseInsensitive: caseInsensitive) else { return .unmatched }
        var matched = false, ticks = 0, failed = false
        expression.enumerateMatches(in: value, options: [.reportProgress, .reportCompletion],
                                    range: NSRange(value.startIndex..., in: value)) { result, flags, stop in
            if result != nil {
                matched = true
                stop.pointee = true
            } else if flags.contains(.progress) {
                ticks += 1
                if ticks >= stepBudget { stop.pointee = true }
            } else if flags.contains(.internalError) {
                failed = true
            }
        }
        if matched { return .matched }
        guard ticks < stepBudget, !failed else {
            let why = failed ? "ran out of backtracking stack" : "gave up after \(stepBudget * 10_000) steps"
            return .gaveUp(
                "the regular expression \(quoted(pattern)) \(why) on a value of \(value.utf16.count) UTF-16 units, so whether it"
                    + " matches is unknown; simplify the pattern (nested repetition such as (a+)+ backtracks exponentially)")
        }
        return .unmatched
    }

    /// Why `pattern` is not a valid regular expression, or `nil` when it is.
    package static func problem(with pattern: String) -> String? {
        if let tooLong = lengthProblem(with: pattern) { return tooLong }
        return compiled(pattern, caseInsensitive: false) == nil ? "\(quoted(pattern)) is not a valid regular expression" : nil
    }

    private static func lengthProblem(with pattern: String) -> String? {
        let length = pattern.utf16.count
        guard length > maximumPatternLength else { return nil }
        return "the regular expression \(quoted(pattern)) is \(length) UTF-16 units long, over the \(maximumPatternLength) a pattern may have"
    }

    private static func quoted(_ pattern: String) -> String {
        "\"" + (pattern.count > 80 ? pattern.prefix(80) + "…" : pattern) + "\""
    }

    // MARK: Cache

    /// A pattern and its option, compared by the pattern's bytes: Swift's `==` takes `"é"` and
    /// `"e\u{301}"` for one string, which ICU matches differently (the cache once gave one's
    /// compiled form for the other).
    private struct Key: Hashable {
        var pattern: String
        var caseInsensitive: Bool

        static func == (a: Key, b: Key) -> Bool {
            a.caseInsensitive == b.caseInsensitive && a.pattern.hasSameBytes(as: b.pattern)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(caseInsensitive)
            for byte in pattern.utf8 { hasher.combine(byte) }
        }
    }

    /// Compiled patterns with the tick of their last use.
    private struct Cache {
        var entries: [Key: (expression: NSRegularExpression, lastUse: UInt64)] = [:]
        var characters = 0
        var clock: UInt64 = 0
        /// Patterns whose compilations a test counts (``compilations(of:during:)``).
        var counted: [String: Int] = [:]

        mutating func expression(for key: Key) -> NSRegularExpression? {
            clock += 1
            guard let entry = entries[key] else { return nil }
            entries[key] = (entry.expression, clock)
            return entry.expression
        }

        mutating func insert(_ expression: NSRegularExpression, for key: Key) {
            let size = key.pattern.utf16.count
            guard size <= cacheCharacterCapacity, entries[key] == nil else { return }
            while !entries.isEmpty, entries.count >= cacheCapacity || characters + size > cacheCharacterCapacity {
                guard let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key else { break }
                entries[oldest] = nil
                characters -= oldest.pattern.utf16.count
            }
            clock += 1
            entries[key] = (expression, clock)
            characters += size
        }
    }

    private static let cache = Locked(Cache())

    /// How many compiled patterns are kept now (for tests of the bound).
    package static var cachedPatternCount: Int { cache.withLock { $0.entries.count } }

    /// How many times `pattern` is compiled while `body` runs (for tests: other threads'
    /// patterns do not count).
    package static func compilations(of pattern: String, during body: () throws -> Void) rethrows -> Int {
        cache.withLock { $0.counted[pattern] = 0 }
        defer { cache.withLock { $0.counted[pattern] = nil } }
        try body()
        return cache.withLock { $0.counted[pattern] ?? 0 }
    }

    /// The pattern anchored to the whole string, compiled once; `nil` when invalid.
    private static func compiled(_ pattern: String, caseInsensitive: Bool) -> NSRegularExpression? {
        let key = Key(pattern: pattern, caseInsensitive: caseInsensitive)
        if let cached = cache.withLock({ $0.expression(for: key) }) { return cached }
        // Compile the pattern alone first, so that `a)|(b` cannot pair with the anchoring group.
        guard pattern.utf16.count <= maximumPatternLength, compile(pattern, counting: pattern) != nil,
              let expression = compile("\\A(?:" + pattern + ")\\z", options: caseInsensitive ? [.caseInsensitive] : [], counting: pattern)
        else { return nil }
        cache.withLock { $0.insert(expression, for: key) }
        return expression
    }

    /// `text` compiled, or `nil` when it is not a valid pattern; counted as a compilation of
    /// `pattern` when a test counts those.
    private static func compile(_ text: String, options: NSRegularExpression.Options = [], counting pattern: String) -> NSRegularExpression? {
        cache.withLock { $0.counted[pattern]? += 1 }
        return try? NSRegularExpression(pattern: text, options: options)
    }
}
