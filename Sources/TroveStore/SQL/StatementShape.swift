import Foundation
import TroveModel

/// What the SQL text of a fetch depends on: the query with each constant of its predicate
/// reduced to what the compiler reads of it (its kind, whether it is nil, whether a double fits
/// a decimal). Fetches of one shape — `id == %@` with one id, then another — run the same
/// statement with other arguments, so a store compiles each shape once (see
/// ``SQLiteStore/compiledFetch(_:selecting:)``).
struct StatementShape: Hashable, Sendable {
    let entityName: String
    let includesSubentities: Bool
    let selection: SQLiteStore.FetchSelection
    let hasWindow: Bool
    let predicate: CheckedPredicate.Node?
    let sortDescriptors: [CheckedSortKey]

    /// The shape of `query`, and its predicate's constants in order (left operand before right,
    /// parts in order, list elements in order); `nil` for a predicate with aggregates,
    /// subqueries or object comparisons, which are compiled every time.
    static func of(_ query: StoreQuery, selecting selection: SQLiteStore.FetchSelection) -> (StatementShape, [AttributeValue])? {
        var constants: [AttributeValue] = []
        var predicate: CheckedPredicate.Node?
        if let root = query.predicate?.root {
            guard let erased = erase(root, into: &constants) else { return nil }
            predicate = erased
        }
        let shape = StatementShape(
            entityName: query.entity.name, includesSubentities: query.includesSubentities, selection: selection,
            hasWindow: query.limit != nil || query.offset > 0, predicate: predicate, sortDescriptors: query.sortDescriptors)
        return (shape, constants)
    }

    private static func erase(_ node: CheckedPredicate.Node, into constants: inout [AttributeValue]) -> CheckedPredicate.Node? {
        switch node {
        case .constant:
            return node
        case .not(let operand):
            return erase(operand, into: &constants).map { .not($0) }
        case .and(let parts), .or(let parts):
            var erased: [CheckedPredicate.Node] = []
            erased.reserveCapacity(parts.count)
            for part in parts {
                guard let e = erase(part, into: &constants) else { return nil }
                erased.append(e)
            }
            if case .and = node { return .and(erased) }
            return .or(erased)
        case .comparison(var comparison):
            guard let left = erase(comparison.left, into: &constants),
                  let right = erase(comparison.right, into: &constants) else { return nil }
            comparison.left = left
            comparison.right = right
            return .comparison(comparison)
        case .objects:
            // Objects compared by identity bind their keys: compiled every time.
            return nil
        }
    }

    private static func erase(_ operand: CheckedPredicate.Operand, into constants: inout [AttributeValue]) -> CheckedPredicate.Operand? {
        switch operand {
        case .value(let value):
            constants.append(value)
            return .value(kind(of: value))
        case .list(let values):
            constants += values
            return .list(values.map(kind(of:)))
        case .keyPath:
            return operand
        case .aggregate:
            return nil
        }
    }

    /// A value standing for every value the compiler treats as it treats `value`.
    private static func kind(of value: AttributeValue) -> AttributeValue {
        switch value {
        case .null: .null
        case .string: .string("")
        case .integer: .integer(0)
        // A double no decimal holds is compared as a double with a decimal attribute.
        case .double(let d): .double(Decimal(shortestDigitsOf: d) == nil ? .infinity : 0)
        case .decimal: .decimal(0)
        case .boolean: .boolean(false)
        case .date: .date(Date(timeIntervalSinceReferenceDate: 0))
        case .binary: .binary(Data())
        case .uuid: .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .uri: .uri(URL(fileURLWithPath: "/"))
        case .character: .character(" ")
        case .json: .json(.null)
        }
    }
}

/// A compiled fetch of one ``StatementShape``: its SQL, and how to make its arguments from
/// another query of that shape.
struct ShapedStatement: Sendable {
    let sql: String
    /// For each bound constant (the non-nil ones, in order), how the compiler bound it.
    let bindings: [QueryCompiler.Binding]

    /// The arguments for a query of this shape whose predicate's constants are `constants`.
    func arguments(constants: [AttributeValue], query: StoreQuery) -> [AttributeValue] {
        var arguments: [AttributeValue] = []
        arguments.reserveCapacity(bindings.count + 2)
        var next = 0
        for constant in constants where !constant.isNull {
            arguments.append(QueryCompiler.bound(constant, bindings[next]))
            next += 1
        }
        arguments += QueryCompiler.windowArguments(query)
        return arguments
    }

    /// A statement for `shape`, when `compiled` (the compiler's output for a query with
    /// `constants`) is what ``arguments(constants:query:)`` makes; `nil` when it is not.
    init?(sql: String, arguments compiled: [AttributeValue], bindings: [QueryCompiler.Binding],
          constants: [AttributeValue], query: StoreQuery) {
        self.sql = sql
        self.bindings = bindings
        guard bindings.count == constants.count(where: { !$0.isNull }),
              arguments(constants: constants, query: query) == compiled else { return nil }
    }
}
