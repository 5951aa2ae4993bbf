import PostgresNIO
public import TroveModel
public import TroveStore

/// Batch updates and deletes: SQL over the rows a predicate selects, without reading them, in
/// one transaction under the write lock, as ``SQLiteStore`` runs them (Core Data's batch requests).
extension PostgresStore {
    /// Deletes the rows `query` selects, and what their `cascade` rules reach, as
    /// ``SQLiteStore`` does: with one `DELETE` when the delete rules reach no other row (the
    /// schema's foreign-key actions null the to-one columns and remove the join rows that
    /// pointed at them), else by ``BatchDelete``, which gathers the rows first.
    /// - Throws: ``DeniedDeleteError`` when a `deny` rule refuses (nothing is deleted), store errors.
    public func batchDelete(_ query: StoreQuery) throws -> BatchWriteResult {
        let doing = "deleting \(query.entity.name) objects in a batch"
        guard try !schema.deleteRulesNeedRows(query, in: model) else {
            return try batchWrite(doing) {
                try BatchDelete(schema: schema, model: model, connection: BatchDeleteWriter(store: self)).run(query, compiler: writingCompiler())
            }
        }
        let layout = try schema.layout(of: query.entity.name)
        return try batchWrite(doing, layout: layout) { compiler in
            let (condition, arguments) = try matching(query, layout: layout, &compiler)
            return ("DELETE FROM \(quoted(layout.table)) AS \"t\" WHERE \(condition) RETURNING \(returning(layout))", arguments)
        }
    }

    /// Sets `values` (by attribute position) in the rows `query` selects that hold other
    /// values, their text forms too, and raises those rows' versions, with one `UPDATE`.
    /// - Throws: ``StoreError/Code/constraintViolation`` when the values would give two objects
    ///   the same unique key; nothing is written then.
    public func batchUpdate(_ query: StoreQuery, values: [Int: AttributeValue]) throws -> BatchWriteResult {
        let layout = try schema.layout(of: query.entity.name)
        guard !values.isEmpty else { return BatchWriteResult(entity: layout.entity) }
        let changed = values.sorted { $0.key < $1.key }.map { (query.entity.attributes[$0.key], $0.value) }
        let repeatedKey = { (detail: String) in
            StoreError.repeatedKey(inBatchUpdateOf: query.entity, setting: changed.map(\.0.name), detail: detail)
        }
        return try batchWrite("updating \(query.entity.name) objects in a batch", layout: layout, repeatedKey: repeatedKey) { compiler in
            var (condition, bound) = try matching(query, layout: layout, &compiler)
            var assignments: [String] = []
            var differs: [String] = []
            func parameter(_ value: AttributeValue) -> String {
                bound.append(value)
                return "$\(bound.count)"
            }
            for (attribute, value) in changed {
                let marker = parameter(value)
                assignments.append("\(quoted(attribute.name)) = \(marker)")
                differs.append("\"t\".\(quoted(attribute.name)) IS DISTINCT FROM \(marker)")
                guard TextForm.applies(to: attribute.type) else { continue }
                for (form, formed) in zip(TextForm.allCases, TextForm.values(of: value)) {
                    assignments.append("\(quoted(form.column(of: attribute.name))) = \(parameter(formed))")
                }
            }
            let sql = "UPDATE \(quoted(layout.table)) AS \"t\" SET \(assignments.joined(separator: ", ")), \"_version\" = \"t\".\"_version\" + 1"
                + " WHERE \(condition) AND (\(differs.joined(separator: " OR "))) RETURNING \(returning(layout))"
            return (sql, bound)
        }
    }

    /// Runs the statement `statement` makes — a `DELETE` or an `UPDATE` returning its rows' keys
    /// (``returning(_:)``) — as a batch write. The statement is compiled in the transaction, so
    /// that texts its `MATCHES` reads first are those it then writes. `repeatedKey` makes the
    /// error of a unique key the statement would repeat from the server's message.
    private func batchWrite(_ doing: String, layout: StoreSchema.EntityLayout, repeatedKey: ((String) -> StoreError)? = nil,
                            statement: (inout QueryCompiler) throws -> (String, [AttributeValue])) throws -> BatchWriteResult {
        try batchWrite(doing) {
            var result = BatchWriteResult(entity: layout.entity)
            var compiler = writingCompiler()
            let (sql, arguments) = try statement(&compiler)
            let rows: [PostgresRow]
            do {
                rows = try query(sql, arguments).rows
            } catch where Self.sqlState(of: error) == "23505" {
                throw repeatedKey?(Self.describe(error)) ?? error
            }
            for row in rows {
                guard layout.hasEntityColumn else {
                    result.matched.append(try row.decode(Int64.self))
                    continue
                }
                let (key, name) = try row.decode((Int64, String).self)
                result.matched.append(key, of: try model.storedEntity(named: name))
            }
            return result
        }
    }

    /// Runs `body` in one transaction under the write lock that raises the change counter, as
    /// a save does, and gives its result the change tokens around it.
    private func batchWrite(_ doing: String, _ body: () throws -> BatchWriteResult) throws -> BatchWriteResult {
        var (result, counter) = try transaction(doing) { (try body(), try raiseCounter()) }
        result.changeTokenBefore = StoreChangeToken(storeID: storeID, version: counter - 1)
        result.changeTokenAfter = StoreChangeToken(storeID: storeID, version: counter)
        return result
    }

    /// The condition selecting the rows of `query` in a statement on its table as `t` (its own
    /// condition, or `_pk IN` the fetch's when its key paths need joins), and its arguments.
    private func matching(_ query: StoreQuery, layout: StoreSchema.EntityLayout,
                          _ compiler: inout QueryCompiler) throws -> (String, [AttributeValue]) {
        if let condition = try compiler.conditions(for: query.unbounded) { return (condition, compiler.arguments) }
        compiler = writingCompiler()
        let selection = try compiler.select({ _ in "\"t\".\"_pk\"" }, for: query.unbounded, ordered: false)
        return ("\"t\".\"_pk\" IN (\(selection))", compiler.arguments)
    }

    /// A compiler whose `MATCHES` reads texts on the writing connection, in the batch's
    /// transaction. Callers hold `lock`.
    private func writingCompiler() -> QueryCompiler {
        compiler { Array(try self.query($0).rows) }
    }

    /// The `RETURNING` list of a row's identity: `_pk`, and `_entity` in a shared table.
    private func returning(_ layout: StoreSchema.EntityLayout) -> String {
        layout.hasEntityColumn ? "\"t\".\"_pk\", \"t\".\"_entity\"" : "\"t\".\"_pk\""
    }
}

/// The writing connection, inside a batch's transaction, as a ``BatchDelete`` runs its
/// statements on it. Its temporary tables live as long as the connection.
private struct BatchDeleteWriter: BatchDeleteConnection {
    let store: PostgresStore
    var temporarySchema: String { "pg_temp" }
    var temporaryTableOptions: String { "" }

    func execute(_ sql: String, _ arguments: [AttributeValue]) throws -> Int {
        try store.query(sql, arguments).changed
    }

    func rows(_ sql: String, _ types: [AttributeType]) throws -> [[AttributeValue]] {
        try store.query(sql).rows.map { row in
            try zip(row, types).map { cell, type in
                guard let value = PostgresValues.read(cell, as: type) else {
                    throw StoreError(.corruptValue, "a batch delete read \(PostgresValues.describe(cell)) where it wrote a \(type.rawValue)")
                }
                return value
            }
        }
    }
}
