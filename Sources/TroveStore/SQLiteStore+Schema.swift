import GRDB
import TroveModel

extension SQLiteStore {
    /// The statements that create the store's tables and indexes for `schema`.
    static func creationSQL(for schema: StoreSchema) -> [String] {
        var statements: [String] = []
        for table in schema.tables {
            statements.append(createTableSQL(table, named: table.name))
            statements += indexSQL(of: table)
        }
        for join in schema.joinTables {
            statements.append(createTableSQL(join, named: join.name))
            statements += indexSQL(of: join)
        }
        statements.append("""
            CREATE TABLE \(quoted(metadataTable)) (\(quoted("key")) TEXT PRIMARY KEY NOT NULL, \
            \(quoted("value")) TEXT NOT NULL) STRICT, WITHOUT ROWID
            """)
        return statements
    }

    /// The `CREATE TABLE` of an entity table, under `name` (a migration builds it under another).
    static func createTableSQL(_ table: StoreSchema.Table, named name: String) -> String {
        var definitions = [
            "\(quoted("_pk")) INTEGER PRIMARY KEY AUTOINCREMENT",
            "\(quoted("_version")) INTEGER NOT NULL DEFAULT 1",
        ]
        if table.hasEntityColumn {
            definitions.append("\(quoted("_entity")) TEXT NOT NULL")
        }
        for column in table.columns {
            definitions.append("\(quoted(column.name)) \(ValueCoding.columnType(of: column.type))")
        }
        for fk in table.foreignKeys {
            definitions.append(foreignKeyDefinition(fk))
        }
        return "CREATE TABLE \(quoted(name)) (\(definitions.joined(separator: ", "))) STRICT"
    }

    /// A foreign-key column as its table (or `ALTER TABLE … ADD COLUMN`) declares it.
    static func foreignKeyDefinition(_ fk: StoreSchema.ForeignKey) -> String {
        "\(quoted(fk.column)) INTEGER REFERENCES \(quoted(fk.destinationTable))(\(quoted("_pk"))) ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED"
    }

    /// The indexes of an entity table: `_entity`, unique constraints, foreign keys.
    static func indexSQL(of table: StoreSchema.Table) -> [String] {
        var statements: [String] = []
        if table.hasEntityColumn {
            statements.append(
                "CREATE INDEX \(quoted("_idx_\(table.name)__entity")) ON \(quoted(table.name))(\(quoted("_entity")))")
        }
        for (i, constraint) in table.uniqueConstraints.enumerated() {
            let columns = constraint.columns.map(quoted).joined(separator: ", ")
            var sql = "CREATE UNIQUE INDEX \(quoted("_unique_\(table.name)_\(i)")) ON \(quoted(table.name))(\(columns))"
            if let entities = constraint.entities {
                sql += " WHERE \(quoted("_entity")) IN (\(entities.map(sqlStringLiteral).joined(separator: ", ")))"
            }
            statements.append(sql)
        }
        for fk in table.foreignKeys {
            statements.append(
                "CREATE INDEX \(quoted("_idx_\(table.name)_\(fk.column)")) ON \(quoted(table.name))(\(quoted(fk.column)))")
        }
        return statements
    }

    /// The `CREATE TABLE` of a join table, under `name`.
    static func createTableSQL(_ join: StoreSchema.JoinTable, named name: String) -> String {
        var definitions = [
            "\(quoted("source")) INTEGER NOT NULL REFERENCES \(quoted(join.sourceTable))(\(quoted("_pk"))) ON DELETE CASCADE",
            "\(quoted("target")) INTEGER NOT NULL REFERENCES \(quoted(join.destinationTable))(\(quoted("_pk"))) ON DELETE CASCADE",
        ]
        if join.isOrdered {
            definitions.append("\(quoted("position")) INTEGER NOT NULL")
        }
        definitions.append("PRIMARY KEY (\(quoted("source")), \(quoted("target")))")
        return "CREATE TABLE \(quoted(name)) (\(definitions.joined(separator: ", "))) STRICT, WITHOUT ROWID"
    }

    /// The index of a join table on its `target` column.
    static func indexSQL(of join: StoreSchema.JoinTable) -> [String] {
        ["CREATE INDEX \(quoted("_idx_\(join.name)_target")) ON \(quoted(join.name))(\(quoted("target")))"]
    }
}

/// A string as an SQL literal, for the fixed names Trove writes into DDL (never for user values).
package func sqlStringLiteral(_ s: String) -> String {
    "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
}
