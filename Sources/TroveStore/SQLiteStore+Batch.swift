import GRDB
import GRDBSQLite
public import TroveModel

/// Batch updates and deletes: SQL statements over the rows a predicate selects, without
/// reading them into snapshots (GRDB's `updateAll`/`deleteAll`, Core Data's batch requests).
///
/// A batch delete gathers the rows it deletes in a temporary table — the matched rows, then
/// round by round those their `cascade` relationships reach — checks the `deny` rules against
/// it, raises the versions of the rows a `nullify` rule unlinks (as a save through objects
/// would: the rows whose own columns or join rows hold the link), and deletes the rows; the
/// schema's foreign-key actions null the to-one columns and remove the join rows that pointed
/// at them. All of it is one transaction under the write lock.
extension SQLiteStore {
    public func batchDelete(_ query: StoreQuery) throws -> BatchWriteResult {
        try batchWrite("deleting \(query.entity.name) objects in a batch") { db in
            guard try schema.deleteRulesNeedRows(query, in: model) else { return try deleteDirectly(query, in: db) }
            var batch = BatchDelete(store: self, db: db)
            return try batch.run(query)
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
            if last?.name != name { last = (name, try entity(named: name)) }
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
                if last?.name != name { last = (name, try entity(named: name)) }
                if let entity = last?.entity { result.matched.append(key, of: entity) }
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw StoreError.repeatedKey(inBatchUpdateOf: query.entity, setting: names, detail: error.message)
        }
        return result
    }

    /// The entity of an ID the store read.
    fileprivate func entity(named name: String) throws -> Entity {
        guard let entity = model.entity(named: name) else {
            throw StoreError(.corruptValue, "the store holds a row of entity '\(name)', which the model lacks")
        }
        return entity
    }

