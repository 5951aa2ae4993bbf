import GRDB
import GRDBSQLite
public import TroveModel

/// Batch updates and deletes: SQL statements over the rows a predicate selects, without
/// reading them into snapshots (GRDB's `updateAll`/`deleteAll`, Core Data's batch requests).
///
/// A delete whose rules reach no other row is one `DELETE`; one whose rules do runs
/// ``BatchDelete``. Either is one transaction under the write lock.
extension SQLiteStore {
    public func batchDelete(_ query: StoreQuery) throws -> BatchWriteResult {
        try batchWrite("deleting \(query.entity.name) objects in a batch") { db in
            guard try schema.deleteRulesNeedRows(query, in: model) else { return try deleteDirectly(query, in: db) }
            let batch = BatchDelete(schema: schema, model: model, connection: BatchDeleteWriter(db: db))
            return try batch.run(query, compiler: QueryCompiler(schema: schema, model: model))
        }
    }

    /// `DELETE … RETURNING` of the matched rows, in one statement: for rows whose delete rules
    /// need nothing but the schema's foreign-key actions.
    private func deleteDirectly(_ query: StoreQuery, in db: Database) throws -> BatchWriteResult {
        let layout = try schema.layout(of: query.entity.name)
        let (condition, arguments) = try matching(query, layout: layout)
        var result = BatchWriteResult(entity: layout.entity)
        try RawStatement.with(db, sql: "DELETE FROM \(quoted(layout.table)) AS \"t\" WHERE \(condition) RETURNING \(returning(layout))") { statement in
            try statement.bind(arguments)
            try readIDs(from: statement, of: layout, into: &result.matched)
        }
        return result
    }

    /// The condition selecting the rows of `query` in a statement on its table as `t` (its own
    /// condition, or `_pk IN` the fetch's when its key paths need joins), and its arguments.
    private func matching(_ query: StoreQuery, layout: StoreSchema.EntityLayout) throws -> (String, [AttributeValue]) {
        var compiler = QueryCompiler(schema: schema, model: model)
        if let condition = try compiler.conditions(for: query.unbounded) { return (condition, compiler.arguments) }
        compiler = QueryCompiler(schema: schema, model: model)
        let selection = try compiler.select({ _ in "\"t\".\"_pk\"" }, for: query.unbounded, ordered: false)
        return ("\"t\".\"_pk\" IN (\(selection))", compiler.arguments)
    }

    /// The `RETURNING` list of a row's identity: `_pk`, and `_entity` in a shared table.
    private func returning(_ layout: StoreSchema.EntityLayout) -> String {
        layout.hasEntityColumn ? "\"_pk\", \"_entity\"" : "\"_pk\""
    }

    /// Adds the IDs of the rows `statement` returns (as ``returning(_:)`` lists them) to `ids`.
    private func readIDs(from statement: RawStatement, of layout: StoreSchema.EntityLayout, into ids: inout ObjectIDList) throws {
        guard layout.hasEntityColumn else {
            while try statement.step() { ids.append(statement.int64(at: 0)) }
            return
        }
        // Rows come in runs of one entity: its name is looked up once per run.
        var last: (name: String, entity: Entity)?
        while try statement.step() {
            let name = statement.text(at: 1)
            if last?.name != name { last = (name, try model.storedEntity(named: name)) }
            if let entity = last?.entity { ids.append(statement.int64(at: 0), of: entity) }
        }
    }

    public func batchUpdate(_ query: StoreQuery, values: [Int: AttributeValue]) throws -> BatchWriteResult {
        try batchWrite("updating \(query.entity.name) objects in a batch") { db in
            try runBatchUpdate(query, values: values, in: db)
        }
    }

    /// Runs `body` in one write transaction under the write lock, and gives the result the
    /// change tokens around it (as ``save(_:)`` does).
    private func batchWrite(_ doing: String, _ body: (Database) throws -> BatchWriteResult) throws -> BatchWriteResult {
        try SQLiteStore.mapErrors(doing) {
            try writeLocked(doing) { db in
                let before = changeTokenIfReadable()
                var result: BatchWriteResult?
                try db.inTransaction(.immediate) {
                    if let migrated = try migratedSinceOpening(db) { throw migrated }
                    result = try body(db)
                    // A batch request commits as a save does, and tests stop it at the same points.
                    KillPoint.saveBeforeCommit.reached()
                    return .commit
                }
                KillPoint.saveAfterCommit.reached()
                commitCount.add(1, ordering: .releasing)
                guard var written = result else { throw StoreError(.sqlite, "\(doing): the transaction ended without a result") }
                written.changeTokenBefore = before
                written.changeTokenAfter = changeTokenIfReadable()
                return written
            }
        }
    }

