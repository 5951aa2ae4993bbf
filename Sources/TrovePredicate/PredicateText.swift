public import Foundation
@_spi(_Unicode) import Swift  // the standard library's linear NFD and NFC (`_nfd`, `_nfc`)
import TroveModel

/// The string functions behind `[c]`, `[d]`, `LIKE`, `MATCHES` and string sorting: one
/// definition that both the in-memory evaluator and the SQL store (which registers them as
/// SQLite functions) call, so both give the same answers.
///
/// Without options strings compare by their UTF-8 bytes, as SQLite's `BINARY` collation does:
/// `"é"` precomposed and `"e\u{301}"` differ, and `CONTAINS`, `BEGINSWITH`, `ENDSWITH` search
/// bytes. With `[c]` or `[d]` both sides are first passed through ``fold(_:options:)``.
public enum PredicateText {
    // MARK: Folding

    /// The text as `[c]` and `[d]` compare it.
    ///
    /// With no options the text is returned unchanged. Otherwise it is decomposed (NFD);
    /// `[c]` then applies full Unicode case folding (each scalar upper-cased, then lower-cased:
    /// `ß` → `ss`, `ς` → `σ`, `İ` → `i̇`, `K` (Kelvin) → `k`); `[d]` then removes nonspacing
    /// marks (`é` → `e`, and the dot of `İ`); the result is recomposed (NFC). Locale-independent
    /// (no Turkish dotless-i rule).
    ///
    /// Linear in the length of the text: normalization runs the standard library's own
    /// (Foundation's took quadratic time on long non-ASCII text: 300,000 characters, 10 s), on
    /// runs of at most ``markRunLimit`` combining marks (see ``streamSafe(_:)``).
    public static func fold(_ text: String, options: StringOptions) -> String {
        guard !options.isEmpty else { return text }
        // ASCII, the most common text, without the arrays of `folds(of:_:)`: SQLite calls this
        // for every row a `[c]` compares.
        guard text.utf8.contains(where: { $0 >= 0x80 }) else {
            work?.add(text.utf8.count)
            return options.contains(.caseInsensitive) ? lowered(text) : text
        }
        return folds(of: text, [options])[0]
    }

