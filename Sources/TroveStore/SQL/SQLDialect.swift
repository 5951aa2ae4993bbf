import Foundation
import TroveModel
import TrovePredicate

/// The SQL a ``QueryCompiler`` writes: SQLite's, or PostgreSQL's.
package enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// The marker of the parameter at `position` (1-based).
    func placeholder(_ position: Int) -> String {
        self == .sqlite ? "?" : "$\(position)"
    }

    /// Equality that holds between two NULLs (SQLite's `IS`).
    var isEqual: String { self == .sqlite ? "IS" : "IS NOT DISTINCT FROM" }
    var isNotEqual: String { self == .sqlite ? "IS NOT" : "IS DISTINCT FROM" }
    /// Equality with a value that is not NULL, which gives what ``isEqual`` gives: PostgreSQL's
    /// `=`, which its indexes serve where they do not serve `IS NOT DISTINCT FROM` (a fetch by
    /// unique key scanned the table); SQLite's `IS`, which its indexes serve.
    var isEqualToValue: String { self == .sqlite ? "IS" : "=" }
    var doubleType: String { self == .sqlite ? "REAL" : "double precision" }

    /// The PostgreSQL type of a column holding `value` (as TrovePostgres keeps each kind).
    static func postgresType(of value: AttributeValue) -> String {
        switch value {
        case .integer, .boolean: "bigint"
        case .double, .date: "double precision"
        case .decimal: "numeric"
        case .binary: "bytea"
        case .null, .string, .uuid, .uri, .character, .json: "text"
        }
    }

    /// `@sum` or `@avg` in PostgreSQL's SQL, as ``PredicateAccumulator`` computes them: sums of
    /// integers and decimals exact (PostgreSQL's `sum` of `bigint` is a `numeric`), of doubles in
    /// double precision, 0 of nothing; averages the sum over the count, nil of nothing (a decimal
    /// average to Decimal's 38 digits, as Decimal divides).
    /// (Past `Int64`'s range PredicateAccumulator goes on in doubles; PostgreSQL stays exact.)
    static func postgresAccumulation(_ function: ObjectPredicate.Aggregate, kind: PredicateAccumulator.Kind, of value: String) -> String {
        let summed = kind == .double ? "CAST(\(value) AS double precision)" : value
        switch (function, kind) {
        case (.avg, .decimal):
            // With 60 decimals at least (PostgreSQL's division keeps the dividend's scale), which
            // Decimal(string:) cuts to 38 digits as Decimal's own division does.
            return "((sum(\(summed)) + 0.\(String(repeating: "0", count: 60))) / NULLIF(count(\(value)), 0))"
        case (.avg, _): return "(CAST(sum(\(summed)) AS double precision) / NULLIF(count(\(value)), 0))"
        default: return "COALESCE(sum(\(summed)), 0)"
        }
    }

    /// A `LIKE` pattern of Trove's (already folded) as PostgreSQL's `LIKE` reads it, with `\`
    /// as its escape: `*` → `%`, `?` → `_`, and `%`, `_`, `\` made literal. Both match by
    /// Unicode scalar (see ``PredicateText/like(_:pattern:options:)``).
    static func postgresLikePattern(_ pattern: String) -> String {
        var sql = String.UnicodeScalarView()
        var escaping = false
        for scalar in pattern.unicodeScalars {
            switch (escaping, scalar) {
            case (false, "\\"):
                escaping = true
                continue
            case (false, "*"): sql.append("%")
            case (false, "?"): sql.append("_")
            case (_, "%"), (_, "_"), (_, "\\"):
                sql.append("\\")
                sql.append(scalar)
            default: sql.append(scalar)
            }
            escaping = false
        }
        if escaping { sql.append(contentsOf: "\\\\".unicodeScalars) }
        return String(sql)
    }
}
