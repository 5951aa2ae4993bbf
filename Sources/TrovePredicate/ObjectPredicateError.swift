/// A predicate or sort descriptor could not be parsed or does not fit the model.
///
/// ``description`` is the whole message for a person: what is wrong, and when the predicate's
/// text is known, that text with a caret under ``column``:
/// ```
/// syntax error at column 9: expected a value after '='
///   title = AND views > 3
///           ^
/// ```
/// Match on ``code`` to tell kinds apart: `catch let error as ObjectPredicateError where error.code == .unknownKey`.
public struct ObjectPredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem; new kinds may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Raw: String, Sendable, Hashable {
            case syntax, argument, unknownKey, keyPath, typeMismatch, unboundVariable, invalidRegex, unsupported, tooLarge, regexGaveUp
        }

        private let raw: Raw
        private init(_ raw: Raw) { self.raw = raw }

        /// The text is not a predicate (or a sort list) in Apple's grammar.
        public static let syntax = Code(.syntax)
        /// A format argument is missing, extra, or of the wrong kind for its specifier.
        public static let argument = Code(.argument)
        /// A key names no attribute or relationship of its entity.
        public static let unknownKey = Code(.unknownKey)
        /// A key path is used where its kind does not fit (a to-many without `ANY`, an
        /// aggregate of a to-one, a key after an attribute, …).
        public static let keyPath = Code(.keyPath)
        /// Two operands, or an operator and an operand, have types that do not go together.
        public static let typeMismatch = Code(.typeMismatch)
        /// A `$VARIABLE` was not bound before checking.
        public static let unboundVariable = Code(.unboundVariable)
        /// A `MATCHES` pattern is not a valid regular expression.
        public static let invalidRegex = Code(.invalidRegex)
        /// A construct of a typed predicate (`#Predicate`) or `SortDescriptor` that has no
        /// translation; the message names it.
        public static let unsupported = Code(.unsupported)
        /// The predicate or sort list goes past one of ``PredicateLimits``; the message names
        /// the limit. Bad input, refused before any SQL runs.
        public static let tooLarge = Code(.tooLarge)
        /// Evaluating `MATCHES` failed: the regular-expression engine gave up on a value (too
        /// much backtracking, or its stack ran out), so whether it matches is unknown. Thrown
        /// while fetching or evaluating, never taken as "no match".
        public static let regexGaveUp = Code(.regexGaveUp)

        /// The code's name, such as `unknownKey`.
        public var description: String { raw.rawValue }
    }

    /// The kind of problem.
    public let code: Code
    /// What is wrong, in one line, without the location.
    public let message: String
    /// The 1-based column of the problem in ``source``, counted in Unicode scalars (characters,
    /// for most text), when known.
    public let column: Int?
    /// The predicate's text, when known.
    public let source: String?
    /// Keys that exist and are spelled closest to an unknown one, best first.
    public let suggestions: [String]

    /// Creates an error; `column` counts Unicode scalars from 1 in `source`.
    public init(_ code: Code, _ message: String, column: Int? = nil, source: String? = nil, suggestions: [String] = []) {
        self.code = code
        self.message = message
        self.column = column
        self.source = source
        self.suggestions = suggestions
    }

    /// The message for a person: kind, column, what is wrong, and the text with a caret.
    public var description: String {
        var head = code == .syntax ? "syntax error" : code == .regexGaveUp ? "predicate evaluation failed" : "invalid predicate"
        if let column { head += " at column \(column)" }
        var text = head + ": " + message
        if let source, let column, !source.contains(where: \.isNewline) {
            let before = String(String.UnicodeScalarView(source.unicodeScalars.prefix(max(0, column - 1))))
            text += "\n  " + source + "\n  " + String(before.map { $0 == "\t" ? "\t" : " " }) + "^"
        } else if let source {
            text += "\n  in: " + source
        }
        return text
    }

    /// This error with its text set, when it has none yet.
    func located(in source: String?) -> ObjectPredicateError {
        guard self.source == nil, let source else { return self }
        return ObjectPredicateError(code, message, column: column, source: source, suggestions: suggestions)
    }
}

// MARK: - Suggestions

enum KeySuggestion {
    /// Up to three of `candidates` closest to `key` by edit distance (ignoring case), best first.
    static func closest(to key: String, among candidates: [String]) -> [String] {
        let target = Array(key.lowercased())
        let limit = max(2, target.count / 3)
        let scored = candidates.compactMap { candidate -> (String, Int)? in
            let lowered = candidate.lowercased()
            let distance = editDistance(target, Array(lowered), limit: limit)
            let prefix = lowered.hasPrefix(key.lowercased()) || key.lowercased().hasPrefix(lowered)
            if let distance, distance <= limit { return (candidate, distance) }
            return prefix && !key.isEmpty ? (candidate, limit + 1) : nil
        }
        return scored.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(3).map(\.0)
    }

    /// "did you mean 'a' or 'b'?" or "it has: a, b, c" when nothing is close.
    static func hint(for key: String, among candidates: [String]) -> (text: String, suggestions: [String]) {
        let suggestions = closest(to: key, among: candidates)
        if !suggestions.isEmpty {
            let names = suggestions.map { "'\($0)'" }
            let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
            return ("did you mean \(list)?", suggestions)
        }
        if candidates.isEmpty { return ("it has no keys", []) }
        return ("its keys are " + candidates.joined(separator: ", "), [])
    }

    /// Levenshtein distance, or `nil` once it exceeds `limit`.
    static func editDistance(_ a: [Character], _ b: [Character], limit: Int) -> Int? {
        if abs(a.count - b.count) > limit { return nil }
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = current[0]
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                rowMinimum = min(rowMinimum, current[j])
            }
            if rowMinimum > limit { return nil }
            swap(&previous, &current)
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }
}
