import TroveModel
import TroveStore

extension PostgresStore {
    /// The statements that create a new store's tables and indexes: those of ``SQLiteStore``
    /// (same tables, columns, keys and unique constraints) in PostgreSQL's types, with each text
    /// attribute's ``TextForm`` columns, the metadata table, and the one-row change counter.
    static func creationSQL(for schema: StoreSchema) -> [String] {
        tableSQL(for: schema) + indexSQL(for: schema)
    }

    /// The statements that create the tables, their sequences, the metadata table and the
    /// change counter: everything but ``indexSQL(for:)``.
    static func tableSQL(for schema: StoreSchema) -> [String] {
        var statements: [String] = []
        for table in schema.tables {
            var definitions = ["\"_pk\" bigint PRIMARY KEY", "\"_version\" bigint NOT NULL DEFAULT 1"]
            if table.hasEntityColumn { definitions.append("\"_entity\" text COLLATE \"C\" NOT NULL") }
            for column in table.columns {
                definitions.append("\(quoted(column.name)) \(PostgresValues.columnType(of: column.type))")
                guard TextForm.applies(to: column.type) else { continue }
                for form in TextForm.allCases {
                    definitions.append("\(quoted(form.column(of: column.name))) text COLLATE \"C\"")
                }
            }
            for fk in table.foreignKeys {
                definitions.append("\(quoted(fk.column)) bigint")
            }
            statements.append("CREATE TABLE \(quoted(table.name)) (\(definitions.joined(separator: ", ")))")
            // Keys come from a sequence per table, so that processes inserting at once never take the same.
            statements.append("CREATE SEQUENCE \(quoted(sequence(of: table.name)))")
        }
        for join in schema.joinTables {
            var definitions = [
                "\"source\" bigint NOT NULL REFERENCES \(quoted(join.sourceTable)) (\"_pk\") ON DELETE CASCADE",
                "\"target\" bigint NOT NULL REFERENCES \(quoted(join.destinationTable)) (\"_pk\") ON DELETE CASCADE",
            ]
            if join.isOrdered { definitions.append("\"position\" bigint NOT NULL") }
            definitions.append("PRIMARY KEY (\"source\", \"target\")")
            statements.append("CREATE TABLE \(quoted(join.name)) (\(definitions.joined(separator: ", ")))")
        }
        statements.append("CREATE TABLE \(quoted(metadataTable)) (\"key\" text COLLATE \"C\" PRIMARY KEY, \"value\" text NOT NULL)")
        statements.append("CREATE TABLE \(quoted(changesTable)) (\"counter\" bigint NOT NULL)")
        statements.append("INSERT INTO \(quoted(changesTable)) (\"counter\") VALUES (0)")
        return statements
    }

    /// The statements that create the indexes and foreign keys of the tables
    /// ``tableSQL(for:)`` makes: run after it, or after filling its tables (an index built
    /// over the rows, a key checked in one pass, cost less than row by row).
    static func indexSQL(for schema: StoreSchema) -> [String] {
        var statements: [String] = []
        for table in schema.tables {
            if table.hasEntityColumn {
                statements.append("CREATE INDEX \(quoted("_idx_\(table.name)__entity")) ON \(quoted(table.name)) (\"_entity\")")
            }
            for (i, constraint) in table.uniqueConstraints.enumerated() {
                var sql = "CREATE UNIQUE INDEX \(quoted("_unique_\(table.name)_\(i)")) ON \(quoted(table.name)) (\(constraint.columns.map(quoted).joined(separator: ", ")))"
                if let entities = constraint.entities {
                    sql += " WHERE \"_entity\" IN (\(entities.map(sqlStringLiteral).joined(separator: ", ")))"
                }
                statements.append(sql)
            }
            for fk in table.foreignKeys {
                statements.append("CREATE INDEX \(quoted("_idx_\(table.name)_\(fk.column)")) ON \(quoted(table.name)) (\(quoted(fk.column)))")
            }
        }
        // Foreign keys after every table exists; checked at commit, as SQLite's deferred ones.
        for table in schema.tables {
            for fk in table.foreignKeys {
                statements.append("""
                    ALTER TABLE \(quoted(table.name)) ADD FOREIGN KEY (\(quoted(fk.column))) REFERENCES \(quoted(fk.destinationTable)) ("_pk") \
                    ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED
                    """)
            }
        }
        for join in schema.joinTables {
            statements.append("CREATE INDEX \(quoted("_idx_\(join.name)_target")) ON \(quoted(join.name)) (\"target\")")
        }
        return statements
    }

    /// The sequence a table's primary keys come from.
    static func sequence(of table: String) -> String {
        "_seq_\(table)"
    }
}
