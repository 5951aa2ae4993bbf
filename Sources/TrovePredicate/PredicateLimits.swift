/// The sizes past which a predicate or a sort list is refused, when a request is checked and
/// before any SQL runs, with ``ObjectPredicateError/Code/tooLarge`` and the limit in the message.
///
/// SQLite refuses an expression nested deeper than 1,000 levels, and `a OR b OR …` nests one
/// level per term; its parser's stack overflows past about 100 nested parentheses (measured on
/// the SQL Trove writes: 48 `NOT`s, 78 groups, or 11 nested `SUBQUERY`s); it binds at most
/// 32,766 values to a statement; and SQLite 3.40 crashes sorting by some 100 keys through a
/// relationship (60 run). These limits keep every
/// predicate they allow well inside those of SQLite (a test runs predicates at the limits, in
/// their deepest shapes, on a store).
public enum PredicateLimits {
    /// The most comparisons (and `TRUEPREDICATE`/`FALSEPREDICATE`) in one predicate, those
    /// inside `SUBQUERY`s included.
    public static let maximumTerms = 500
    /// How deep `NOT`s, `AND`/`OR` groups and `SUBQUERY`s may nest in a predicate; a
    /// `SUBQUERY` counts ``subqueryDepth`` levels.
    public static let maximumDepth = 24
    /// The levels one `SUBQUERY` counts toward ``maximumDepth``: SQLite's parser spends four
    /// times as much on one as on a `NOT`.
    public static let subqueryDepth = 4
    /// How deep parentheses, `NOT`s, lists and `SUBQUERY`s may nest in a predicate's text (its
    /// parser's own bound: `((a = 1))` nests in the text but not in the predicate).
    public static let maximumTextDepth = 100
    /// The most constants in one predicate, list elements included (`id IN {…}` with up to
    /// this many values).
    public static let maximumValues = 20_000
    /// The most keys in one sort list.
    public static let maximumSortKeys = 32

    /// Throws when `root` goes past a limit.
    static func check(_ root: ObjectPredicate.Node) throws(ObjectPredicateError) {
        var terms = 0, values = 0
        // An explicit stack, so that a tree built in code however deep is measured safely.
        var pending: [(node: ObjectPredicate.Node, depth: Int)] = [(root, 0)]
        var expressions: [(expression: ObjectPredicate.Expression, depth: Int)] = []
        while let (node, depth) = pending.popLast() {
            guard depth <= maximumDepth else {
                throw ObjectPredicateError(.tooLarge, nestingMessage)
            }
            switch node {
            case .constant:
                terms += 1
            case .not(let operand):
                pending.append((operand, depth + 1))
            case .and(let parts), .or(let parts):
                pending += parts.map { ($0, depth + 1) }
            case .comparison(let comparison):
                terms += 1
                expressions += [(comparison.left, depth), (comparison.right, depth)]
                while let (expression, level) = expressions.popLast() {
                    switch expression {
                    case .value, .object, .variable: values += 1
                    case .list(let items): expressions += items.map { ($0, level + 1) }
                    case .aggregate(_, let source, _): expressions.append((source, level))
                    case .subquery(_, _, let predicate): pending.append((predicate, level + subqueryDepth))
                    case .keyPath: break
                    }
                }
            }
            guard terms <= maximumTerms else {
                throw ObjectPredicateError(
                    .tooLarge, "the predicate has more than \(maximumTerms) comparisons; use IN {…} for many values of one key, or split the request")
            }
            guard values <= maximumValues else {
                throw ObjectPredicateError(.tooLarge, "the predicate has more than \(maximumValues) values; split the request")
            }
        }
    }

    static let nestingMessage = "the predicate nests deeper than \(maximumDepth) levels of NOT, AND/OR groups and SUBQUERY (which counts"
        + " \(subqueryDepth)); write it with less nesting"
    static let textNestingMessage = "the predicate nests deeper than \(maximumTextDepth) levels; write it with less nesting"

    /// Throws when a sort list has more than ``maximumSortKeys`` keys.
    package static func checkSortKeys(count: Int) throws(ObjectPredicateError) {
        guard count > maximumSortKeys else { return }
        throw ObjectPredicateError(.tooLarge, "the sort list has \(count) keys, more than the \(maximumSortKeys) allowed; sort by fewer keys")
    }
}
