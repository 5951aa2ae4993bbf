import Foundation

/// The running state of `@sum` and `@avg`: one definition that both the in-memory evaluator and
/// the SQL store (which registers it as SQLite aggregate functions) run, so both give the same
/// answers, overflow and decimals included.
///
/// Nil values are skipped. Integers add exactly and turn into a double past `Int64`'s range
/// (where SQLite's own `sum()` fails with "integer overflow"); decimals add exactly (where
/// SQLite's `sum()` would read their text as doubles).
///
/// ```swift
/// var total = PredicateAccumulator(.sum, of: .integer64)
/// total.add(.integer(.max)); total.add(.integer(1))
/// total.result   // .double(9.223372036854776e18)
/// ```
public struct PredicateAccumulator: Sendable {
    /// The kind of number the total is kept in.
    public enum Kind: String, Sendable, CaseIterable {
        /// Exact integers (a double once past `Int64`'s range): `@sum` of integer attributes.
        case integer
        /// Doubles: `@sum` of doubles and floats, `@avg` of integers, doubles and floats.
        case double
        /// Exact decimals: `@sum` and `@avg` of decimal attributes.
        case decimal

        /// The kind `function` (`@sum` or `@avg`) keeps its total in, for values of `type`.
        public init(_ function: ObjectPredicate.Aggregate, of type: AttributeType?) {
            switch type {
            case .decimal?: self = .decimal
            case .double?, .float?: self = .double
            default: self = function == .avg ? .double : .integer
            }
        }

        var zero: AttributeValue {
            switch self {
            case .integer: .integer(0)
            case .double: .double(0)
            case .decimal: .decimal(0)
            }
        }
    }

    /// `@sum` or `@avg`.
    public let function: ObjectPredicate.Aggregate
    /// The kind of number the total is kept in.
    public let kind: Kind
    /// The sum of the values added so far.
    public private(set) var total: AttributeValue
    /// How many non-nil values were added.
    public private(set) var count = 0

    /// An empty accumulator for `function` (`@sum` or `@avg`) over values of `type`.
    public init(_ function: ObjectPredicate.Aggregate, of type: AttributeType?) {
        self.init(function, kind: Kind(function, of: type))
    }

    /// An empty accumulator for `function` keeping its total as `kind`.
    public init(_ function: ObjectPredicate.Aggregate, kind: Kind) {
        self.function = function
        self.kind = kind
        total = kind.zero
    }

    /// Adds a value; nil is skipped.
    public mutating func add(_ value: AttributeValue) {
        guard !value.isNull else { return }
        count += 1
        switch (total, value) {
        case (.integer(let a), .integer(let b)):
            let (result, overflow) = a.addingReportingOverflow(b)
            total = overflow ? .double(Double(a) + Double(b)) : .integer(result)
        case (.decimal(let a), .decimal(let b)): total = .decimal(a + b)
        case (.decimal(let a), .integer(let b)): total = .decimal(a + Decimal(b))
        case (.decimal(let a), .double(let b)): total = .decimal(a + Decimal(b))
        default: total = .double((total.numericDouble ?? 0) + (value.numericDouble ?? 0))
        }
    }

    /// The aggregate: for `@sum` the total (0 of nothing), for `@avg` the total divided by the
    /// count (nil of nothing; a decimal for decimals, a double otherwise).
    public var result: AttributeValue {
        guard function == .avg else { return total }
        guard count > 0 else { return .null }
        if kind == .decimal, case .decimal(let sum) = total { return .decimal(sum / Decimal(count)) }
        return total.numericDouble.map { .double($0 / Double(count)) } ?? .null
    }
}
