extension RegexMatcher {
    /// Whether `value` as a whole matches `pattern`; an invalid pattern matches nothing (the
    /// callers reject constant patterns before any match, with ``RegexMatcher/problem(with:)``).
    /// - Throws: ``ObjectPredicateError/Code/regexGaveUp`` when the engine gives up (the step
    ///   budget is spent or its stack runs out); ``ObjectPredicateError/Code/tooLarge`` for a
    ///   pattern longer than ``RegexMatcher/maximumPatternLength`` (one read from a value, as
    ///   constants are refused before).
    package static func wholeMatch(_ value: String, pattern: String, caseInsensitive: Bool) throws(ObjectPredicateError) -> Bool {
        switch match(value, pattern: pattern, caseInsensitive: caseInsensitive) {
        case .matched: true
        case .unmatched: false
        case .tooLong(let problem): throw ObjectPredicateError(.tooLarge, problem)
        case .gaveUp(let problem): throw ObjectPredicateError(.regexGaveUp, problem)
        }
    }
}
