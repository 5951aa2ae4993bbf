public import TroveModel
import TrovePredicate

/// An SQL statement as a store runs it: the text, with `?` for every value, and the values bound
/// to those parameters, in order.
public struct CompiledStatement: Sendable, Hashable, CustomStringConvertible {
    /// The SQL text; values are never part of it.
    public let sql: String
    /// The values bound to the statement's parameters, in order.
    public let arguments: [AttributeValue]

    /// The SQL, then the arguments: `SELECT … WHERE "t"."views" > ? … -- arguments: [1000, …]`.
    public var description: String {
        arguments.isEmpty ? sql : "\(sql) -- arguments: \(arguments)"
    }
}

extension SQLiteStore {
    /// What a fetch reads from each selected row.
    public enum FetchSelection: Sendable, Hashable {
        /// Every column of the objects' rows: what ``fetch(_:)`` runs.
        case objects
        /// Only the rows' identities: what ``fetchObjectIDs(_:)`` runs (and what a batched
        /// fetch runs first).
        case objectIDs
    }

    /// The statement a fetch of `query` runs, compiled but not run: to log it, to assert it in a
    /// test, or to run the very same SQL on another connection in a benchmark.
    ///
    /// ```swift
    /// let query = try StoreQuery(request, model: store.model)
    /// print(try store.compiledFetch(query))
    /// // SELECT "t"."_pk", … FROM "Photo" AS "t" WHERE ("t"."views" > ? AND …) ORDER BY … LIMIT ? OFFSET ?
    /// ```
    /// - Throws: ``StoreError`` `.unknownEntity`, or a ``ObjectPredicateError`` the compiler raises.
    public func compiledFetch(_ query: StoreQuery, selecting selection: FetchSelection = .objects) throws -> CompiledStatement {
        // A query of a shape compiled before takes that statement, with its own arguments:
        // found with the query's request shape when it has one, by its whole shape otherwise.
        let store = ObjectIdentifier(self)
        if let kept = query.statements, let constants = StatementShape.constants(of: query),
           let statement = kept.statement(of: store, for: query, selecting: selection, constants: constants) {
            return CompiledStatement(sql: statement.sql, arguments: statement.arguments(constants: constants, query: query))
        }
        let shaped = StatementShape.of(query, selecting: selection)
        if let (shape, constants) = shaped, let statement = statements.withLock({ $0[shape] }) {
            query.statements?.keep(statement, of: store, for: query, selecting: selection, constants: constants)
            return CompiledStatement(sql: statement.sql, arguments: statement.arguments(constants: constants, query: query))
        }
        let layout = try schema.layout(of: query.entity.name)
        var compiler = QueryCompiler(schema: schema, model: model)
        let sql: String
        switch selection {
        case .objects:
            let plan = try readPlan(for: layout)
            sql = try compiler.select({ _ in plan.selection(from: "t") }, for: query)
        case .objectIDs:
            sql = try compiler.select({ layout in layout.hasEntityColumn ? "\"t\".\"_pk\", \"t\".\"_entity\"" : "\"t\".\"_pk\"" }, for: query)
        }
        if let (shape, constants) = shaped,
           let statement = ShapedStatement(sql: sql, arguments: compiler.arguments, bindings: compiler.bindings,
                                           constants: constants, query: query) {
            statements.withLock { statements in
                if statements.count >= 256 { statements.removeAll() }
                statements[shape] = statement
            }
            query.statements?.keep(statement, of: store, for: query, selecting: selection, constants: constants)
        }
        return CompiledStatement(sql: sql, arguments: compiler.arguments)
    }
}
