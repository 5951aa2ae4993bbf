import Foundation
import TroveModel

/// What the SQL text of a fetch depends on: the query with each constant of its predicate
/// reduced to what the compiler reads of it (its kind, whether it is nil, whether a double fits
/// a decimal). Fetches of one shape — `id == %@` with one id, then another — run the same
/// statement with other arguments, so a store compiles each shape once (see
/// ``SQLiteStore/compiledFetch(_:selecting:)``).
struct StatementShape: Hashable, Sendable {
    /// One piece of the shape: a name, a code (an operator, a flag, a count, a marker of the
    /// tree's structure) or a constant's kind.
    private enum Token: Hashable, Sendable {
        case name(String)
        case code(Int)
        case kind(AttributeValue)
    }

    /// The query, flattened: the entity and flags, the predicate's tree in prefix order (key
    /// paths by name: within one model a name says all the compiler reads of an attribute or a
    /// relationship), then the sort descriptors. Flat tokens hash and compare in a fraction of
    /// the time the checked tree takes, whose key paths carry whole attributes.
    private let tokens: [Token]

    /// The shape of `query`, and its predicate's constants in order (left operand before right,
    /// parts in order, list elements in order); `nil` for a predicate with aggregates,
    /// subqueries or object comparisons, which are compiled every time.
    static func of(_ query: StoreQuery, selecting selection: SQLiteStore.FetchSelection) -> (StatementShape, [AttributeValue])? {
        var tokens: [Token] = [
            .name(query.entity.name), .code(query.includesSubentities ? 1 : 0), .code(selection == .objects ? 0 : 1),
            .code(query.limit != nil || query.offset > 0 ? 1 : 0),
        ]
        var constants: [AttributeValue] = []
        if let root = query.predicate?.root {
            guard flatten(root, into: &tokens, constants: &constants) else { return nil }
        } else {
            tokens.append(.code(-1))
        }
        for sort in query.sortDescriptors {
            tokens.append(.name(sort.descriptor.keyPath))
            tokens.append(.code(sort.descriptor.ascending ? 1 : 0))
            tokens.append(.name(sort.descriptor.comparison.rawValue))
        }
        return (StatementShape(tokens: tokens), constants)
    }

    /// Appends `node`'s tokens and its constants; `false` for what is compiled every time.
    private static func flatten(_ node: CheckedPredicate.Node, into tokens: inout [Token], constants: inout [AttributeValue]) -> Bool {
        switch node {
        case .constant(let value):
            tokens.append(.code(value ? 1 : 0))
            return true
        case .not(let operand):
            tokens.append(.code(2))
            return flatten(operand, into: &tokens, constants: &constants)
        case .and(let parts), .or(let parts):
            if case .and = node { tokens.append(.code(3)) } else { tokens.append(.code(4)) }
            tokens.append(.code(parts.count))
            return parts.allSatisfy { flatten($0, into: &tokens, constants: &constants) }
        case .comparison(let comparison):
            tokens.append(.code(5))
            tokens.append(.name(comparison.modifier.rawValue))
            tokens.append(.name(comparison.op.rawValue))
            tokens.append(.code(Int(comparison.options.rawValue)))
            return flatten(comparison.left, into: &tokens, constants: &constants)
                && flatten(comparison.right, into: &tokens, constants: &constants)
        case .objects:
            // Objects compared by identity bind their keys: compiled every time.
            return false
        }
    }

    private static func flatten(_ operand: CheckedPredicate.Operand, into tokens: inout [Token], constants: inout [AttributeValue]) -> Bool {
        switch operand {
        case .value(let value):
            constants.append(value)
            tokens.append(.kind(kind(of: value)))
        case .list(let values):
            constants += values
            tokens.append(.code(values.count))
            for value in values { tokens.append(.kind(kind(of: value))) }
        case .keyPath(let path):
            tokens.append(.name(path.variable.map { "$" + $0 } ?? path.entityName))
            tokens.append(.code(path.steps.count))
            for step in path.steps { tokens.append(.name(step.key.name)) }
        case .aggregate:
            return false
        }
        return true
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
