import GRDB
import GRDBSQLite
package import TroveModel

/// A table of a store as its rows move between engines, value by value: how another store
/// migrates through SQLite's engine (a PostgreSQL store copies itself into an SQLite file, has
/// it migrated, and takes its tables back).
package struct TransferTable: Sendable {
    /// A column moved, and whether it is an attribute's (which may keep text forms).
    package struct Column: Sendable {
        package let name: String
        package let type: AttributeType
        package let isAttribute: Bool
    }

    package let name: String
    /// An entity table's `_pk`, `_version`, `_entity`, attributes and foreign keys; a join
    /// table's `source`, `target` and `position`.
    package let columns: [Column]
}

extension StoreSchema {
    /// Every table keeping objects: the entity tables, then the join tables (whose rows need
    /// theirs: their foreign keys are checked at once, not at commit).
    package var transferTables: [TransferTable] {
        let key = { (name: String) in TransferTable.Column(name: name, type: .integer64, isAttribute: false) }
        let entityTables = tables.map { table in
            var columns = [key("_pk"), key("_version")]
            if table.hasEntityColumn { columns.append(TransferTable.Column(name: "_entity", type: .string, isAttribute: false)) }
            columns += table.columns.map { TransferTable.Column(name: $0.name, type: $0.type, isAttribute: true) }
            columns += table.foreignKeys.map { key($0.column) }
            return TransferTable(name: table.name, columns: columns)
        }
        return entityTables + joinTables.map { join in
            TransferTable(name: join.name, columns: [key("source"), key("target")] + (join.isOrdered ? [key("position")] : []))
        }
    }
}

extension SQLiteStore {
    /// Calls `body` with the rows of `table`, at most `chunk` at a time, all read in one
    /// transaction.
    /// - Throws: ``StoreError/Code/corruptValue`` for a value its column's type cannot hold;
    ///   what `body` throws.
    package func readRows(of table: TransferTable, chunk: Int, _ body: ([[AttributeValue]]) throws -> Void) throws {
        let sql = "SELECT \(table.columns.map { quoted($0.name) }.joined(separator: ", ")) FROM \(quoted(table.name))"
        try SQLiteStore.mapErrors("reading the table \(table.name) of \(url?.path ?? "an in-memory store")") {
            try writer.read { db in
                try RawStatement.with(db, sql: sql) { statement in
                    var rows: [[AttributeValue]] = []
                    while try statement.step() {
                        var row: [AttributeValue] = []
                        row.reserveCapacity(table.columns.count)
                        for (index, column) in table.columns.enumerated() {
                            guard let value = ValueCoding.read(statement.handle, column: Int32(index), as: column.type) else {
                                throw StoreError(.corruptValue, "the table \(table.name) holds \(ValueCoding.describeColumn(statement.handle, Int32(index)))"
                                    + " in its column \(column.name), which is of type \(column.type.rawValue); fix or delete that row")
                            }
                            row.append(value)
                        }
                        rows.append(row)
                        if rows.count == chunk {
                            try body(rows)
                            rows.removeAll(keepingCapacity: true)
                        }
                    }
                    if !rows.isEmpty { try body(rows) }
                }
            }
        }
    }

    /// Inserts `rows` (values in `table`'s column order) in one transaction.
    package func appendRows(_ rows: [[AttributeValue]], to table: TransferTable) throws {
        let sql = "INSERT INTO \(quoted(table.name)) (\(table.columns.map { quoted($0.name) }.joined(separator: ", ")))"
            + " VALUES (\(placeholders(table.columns.count)))"
        try SQLiteStore.mapErrors("copying rows into the table \(table.name) of \(url?.path ?? "an in-memory store")") {
            try writeLocked("copying rows into \(table.name)") { db in
                try db.inTransaction {
                    let handle = try db.cachedStatement(sql: sql).sqliteStatement
                    for row in rows {
                        try RawStatement.with(handle, of: db, sql: sql) { statement in
                            try statement.bind(row)
                            try statement.execute()
                        }
                    }
                    return .commit
                }
            }
        }
    }

    /// The last primary key each table has given (SQLite's `sqlite_sequence`), by table: keys
    /// are never given twice, not even those of deleted rows.
    package func lastKeys() throws -> [String: Int64] {
        try SQLiteStore.mapErrors("reading the last keys of \(url?.path ?? "an in-memory store")") {
            try writer.read { db in
                guard try db.tableExists("sqlite_sequence") else { return [:] }
                let rows = try Row.fetchAll(db, sql: "SELECT name, seq FROM sqlite_sequence")
                return Dictionary(rows.map { ($0[0] as String, $0[1] as Int64) }, uniquingKeysWith: max)
            }
        }
    }

    /// Raises the last key of each table to the one given (see ``lastKeys()``), and replaces the
    /// metadata with `metadata`, but for this store's format version.
    package func restore(lastKeys: [String: Int64], metadata: [String: String]) throws {
        try SQLiteStore.mapErrors("writing the keys and metadata of \(url?.path ?? "an in-memory store")") {
            try writeLocked("writing keys and metadata") { db in
                try db.inTransaction {
                    for (table, key) in lastKeys.sorted(by: { $0.key < $1.key }) {
                        try db.execute(sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", arguments: [key, table])
                        if db.changesCount == 0 {
                            try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", arguments: [table, key])
                        }
                    }
                    var values = metadata
                    values["trove.formatVersion"] = String(SQLiteStore.formatVersion)
                    try db.execute(sql: "DELETE FROM \(quoted(SQLiteStore.metadataTable))")
                    try SQLiteStore.writeMetadata(values, in: db)
                    return .commit
                }
            }
        }
    }
}