    /// `UPDATE … SET <values>, _version = _version + 1` of the matched rows whose values differ
    /// from the new ones (a row already holding them is not written, as a save through objects
    /// does not write an object set to its own values).
    private func runBatchUpdate(_ query: StoreQuery, values: [Int: AttributeValue], in db: Database) throws -> BatchWriteResult {
        let layout = try schema.layout(of: query.entity.name)
        let positions = values.keys.sorted()
        let names = positions.map { query.entity.attributes[$0].name }
        var result = BatchWriteResult(entity: layout.entity)
        guard !positions.isEmpty else { return result }
        let (condition, arguments) = try matching(query, layout: layout)
        let assignments = names.map { "\(quoted($0)) = ?" }.joined(separator: ", ")
        let differs = names.map { "\"t\".\(quoted($0)) IS NOT ?" }.joined(separator: " OR ")
        // The written rows' keys are noted by a function in the SET clause, called once per
        // written row: `RETURNING` buffers every row in SQLite first (the update took 1.7x as long).
        let entityColumn = layout.hasEntityColumn ? "\"_entity\"" : "NULL"
        let sql = "UPDATE \(quoted(layout.table)) AS \"t\" SET \(assignments), \"_version\" = \(WrittenRows.function)(\"_pk\", \(entityColumn), \"_version\" + 1)"
            + " WHERE \(condition) AND (\(differs))"
        let newValues = positions.compactMap { values[$0] }
        do {
            let written = try WrittenRows.noting(on: db) {
                try RawStatement.with(db, sql: sql) { statement in
                    try statement.bind(newValues + arguments + newValues)
                    try statement.execute()
                }
            }
            var last: (name: String, entity: Entity)?
            for (index, key) in written.keys.enumerated() {
                guard layout.hasEntityColumn, index < written.entities.count else {
                    result.matched.append(key)
                    continue
                }
                let name = written.entities[index]
                if last?.name != name { last = (name, try model.storedEntity(named: name)) }
                if let entity = last?.entity { result.matched.append(key, of: entity) }
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw StoreError.repeatedKey(inBatchUpdateOf: query.entity, setting: names, detail: error.message)
        }
        return result
    }
}

/// What a batch update or delete wrote: the rows it matched, those cascade rules deleted with
/// them, and those whose version it raised because a `nullify` rule unlinked them.
public struct BatchWriteResult: Sendable {
    /// The rows the request's predicate selected and that were updated or deleted (a batch
    /// update leaves out those that already held the new values).
    public package(set) var matched: ObjectIDList
    /// The rows deleted because a `cascade` rule reached them (empty for an update).
    public package(set) var cascaded: ObjectIDList
    /// The rows not deleted whose relationship to a deleted row was emptied, and whose version
    /// was raised (as a save through objects raises it: when the row or its join rows hold the
    /// link).
    public package(set) var nullified: ObjectIDList
    /// The store's ``StoreChangeToken`` just before the write's transaction began (see
    /// ``SaveResult/changeTokenBefore``).
    public package(set) var changeTokenBefore: StoreChangeToken?
    /// The store's ``StoreChangeToken`` just after the write committed (see
    /// ``SaveResult/changeTokenAfter``).
    public package(set) var changeTokenAfter: StoreChangeToken?

    package init(entity: Entity) {
        matched = ObjectIDList(entity: entity)
        cascaded = ObjectIDList(entity: entity)
        nullified = ObjectIDList(entity: entity)
    }
}

extension StoreError {
    /// The error of a batch update that would give two objects of `entity` the same unique key
    /// by setting `names`; `detail` is the store's own message, said when no unique key of the
    /// entity holds one of `names`.
    package static func repeatedKey(inBatchUpdateOf entity: Entity, setting names: [String], detail: String?) -> StoreError {
        let unique = entity.uniqueBy.filter { !Set($0).isDisjoint(with: names) }
        let keys = unique.map { $0.joined(separator: ", ") }.joined(separator: "; ")
        return StoreError(.constraintViolation, """
            the batch update of \(entity.name) sets \(names.joined(separator: ", ")), which would give two objects \
            the same unique key (\(keys.isEmpty ? detail ?? "a constraint failed" : keys)); nothing was written: \
            narrow the predicate to one object, or set values that stay unique
            """)
    }
}

/// The writer connection as a ``BatchDelete`` runs its statements on it.
private struct BatchDeleteWriter: BatchDeleteConnection {
    let db: Database
    var temporarySchema: String { "temp" }
    var temporaryTableOptions: String { " WITHOUT ROWID" }

    func execute(_ sql: String, _ arguments: [AttributeValue]) throws -> Int {
        try RawStatement.with(db, sql: sql) { statement in
            try statement.bind(arguments)
            return try statement.execute()
        }
    }

    func rows(_ sql: String, _ types: [AttributeType]) throws -> [[AttributeValue]] {
        try RawStatement.with(db, sql: sql) { statement in
            var rows: [[AttributeValue]] = []
            while try statement.step() {
                rows.append(types.indices.map { index in
                    types[index] == .string ? .string(statement.text(at: Int32(index))) : .integer(statement.int64(at: Int32(index)))
                })
            }
            return rows
        }
    }
}

/// The rows an `UPDATE` writes, noted by the SQL function ``function`` that its `SET` clause
/// calls once per written row with the row's `_pk`, its `_entity` (or NULL) and the value to
/// set, which it returns.
private final class WrittenRows {
    static let function = "trove_written_row"
    var keys: [Int64] = []
    var entities: [String] = []

    /// Runs `body` with the function defined on `db` (for `body` only), and returns the rows noted.
    static func noting(on db: Database, _ body: () throws -> Void) throws -> WrittenRows {
        let rows = WrittenRows()
        let connection = db.sqliteConnection
        try withExtendedLifetime(rows) {
            let pointer = Unmanaged.passUnretained(rows).toOpaque()
            guard sqlite3_create_function_v2(connection, function, 3, SQLITE_UTF8, pointer, note, nil, nil, nil) == SQLITE_OK else {
                throw StoreError(.sqlite, "could not define the SQL function \(function)")
            }
            defer { sqlite3_create_function_v2(connection, function, 3, SQLITE_UTF8, nil, nil, nil, nil, nil) }
            try body()
        }
        return rows
    }

    private static let note: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let arguments, let data = sqlite3_user_data(context) else { return }
        let rows = Unmanaged<WrittenRows>.fromOpaque(data).takeUnretainedValue()
        rows.keys.append(sqlite3_value_int64(arguments[0]))
        if sqlite3_value_type(arguments[1]) != SQLITE_NULL, let text = sqlite3_value_text(arguments[1]) {
            rows.entities.append(String(cString: text))
        }
        sqlite3_result_value(context, arguments[2])
    }
}