    /// `text` folded with each of `optionSets` (none of them empty) in one pass: for a caller
    /// that keeps several folds of a text (``fold(_:options:)`` of each).
    package static func folds(of text: String, _ optionSets: [StringOptions]) -> [String] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            work?.add(text.utf8.count * optionSets.count)
            guard optionSets.contains(where: { $0.contains(.caseInsensitive) }) else { return optionSets.map { _ in text } }
            let lower = lowered(text)
            return optionSets.map { $0.contains(.caseInsensitive) ? lower : text }
        }
        // Mixed text: ASCII is folded byte by byte, and each stretch of non-ASCII scalars, with
        // the ASCII scalar before it (a combining mark may attach to it), goes through the
        // Unicode fold on its own. This gives the whole text's fold: an ASCII scalar neither
        // decomposes nor composes with what comes before it, and no mark reorders across it.
        let bytes = Array(text.utf8)
        var results = optionSets.map { _ in [UInt8]() }
        for k in results.indices { results[k].reserveCapacity(bytes.count) }
        var index = 0, asciiFolded = 0
        while index < bytes.count {
            if bytes[index] < 0x80, index + 1 == bytes.count || bytes[index + 1] < 0x80 {
                for (k, options) in optionSets.enumerated() {
                    results[k].append(options.contains(.caseInsensitive) ? lowered(bytes[index]) : bytes[index])
                }
                index += 1
                asciiFolded += 1
                continue
            }
            var end = index + 1
            while end < bytes.count, bytes[end] >= 0x80 { end += 1 }
            let stretch = String(decoding: bytes[index..<end], as: UTF8.self)
            for (k, options) in optionSets.enumerated() { results[k] += foldStretch(stretch, options: options).utf8 }
            index = end
        }
        work?.add(asciiFolded * optionSets.count)
        return results.map { String(decoding: $0, as: UTF8.self) }
    }

    /// ASCII text with its capitals made small; the same text when it has none.
    private static func lowered(_ text: String) -> String {
        guard text.utf8.contains(where: { (0x41...0x5A).contains($0) }) else { return text }
        return String(decoding: text.utf8.map(lowered), as: UTF8.self)
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }

    /// A short stretch's fold, remembered: texts repeat the same few (`"fé"`, `" «"`), and the
    /// Unicode fold of one costs about a microsecond, a large part of a save's work on
    /// PostgreSQL (which keeps each text's folds, ``TextForm``). At most ``stretchCacheLimit``
    /// are kept.
    private static func foldStretch(_ stretch: String, options: StringOptions) -> String {
        guard stretch.utf8.count <= 32 else { return foldScalars(stretch, options: options) }
        let key = StretchKey(stretch: stretch, options: options)
        if let folded = stretchFolds.withLock({ $0[key] }) {
            work?.add(stretch.utf8.count)
            return folded
        }
        let folded = foldScalars(stretch, options: options)
        stretchFolds.withLock { folds in
            if folds.count >= stretchCacheLimit { folds.removeAll(keepingCapacity: true) }
            folds[key] = folded
        }
        return folded
    }

    private struct StretchKey: Hashable, Sendable {
        let stretch: String
        let options: StringOptions
    }

    /// The most stretch folds kept (about 1 MiB); the cache starts again when full.
    package static let stretchCacheLimit = 8_192
    private static let stretchFolds = Locked([StretchKey: String]())

    /// ``fold(_:options:)`` scalar by scalar through the Unicode normalizer, for text of any
    /// kind (`fold` calls it for the stretches of text that are not ASCII).
    package static func foldScalars(_ text: String, options: StringOptions) -> String {
        let counter = work
        var text = text
        if options.contains(.caseInsensitive) {
            var folded = String.UnicodeScalarView()
            for scalar in streamSafe(text, counter)._nfd {
                guard !scalar.isASCII else {
                    folded.append((0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(UInt8(scalar.value) + 0x20) : scalar)
                    continue
                }
                for upper in scalar.properties.uppercaseMapping.unicodeScalars {
                    // One scalar at a time: appending a view (`append(contentsOf:)`) is quadratic.
                    for lower in upper.properties.lowercaseMapping.unicodeScalars { folded.append(lower) }
                }
            }
            counter?.add(folded.count)
            text = String(folded)
        }
        if options.contains(.diacriticInsensitive) {
            var bare = String.UnicodeScalarView()
            var visited = 0
            for scalar in streamSafe(text, counter)._nfd {
                visited += 1
                if scalar.properties.generalCategory != .nonspacingMark { bare.append(scalar) }
            }
            counter?.add(visited)
            text = String(bare)
        }
        var composed = String.UnicodeScalarView()
        for scalar in streamSafe(text, counter)._nfc { composed.append(scalar) }
        counter?.add(composed.count)
        return String(composed)
    }

    /// The most combining marks (scalars whose canonical combining class is not 0) that
    /// ``fold(_:options:)`` hands the normalizer in a row: 30, as in Unicode's Stream-Safe Text
    /// Format (UAX #15).
    public static let markRunLimit = 30

    /// `text` with U+034F COMBINING GRAPHEME JOINER after every ``markRunLimit`` combining marks
    /// in a row (the Stream-Safe Text Format), so that normalization, which puts each run of
    /// marks in canonical order, sorts runs of bounded length: the standard library's sort takes
    /// time quadratic in a run's length (a letter with 20,000 alternating marks: 2.4 s; 160,000:
    /// 112 s). Text with no longer run, which is all text but contrived text, is returned as is;
    /// longer runs are put in order ``markRunLimit`` marks at a time.
    static func streamSafe(_ text: String, _ counter: WorkCounter?) -> String {
        var run = 0, longest = 0, scanned = 0
        for scalar in text.unicodeScalars {
            scanned += 1
            run = scalar.properties.canonicalCombiningClass == .notReordered ? 0 : run + 1
            longest = max(longest, run)
        }
        counter?.add(scanned)
        guard longest > markRunLimit else {
            counter?.noteMarkRun(longest)
            return text
        }
        var safe = String.UnicodeScalarView()
        run = 0
        for scalar in text.unicodeScalars {
            if scalar.properties.canonicalCombiningClass == .notReordered {
                run = 0
            } else if run == markRunLimit {
                safe.append("\u{34F}")
                run = 1
            } else {
                run += 1
            }
            safe.append(scalar)
        }
        counter?.add(scanned)
        counter?.noteMarkRun(markRunLimit)
        return String(safe)
    }

    // MARK: Counting work

    /// Counts the work of the functions here — the scalars each pass of folding visits, the
    /// positions `CONTAINS` tries, the steps `LIKE` takes — and the longest run of combining
    /// marks handed to the normalizer, so that tests check how work grows with the text by
    /// counting it, not timing it. Bind one with `PredicateText.$work.withValue(counter) { … }`.
    package final class WorkCounter: Sendable {
        private let state = Locked((work: 0, longestMarkRun: 0))

        package init() {}

        /// The units of work counted so far.
        package var count: Int { state.withLock { $0.work } }
        /// The longest run of combining marks normalized so far.
        package var longestMarkRun: Int { state.withLock { $0.longestMarkRun } }

        func add(_ units: Int) { state.withLock { $0.work += units } }
        func noteMarkRun(_ length: Int) { state.withLock { $0.longestMarkRun = max($0.longestMarkRun, length) } }
    }

    /// The counter of the current task, if a test bound one: read once per call.
    @TaskLocal package static var work: WorkCounter?

    // MARK: Comparing

    /// Orders two strings by their UTF-8 bytes (SQLite's `BINARY` collation), after folding
    /// both with `options`.
    public static func compare(_ a: String, _ b: String, options: StringOptions = []) -> ComparisonResult {
        let a = fold(a, options: options), b = fold(b, options: options)
        if a.utf8.elementsEqual(b.utf8) { return .orderedSame }
        return a.utf8.lexicographicallyPrecedes(b.utf8) ? .orderedAscending : .orderedDescending
    }

    /// Orders strings as people expect in a list (the `localizedStandard` sort): ignoring case
    /// and diacritics, and runs of ASCII digits by their numeric value (`"file2"` before
    /// `"file10"`); ties fall back to ``compare(_:_:options:)`` without options.
    /// Locale-independent, so a store's collation gives the same order.
    public static func localizedStandardCompare(_ a: String, _ b: String) -> ComparisonResult {
        let x = Array(fold(a, options: [.caseInsensitive, .diacriticInsensitive]).utf8)
        let y = Array(fold(b, options: [.caseInsensitive, .diacriticInsensitive]).utf8)
        func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
        var i = 0, j = 0
        while i < x.count, j < y.count {
            if isDigit(x[i]), isDigit(y[j]) {
                let startX = i, startY = j
                while i < x.count, isDigit(x[i]) { i += 1 }
                while j < y.count, isDigit(y[j]) { j += 1 }
                let digitsX = x[startX..<i].drop { $0 == 0x30 }, digitsY = y[startY..<j].drop { $0 == 0x30 }
                if digitsX.count != digitsY.count { return digitsX.count < digitsY.count ? .orderedAscending : .orderedDescending }
                if !digitsX.elementsEqual(digitsY) {
                    return digitsX.lexicographicallyPrecedes(digitsY) ? .orderedAscending : .orderedDescending
                }
            } else {
                if x[i] != y[j] { return x[i] < y[j] ? .orderedAscending : .orderedDescending }
                i += 1
                j += 1
            }
        }
        if i < x.count || j < y.count { return i < x.count ? .orderedDescending : .orderedAscending }
        return compare(a, b)
    }

    /// A text whose UTF-8 byte order is ``localizedStandardCompare(_:_:)``'s order, up to its
    /// ties (which that comparison breaks by the original texts): for a store that sorts by a
    /// kept column instead of calling Swift. The text folded with `[cd]`, each run of ASCII digits
    /// written as its count of significant digits (one digit `0`–`8`, or `9` and twenty digits)
    /// then those digits, so that a longer number sorts after a shorter one.
    public static func localizedStandardSortKey(_ text: String) -> String {
        localizedStandardSortKey(folded: fold(text, options: [.caseInsensitive, .diacriticInsensitive]))
    }

    /// ``localizedStandardSortKey(_:)`` of a text already folded with `[cd]` (for a caller that
    /// keeps that fold too: folding is the costly part).
    package static func localizedStandardSortKey(folded text: String) -> String {
        let folded = Array(text.utf8)
        var key: [UInt8] = []
        key.reserveCapacity(folded.count + 2)
        var i = 0
        while i < folded.count {
            guard (0x30...0x39).contains(folded[i]) else {
                key.append(folded[i])
                i += 1
                continue
            }
            let start = i
            while i < folded.count, (0x30...0x39).contains(folded[i]) { i += 1 }
            let digits = folded[start..<i].drop { $0 == 0x30 }
            if digits.count < 9 {
                key.append(0x30 + UInt8(digits.count))
            } else {
                let count = String(digits.count)
                key.append(0x39)
                key += repeatElement(0x30, count: 20 - count.utf8.count)
                key += count.utf8
            }
            key += digits
        }
        return String(decoding: key, as: UTF8.self)
    }

    // MARK: Operators

    /// `CONTAINS`, `BEGINSWITH`, `ENDSWITH` on folded UTF-8 bytes; the empty string is found
    /// in every string (as SQLite's `instr` finds it).
    public static func contains(_ value: String, _ part: String, options: StringOptions) -> Bool {
        let value = Array(fold(value, options: options).utf8), part = Array(fold(part, options: options).utf8)
        guard !part.isEmpty else { return true }
        guard part.count <= value.count else { return false }
        let last = value.count - part.count
        let found = (0...last).first { value[$0..<($0 + part.count)].elementsEqual(part) }
        work?.add((found ?? last) + 1)
        return found != nil
    }

    /// `BEGINSWITH` on folded UTF-8 bytes.
    public static func hasPrefix(_ value: String, _ prefix: String, options: StringOptions) -> Bool {
        fold(value, options: options).utf8.starts(with: fold(prefix, options: options).utf8)
    }

    /// `ENDSWITH` on folded UTF-8 bytes.
    public static func hasSuffix(_ value: String, _ suffix: String, options: StringOptions) -> Bool {
        fold(value, options: options).utf8.reversed().starts(with: fold(suffix, options: options).utf8.reversed())
    }

    /// Whether `value` as a whole matches the `LIKE` pattern: `*` matches any run of Unicode
    /// scalars (also none), `?` exactly one scalar, `\` makes the next scalar literal; everything
    /// else matches itself (after folding both with `options`), scalar for scalar as `==`
    /// compares. SQL's `%` and `_` are ordinary characters here.
    ///
    /// Scalars, not `Character`s, as SQLite's and PostgreSQL's own `LIKE` count, so that every
    /// store answers alike: `"e\u{301}"` (two scalars) matches `"??"`, not `"?"`. Folding with
    /// `[c]` or `[d]` composes text (NFC) first, so an accented letter is then one scalar however
    /// it was typed.
    public static func like(_ value: String, pattern: String, options: StringOptions) -> Bool {
        enum Piece: Equatable {
            case anyRun, one, literal(Unicode.Scalar)

            func matches(_ scalar: Unicode.Scalar) -> Bool {
                switch self {
                case .anyRun: false
                case .one: true
                case .literal(let literal): literal == scalar
                }
            }
        }
        var pieces: [Piece] = []
        var escaping = false
        for scalar in fold(pattern, options: options).unicodeScalars {
            if escaping {
                pieces.append(.literal(scalar))
                escaping = false
            } else {
                switch scalar {
                case "\\": escaping = true
                case "*": pieces.append(.anyRun)
                case "?": pieces.append(.one)
                default: pieces.append(.literal(scalar))
                }
            }
        }
        if escaping { pieces.append(.literal("\\")) }
        let scalars = Array(fold(value, options: options).unicodeScalars)
        // Greedy match, backtracking only to the last `*`: O(n·m) at worst, no recursion.
        var v = 0, p = 0, starPiece: Int?, starValue = 0, steps = 0
        defer { work?.add(steps) }
        while v < scalars.count {
            steps += 1
            if p < pieces.count, pieces[p].matches(scalars[v]) {
                v += 1
                p += 1
            } else if p < pieces.count, pieces[p] == .anyRun {
                starPiece = p
                starValue = v
                p += 1
            } else if let star = starPiece {
                p = star + 1
                starValue += 1
                v = starValue
            } else {
                return false
            }
        }
        while p < pieces.count, pieces[p] == .anyRun { p += 1 }
        return p == pieces.count
    }

    /// Whether `value` as a whole matches the ICU regular expression `regex` (as
    /// `NSRegularExpression` reads it). `[c]` makes the match case-insensitive; `[d]` removes
    /// diacritics from both value and pattern first. An invalid pattern matches nothing (a
    /// constant pattern is rejected earlier, when the predicate is checked).
    /// > Note: Compiled patterns are cached: the 128 last used, of at most 65,536 characters in all.
    /// - Throws: ``ObjectPredicateError/Code/regexGaveUp`` when the engine gives up on the value
    ///   (catastrophic backtracking): the answer is unknown, never taken as `false`.
    public static func matches(_ value: String, regex: String, options: StringOptions) throws(ObjectPredicateError) -> Bool {
        let diacritics: StringOptions = options.intersection(.diacriticInsensitive)
        return try RegexMatcher.wholeMatch(fold(value, options: diacritics), pattern: fold(regex, options: diacritics),
                                           caseInsensitive: options.contains(.caseInsensitive))
    }
}
