import Foundation
import TroveModel
import TrovePredicate

/// What the SQL text of a fetch depends on: the query with each constant of its predicate
/// reduced to what the compiler reads of it (its kind, whether it is nil, whether a double fits
/// a decimal). Fetches of one shape — `id == %@` with one id, then another — run the same
/// statement with other arguments, so a store compiles each shape once (see
/// ``SQLiteStore/compiledFetch(_:selecting:)``).
struct StatementShape: Hashable, Sendable {
    /// The query, flattened: the entity and flags, the predicate's tree in prefix order (key
    /// paths by name: within one model a name says all the compiler reads of an attribute or a
    /// relationship), then the sort descriptors. Flat tokens hash and compare in a fraction of
    /// the time the checked tree takes, whose key paths carry whole attributes.
    private let key: ShapeKey

    /// The shape of `query`, and its predicate's constants in order (left operand before right,
    /// parts in order, list elements in order); `nil` for a predicate with aggregates,
    /// subqueries or object comparisons, which are compiled every time.
    static func of(_ query: StoreQuery, selecting selection: SQLiteStore.FetchSelection) -> (StatementShape, [AttributeValue])? {
        var key = ShapeKey()
        key.name(query.entity.name)
        key.code(query.includesSubentities ? 1 : 0)
        key.code(selection == .objects ? 0 : 1)
        key.code(query.limit != nil || query.offset > 0 ? 1 : 0)
        var constants: [AttributeValue] = []
        if let root = query.predicate?.root {
            guard flatten(root, into: &key, constants: &constants) else { return nil }
        } else {
            key.code(-1)
        }
        for sort in query.sortDescriptors {
            key.name(sort.descriptor.keyPath)
            key.code(sort.descriptor.ascending ? 1 : 0)
            key.name(sort.descriptor.comparison.rawValue)
        }
        return (StatementShape(key: key), constants)
    }

    /// Appends `node`'s tokens and its constants; `false` for what is compiled every time.
    private static func flatten(_ node: CheckedPredicate.Node, into key: inout ShapeKey, constants: inout [AttributeValue]) -> Bool {
        switch node {
        case .constant(let value):
            key.constant(value)
            return true
        case .not(let operand):
            key.not()
            return flatten(operand, into: &key, constants: &constants)
        case .and(let parts), .or(let parts):
            if case .and = node { key.group(isAnd: true, count: parts.count) } else { key.group(isAnd: false, count: parts.count) }
            return parts.allSatisfy { flatten($0, into: &key, constants: &constants) }
        case .comparison(let comparison):
            key.comparison(comparison.modifier, comparison.op, comparison.options)
            return flatten(comparison.left, into: &key, constants: &constants)
                && flatten(comparison.right, into: &key, constants: &constants)
        case .objects:
            // Objects compared by identity bind their keys: compiled every time.
            return false
        }
    }

    private static func flatten(_ operand: CheckedPredicate.Operand, into key: inout ShapeKey, constants: inout [AttributeValue]) -> Bool {
        switch operand {
        case .value(let value):
            constants.append(value)
            key.code(kind(of: value))
        case .list(let values):
            constants += values
            key.list(values) { kind(of: $0) }
        case .keyPath(let path):
            key.keyPath(from: path.variable.map { "$" + $0 } ?? path.entityName, count: path.steps.count)
            for step in path.steps { key.name(step.key.name) }
        case .aggregate:
            return false
        }
        return true
    }

    /// The predicate's constants of a query that has a shape, in the order ``of(_:selecting:)``
    /// gives them, without the shape: for a query whose shape is known (see ``ShapeStatements``).
    static func constants(of query: StoreQuery) -> [AttributeValue]? {
        var constants: [AttributeValue] = []
        guard let root = query.predicate?.root else { return constants }
        constants.reserveCapacity(4)
        func collect(_ node: CheckedPredicate.Node) -> Bool {
            switch node {
            case .constant: return true
            case .not(let operand): return collect(operand)
            case .and(let parts), .or(let parts): return parts.allSatisfy(collect)
            case .comparison(let comparison): return collect(comparison.left) && collect(comparison.right)
            case .objects: return false
            }
        }
        func collect(_ operand: CheckedPredicate.Operand) -> Bool {
            switch operand {
            case .value(let value): constants.append(value)
            case .list(let values): constants += values
            case .keyPath: break
            case .aggregate: return false
            }
            return true
        }
        return collect(root) ? constants : nil
    }

    /// A number for every value the compiler treats as it treats `value`: its case's
    /// ``AttributeValue/kindCode``, and for a double, whether a decimal holds it (one that none
    /// holds is compared as a double with a decimal attribute).
    static func kind(of value: AttributeValue) -> Int {
        if case .double(let d) = value, Decimal(shortestDigitsOf: d) == nil { return 99 }
        return value.kindCode
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

/// The statements a store compiled for the queries of one request shape, kept with the shape's
/// checked template in a ``StoreQueryCache`` and shared by every query made from it: such a
/// query finds its statement here — after comparing its constants' kinds — instead of
/// flattening and hashing its whole shape again (which cost a tenth of a fetch by unique key).
package final class ShapeStatements: Sendable {
    /// A statement, and what of the query it was compiled for its shape holds beyond the
    /// request's shape: the store, the selection, whether a window is bound, the constants' kinds.
    private struct Entry {
        let store: ObjectIdentifier
        let selection: SQLiteStore.FetchSelection
        let windowed: Bool
        let kinds: [Int]
        let statement: ShapedStatement
    }

    /// Few: a request shape gives a statement per selection and window (and per kinds of
    /// constants, which rarely vary).
    private let entries = Locked<[Entry]>([])

    package init() {}

    /// How many statements are kept (for tests).
    package var count: Int { entries.withLock(\.count) }

    /// The statement `store` compiled for `query` (whose predicate's constants are
    /// `constants`), if kept.
    func statement(of store: ObjectIdentifier, for query: StoreQuery, selecting selection: SQLiteStore.FetchSelection,
                   constants: [AttributeValue]) -> ShapedStatement? {
        let windowed = query.limit != nil || query.offset > 0
        return entries.withLock { entries in
            entries.first { entry in
                entry.store == store && entry.selection == selection && entry.windowed == windowed
                    && entry.kinds.elementsEqual(constants.lazy.map(StatementShape.kind(of:)))
            }?.statement
        }
    }

    /// Keeps `statement`, compiled by `store` for `query` with `constants`.
    func keep(_ statement: ShapedStatement, of store: ObjectIdentifier, for query: StoreQuery,
              selecting selection: SQLiteStore.FetchSelection, constants: [AttributeValue]) {
        let entry = Entry(store: store, selection: selection, windowed: query.limit != nil || query.offset > 0,
                          kinds: constants.map(StatementShape.kind(of:)), statement: statement)
        entries.withLock { entries in
            if entries.count >= 8 { entries.removeAll() }
            entries.append(entry)
        }
    }
}