    /// The SQL of a row's entity name: its `_entity` column, or the table's one entity.
    fileprivate func entityColumn(of layout: StoreSchema.EntityLayout, alias: String?) -> String {
        guard layout.hasEntityColumn else { return sqlStringLiteral(layout.table) }
        return alias.map { "\(quoted($0)).\"_entity\"" } ?? "\"_entity\""
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

/// A batch delete refused by a `deny` rule: a row it would delete still holds, through
/// ``relationship``, a row it would not. Nothing was written.
public struct DeniedDeleteError: Error, Sendable, CustomStringConvertible {
    /// The row that would be deleted.
    public let objectID: ObjectID
    /// Its relationship whose delete rule is `deny`.
    public let relationship: String
    /// The first row that relationship holds and the delete would not remove.
    public let blocking: ObjectID

    public var description: String {
        "cannot delete \(objectID): \(relationship) still holds \(blocking) and its delete rule is deny; nothing was deleted: remove it from \(relationship) first, or narrow the predicate"
    }
}

/// One batch delete on the writer connection, inside its transaction.
private struct BatchDelete {
    let store: SQLiteStore
    let db: Database
    /// The rows to delete: table, key, entity, and the round that found them (0: matched).
    static let rows = "temp.\"_trove_batch_rows\""
    /// The rows whose version a `nullify` rule raises.
    static let unlinked = "temp.\"_trove_batch_unlinked\""

    init(store: SQLiteStore, db: Database) {
        self.store = store
        self.db = db
    }

    mutating func run(_ query: StoreQuery) throws -> BatchWriteResult {
        try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS \(Self.rows) (tbl TEXT NOT NULL, pk INTEGER NOT NULL, entity TEXT NOT NULL, round INTEGER NOT NULL, PRIMARY KEY (tbl, pk)) WITHOUT ROWID")
        try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS \(Self.unlinked) (tbl TEXT NOT NULL, pk INTEGER NOT NULL, entity TEXT NOT NULL, PRIMARY KEY (tbl, pk)) WITHOUT ROWID")
        try db.execute(sql: "DELETE FROM \(Self.rows)")
        try db.execute(sql: "DELETE FROM \(Self.unlinked)")

        let layout = try store.schema.layout(of: query.entity.name)
        var compiler = QueryCompiler(schema: store.schema, model: store.model)
        let selection = try compiler.select({ layout in
            "\(sqlStringLiteral(layout.table)), \"t\".\"_pk\", \(store.entityColumn(of: layout, alias: "t")), 0"
        }, for: query.unbounded, ordered: false)
        try RawStatement.with(db, sql: "INSERT INTO \(Self.rows) (tbl, pk, entity, round) \(selection)") { statement in
            try statement.bind(compiler.arguments)
            try statement.execute()
        }
        var round: Int64 = 0
        while try cascade(from: round) { round += 1 }
        let kinds = try entitiesToDelete()
        try checkDenyRules(of: kinds)
        try unlinkNullified(from: kinds)

        var result = BatchWriteResult(entity: layout.entity)
        try RawStatement.with(db, sql: "SELECT pk, entity, round FROM \(Self.rows) ORDER BY tbl, pk") { statement in
            while try statement.step() {
                let entity = try store.entity(named: statement.text(at: 1))
                if statement.int64(at: 2) == 0 {
                    result.matched.append(statement.int64(at: 0), of: entity)
                } else {
                    result.cascaded.append(statement.int64(at: 0), of: entity)
                }
            }
        }
        try RawStatement.with(db, sql: "SELECT tbl, pk, entity FROM \(Self.unlinked) ORDER BY tbl, pk") { statement in
            var tables: [String] = []
            while try statement.step() {
                let table = statement.text(at: 0)
                if tables.last != table { tables.append(table) }
                result.nullified.append(statement.int64(at: 1), of: try store.entity(named: statement.text(at: 2)))
            }
            for table in tables {
                try db.execute(sql: "UPDATE \(quoted(table)) SET \"_version\" = \"_version\" + 1 WHERE \"_pk\" IN (SELECT pk FROM \(Self.unlinked) WHERE tbl = ?)", arguments: [table])
            }
        }
        // Deleting a row nulls the to-one columns and removes the join rows that point at it
        // (the schema's foreign-key actions).
        for table in Set(kinds.map(\.table)).sorted() {
            try db.execute(sql: "DELETE FROM \(quoted(table)) WHERE \"_pk\" IN (SELECT pk FROM \(Self.rows) WHERE tbl = ?)", arguments: [table])
        }
        // An ordered list that lost objects is numbered again from 0, as a save of its order does.
        for join in store.schema.joinTables where join.isOrdered && !result.nullified.isEmpty {
            let table = quoted(join.name)
            try db.execute(sql: """
                UPDATE \(table) SET "position" = "r"."rank" FROM (SELECT "source", "target", \
                row_number() OVER (PARTITION BY "source" ORDER BY "position") - 1 AS "rank" FROM \(table) \
                WHERE "source" IN (SELECT pk FROM \(Self.unlinked) WHERE tbl = ?)) AS "r" \
                WHERE \(table)."source" = "r"."source" AND \(table)."target" = "r"."target" AND \(table)."position" != "r"."rank"
                """, arguments: [join.sourceTable])
        }
        try db.execute(sql: "DELETE FROM \(Self.rows)")
        try db.execute(sql: "DELETE FROM \(Self.unlinked)")
        return result
    }

    /// The entities (with their tables) that rows to delete belong to, in a stable order.
    private func entitiesToDelete(round: Int64? = nil) throws -> [(table: String, entity: Entity)] {
        let filter = round == nil ? "" : " WHERE round = \(round ?? 0)"
        let pairs = try Row.fetchAll(db, sql: "SELECT DISTINCT tbl, entity FROM \(Self.rows)\(filter) ORDER BY tbl, entity")
        return try pairs.map { row in
            let table: String = row[0], name: String = row[1]
            return (table, try store.entity(named: name))
        }
    }

    /// Adds the rows that the `cascade` relationships of the rows found in `round` reach (and
    /// are not in yet) as round `round + 1`; whether there were any.
    private func cascade(from round: Int64) throws -> Bool {
        var added = false
        for (table, entity) in try entitiesToDelete(round: round) {
            for relationship in entity.relationships where relationship.deleteRule == .cascade {
                let link = try links(of: relationship, from: entity, table: table, round: round)
                let sql = "INSERT OR IGNORE INTO \(Self.rows) (tbl, pk, entity, round) SELECT \(sqlStringLiteral(link.destinationTable)), \(link.destination), \(link.destinationEntity), \(round + 1) \(link.from)"
                try db.execute(sql: sql)
                added = added || db.changesCount > 0
            }
        }
        return added
    }

    /// Fails, naming the first blocking row, when a row to delete holds through a `deny`
    /// relationship a row that is not to be deleted.
    private func checkDenyRules(of kinds: [(table: String, entity: Entity)]) throws {
        for (table, entity) in kinds {
            for relationship in entity.relationships where relationship.deleteRule == .deny {
                let link = try links(of: relationship, from: entity, table: table, round: nil)
                let sql = "SELECT \(link.source), \(link.destination), \(link.destinationEntity) \(link.from)"
                    + " AND \(link.destination) NOT IN (SELECT pk FROM \(Self.rows) WHERE tbl = \(sqlStringLiteral(link.destinationTable)))"
                    + " ORDER BY \(link.source), \(link.destination) LIMIT 1"
                guard let row = try Row.fetchOne(db, sql: sql) else { continue }
                throw DeniedDeleteError(objectID: ObjectID(entity: entity, primaryKey: row[0]), relationship: relationship.name,
                                        blocking: ObjectID(entity: try store.entity(named: row[2]), primaryKey: row[1]))
            }
        }
    }

    /// Notes the rows a `nullify` rule unlinks whose version a save through objects would
    /// raise: those that keep the inverse link in their own row, or in join rows they own.
    private func unlinkNullified(from kinds: [(table: String, entity: Entity)]) throws {
        for (table, entity) in kinds {
            for relationship in entity.relationships where try relationship.deleteRule == .nullify && store.schema.nullifyRaisesVersions(relationship, in: store.model) {
                let link = try links(of: relationship, from: entity, table: table, round: nil)
                try db.execute(sql: "INSERT OR IGNORE INTO \(Self.unlinked) (tbl, pk, entity) SELECT DISTINCT \(sqlStringLiteral(link.destinationTable)), \(link.destination), \(link.destinationEntity) \(link.from)"
                    + " AND \(link.destination) NOT IN (SELECT pk FROM \(Self.rows) WHERE tbl = \(sqlStringLiteral(link.destinationTable)))")
            }
        }
    }

    /// A `FROM … WHERE …` clause listing the links of `relationship` held by the rows to delete
    /// of `entity` (those of one round, or all), with the SQL of the source row's key, and the
    /// destination row's key, table and entity.
    private func links(of relationship: Relationship, from entity: Entity, table: String, round: Int64?)
        throws -> (from: String, source: String, destination: String, destinationTable: String, destinationEntity: String) {
        guard let destinationEntity = store.model.entity(named: relationship.destination) else {
            throw StoreError(.unknownEntity, "relationship \(entity.name).\(relationship.name) leads to '\(relationship.destination)', which the model lacks")
        }
        let destination = try store.schema.layout(of: destinationEntity.name)
        let sources = "SELECT pk FROM \(Self.rows) WHERE tbl = \(sqlStringLiteral(table)) AND entity = \(sqlStringLiteral(entity.name))"
            + (round.map { " AND round = \($0)" } ?? "")
        let d = "\"d\""
        let named = (destinationTable: destination.table, destinationEntity: store.entityColumn(of: destination, alias: "d"))
        switch try store.schema.storage(of: relationship.name, in: entity) {
        case .foreignKey(let column):
            return ("FROM \(quoted(table)) AS \"s\" JOIN \(quoted(destination.table)) AS \(d) ON \(d).\"_pk\" = \"s\".\(quoted(column)) WHERE \"s\".\"_pk\" IN (\(sources))",
                    "\"s\".\"_pk\"", "\(d).\"_pk\"", named.destinationTable, named.destinationEntity)
        case .inverseForeignKey(_, let column):
            return ("FROM \(quoted(destination.table)) AS \(d) WHERE \(d).\(quoted(column)) IN (\(sources))",
                    "\(d).\(quoted(column))", "\(d).\"_pk\"", named.destinationTable, named.destinationEntity)
        case .joinTable(let name, let sourceIsFirst):
            let (mine, other) = sourceIsFirst ? ("source", "target") : ("target", "source")
            return ("FROM \(quoted(name)) AS \"j\" JOIN \(quoted(destination.table)) AS \(d) ON \(d).\"_pk\" = \"j\".\(quoted(other)) WHERE \"j\".\(quoted(mine)) IN (\(sources))",
                    "\"j\".\(quoted(mine))", "\(d).\"_pk\"", named.destinationTable, named.destinationEntity)
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
