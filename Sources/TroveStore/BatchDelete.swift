public import TroveModel

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

/// The connection a ``BatchDelete`` runs its statements on, inside the batch's write
/// transaction: SQLite's writer or PostgreSQL's.
package protocol BatchDeleteConnection {
    /// The schema of the connection's temporary tables (`temp`, `pg_temp`).
    var temporarySchema: String { get }
    /// What follows the column list of a temporary table (`WITHOUT ROWID` on SQLite).
    var temporaryTableOptions: String { get }
    /// Runs `sql` with `arguments` (in the dialect of the compiler that made them); the number
    /// of rows it wrote.
    @discardableResult
    func execute(_ sql: String, _ arguments: [AttributeValue]) throws -> Int
    /// The rows of `sql`, each cell read as the type `types` gives for its column (`integer64`
    /// or `string`).
    func rows(_ sql: String, _ types: [AttributeType]) throws -> [[AttributeValue]]
}

/// A batch delete whose delete rules reach other rows, in SQL that SQLite and PostgreSQL both
/// run: it gathers the rows it deletes in a temporary table — the matched rows, then round by
/// round those their `cascade` relationships reach — checks the `deny` rules against it,
/// raises the versions of the rows a `nullify` rule unlinks (as a save through objects would:
/// the rows whose own columns or join rows hold the link), and deletes the rows; the schema's
/// foreign-key actions null the to-one columns and remove the join rows that pointed at them.
/// The caller runs it in one transaction under the write lock.
package struct BatchDelete<Connection: BatchDeleteConnection> {
    let schema: StoreSchema
    let model: Model
    let connection: Connection
    /// The rows to delete: table, key, entity, and the round that found them (0: matched).
    private let rows: String
    /// The rows whose version a `nullify` rule raises.
    private let unlinked: String

    package init(schema: StoreSchema, model: Model, connection: Connection) {
        self.schema = schema
        self.model = model
        self.connection = connection
        rows = "\(connection.temporarySchema).\"_trove_batch_rows\""
        unlinked = "\(connection.temporarySchema).\"_trove_batch_unlinked\""
    }

    /// Deletes the rows `query` selects and what their rules reach; `compiler` is a new one of
    /// the connection's dialect.
    /// - Throws: ``DeniedDeleteError`` when a `deny` rule refuses (nothing is deleted: the caller
    ///   rolls back), store errors.
    package func run(_ query: StoreQuery, compiler: QueryCompiler) throws -> BatchWriteResult {
        let options = connection.temporaryTableOptions
        try connection.execute("CREATE TEMP TABLE IF NOT EXISTS \(rows) (tbl TEXT NOT NULL, pk BIGINT NOT NULL, entity TEXT NOT NULL, round BIGINT NOT NULL, PRIMARY KEY (tbl, pk))\(options)", [])
        try connection.execute("CREATE TEMP TABLE IF NOT EXISTS \(unlinked) (tbl TEXT NOT NULL, pk BIGINT NOT NULL, entity TEXT NOT NULL, PRIMARY KEY (tbl, pk))\(options)", [])
        try connection.execute("DELETE FROM \(rows)", [])
        try connection.execute("DELETE FROM \(unlinked)", [])

        let layout = try schema.layout(of: query.entity.name)
        var compiler = compiler
        let selection = try compiler.select({ layout in
            "\(sqlStringLiteral(layout.table)), \"t\".\"_pk\", \(layout.entitySQL(alias: "t")), 0"
        }, for: query.unbounded, ordered: false)
        try connection.execute("INSERT INTO \(rows) (tbl, pk, entity, round) \(selection)", compiler.arguments)
        var round: Int64 = 0
        while try cascade(from: round) { round += 1 }
        let kinds = try entitiesToDelete()
        try checkDenyRules(of: kinds)
        try unlinkNullified(from: kinds)

        var result = BatchWriteResult(entity: layout.entity)
        for row in try connection.rows("SELECT pk, entity, round FROM \(rows) ORDER BY tbl, pk", [.integer64, .string, .integer64]) {
            let (key, entity, found) = (try Self.integer(row[0]), try model.storedEntity(named: Self.text(row[1])), try Self.integer(row[2]))
            if found == 0 { result.matched.append(key, of: entity) } else { result.cascaded.append(key, of: entity) }
        }
        var tables: [String] = []
        for row in try connection.rows("SELECT tbl, pk, entity FROM \(unlinked) ORDER BY tbl, pk", [.string, .integer64, .string]) {
            let table = try Self.text(row[0])
            if tables.last != table { tables.append(table) }
            result.nullified.append(try Self.integer(row[1]), of: try model.storedEntity(named: Self.text(row[2])))
        }
        for table in tables {
            try connection.execute("UPDATE \(quoted(table)) SET \"_version\" = \"_version\" + 1 WHERE \"_pk\" IN (SELECT pk FROM \(unlinked) WHERE tbl = \(sqlStringLiteral(table)))", [])
        }
        // Deleting a row nulls the to-one columns and removes the join rows that point at it
        // (the schema's foreign-key actions).
        for table in Set(kinds.map(\.table)).sorted() {
            try connection.execute("DELETE FROM \(quoted(table)) WHERE \"_pk\" IN (SELECT pk FROM \(rows) WHERE tbl = \(sqlStringLiteral(table)))", [])
        }
        // An ordered list that lost objects is numbered again from 0, as a save of its order does.
        for join in schema.joinTables where join.isOrdered && !result.nullified.isEmpty {
            let table = quoted(join.name)
            try connection.execute("""
                UPDATE \(table) SET "position" = "r"."rank" FROM (SELECT "source", "target", \
                row_number() OVER (PARTITION BY "source" ORDER BY "position") - 1 AS "rank" FROM \(table) \
                WHERE "source" IN (SELECT pk FROM \(unlinked) WHERE tbl = \(sqlStringLiteral(join.sourceTable)))) AS "r" \
                WHERE \(table)."source" = "r"."source" AND \(table)."target" = "r"."target" AND \(table)."position" != "r"."rank"
                """, [])
        }
        try connection.execute("DELETE FROM \(rows)", [])
        try connection.execute("DELETE FROM \(unlinked)", [])
        return result
    }

    /// The entities (with their tables) that rows to delete belong to, in a stable order.
    private func entitiesToDelete(round: Int64? = nil) throws -> [(table: String, entity: Entity)] {
        let filter = round.map { " WHERE round = \($0)" } ?? ""
        return try connection.rows("SELECT DISTINCT tbl, entity FROM \(rows)\(filter) ORDER BY tbl, entity", [.string, .string]).map { row in
            (try Self.text(row[0]), try model.storedEntity(named: Self.text(row[1])))
        }
    }

    /// Adds the rows that the `cascade` relationships of the rows found in `round` reach (and
    /// are not in yet) as round `round + 1`; whether there were any.
    private func cascade(from round: Int64) throws -> Bool {
        var added = false
        for (table, entity) in try entitiesToDelete(round: round) {
            for relationship in entity.relationships where relationship.deleteRule == .cascade {
                let link = try links(of: relationship, from: entity, table: table, round: round)
                let written = try connection.execute("INSERT INTO \(rows) (tbl, pk, entity, round) SELECT \(sqlStringLiteral(link.destinationTable)), "
                    + "\(link.destination), \(link.destinationEntity), \(round + 1) \(link.from) ON CONFLICT DO NOTHING", [])
                added = added || written > 0
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
                    + " AND \(link.destination) NOT IN (SELECT pk FROM \(rows) WHERE tbl = \(sqlStringLiteral(link.destinationTable)))"
                    + " ORDER BY \(link.source), \(link.destination) LIMIT 1"
                guard let row = try connection.rows(sql, [.integer64, .integer64, .string]).first else { continue }
                throw DeniedDeleteError(objectID: ObjectID(entity: entity, primaryKey: try Self.integer(row[0])), relationship: relationship.name,
                                        blocking: ObjectID(entity: try model.storedEntity(named: Self.text(row[2])), primaryKey: try Self.integer(row[1])))
            }
        }
    }

    /// Notes the rows a `nullify` rule unlinks whose version a save through objects would
    /// raise: those that keep the inverse link in their own row, or in join rows they own.
    private func unlinkNullified(from kinds: [(table: String, entity: Entity)]) throws {
        for (table, entity) in kinds {
            for relationship in entity.relationships where try relationship.deleteRule == .nullify && schema.nullifyRaisesVersions(relationship, in: model) {
                let link = try links(of: relationship, from: entity, table: table, round: nil)
                try connection.execute("INSERT INTO \(unlinked) (tbl, pk, entity) SELECT DISTINCT \(sqlStringLiteral(link.destinationTable)), \(link.destination), \(link.destinationEntity) \(link.from)"
                    + " AND \(link.destination) NOT IN (SELECT pk FROM \(rows) WHERE tbl = \(sqlStringLiteral(link.destinationTable))) ON CONFLICT DO NOTHING", [])
            }
        }
    }

    /// A `FROM … WHERE …` clause listing the links of `relationship` held by the rows to delete
    /// of `entity` (those of one round, or all), with the SQL of the source row's key, and the
    /// destination row's key, table and entity.
    private func links(of relationship: Relationship, from entity: Entity, table: String, round: Int64?)
        throws -> (from: String, source: String, destination: String, destinationTable: String, destinationEntity: String) {
        guard let destinationEntity = model.entity(named: relationship.destination) else {
            throw StoreError(.unknownEntity, "relationship \(entity.name).\(relationship.name) leads to '\(relationship.destination)', which the model lacks")
        }
        let destination = try schema.layout(of: destinationEntity.name)
        let sources = "SELECT pk FROM \(rows) WHERE tbl = \(sqlStringLiteral(table)) AND entity = \(sqlStringLiteral(entity.name))"
            + (round.map { " AND round = \($0)" } ?? "")
        let d = "\"d\""
        let named = (destinationTable: destination.table, destinationEntity: destination.entitySQL(alias: "d"))
        switch try schema.storage(of: relationship.name, in: entity) {
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

    private static func integer(_ value: AttributeValue) throws -> Int64 {
        guard case .integer(let integer) = value else { throw StoreError(.corruptValue, "a batch delete read \(value) where it wrote a key") }
        return integer
    }

    private static func text(_ value: AttributeValue) throws -> String {
        guard case .string(let text) = value else { throw StoreError(.corruptValue, "a batch delete read \(value) where it wrote a name") }
        return text
    }
}

extension StoreSchema.EntityLayout {
    /// The SQL of a row's entity name: its `_entity` column (of the table as `alias`), or the
    /// table's one entity.
    func entitySQL(alias: String) -> String {
        hasEntityColumn ? "\(quoted(alias)).\"_entity\"" : sqlStringLiteral(table)
    }
}

extension Model {
    /// The entity of a row the store read, by the name in its `_entity` column or table.
    /// - Throws: ``StoreError`` `.corruptValue` when the model has no such entity.
    package func storedEntity(named name: String) throws -> Entity {
        guard let entity = entity(named: name) else {
            throw StoreError(.corruptValue, "the store holds a row of entity '\(name)', which the model lacks")
        }
        return entity
    }
}
