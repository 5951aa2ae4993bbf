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
        schema.tables.flatMap(createSQL(of:)) + schema.joinTables.map(createSQL(of:)) + [
            "CREATE TABLE \(quoted(metadataTable)) (\"key\" text COLLATE \"C\" PRIMARY KEY, \"value\" text NOT NULL)",
            "CREATE TABLE \(quoted(changesTable)) (\"counter\" bigint NOT NULL)",
            "INSERT INTO \(quoted(changesTable)) (\"counter\") VALUES (0)",
        ]
    }

    /// The statements that create the indexes and foreign keys of the tables
    /// ``tableSQL(for:)`` makes: run after it, or after filling its tables (an index built
    /// over the rows, a key checked in one pass, cost less than row by row).
    static func indexSQL(for schema: StoreSchema) -> [String] {
        // Foreign keys after every table exists.
        schema.tables.flatMap(indexSQL(of:))
            + schema.tables.flatMap { table in table.foreignKeys.map { foreignKeySQL($0, of: table.name) } }
            + schema.joinTables.map(indexSQL(of:))
    }

    /// `CREATE TABLE` of an entity table and `CREATE SEQUENCE` of its keys.
    static func createSQL(of table: StoreSchema.Table) -> [String] {
        var definitions = ["\"_pk\" bigint PRIMARY KEY", "\"_version\" bigint NOT NULL DEFAULT 1"]
        if table.hasEntityColumn { definitions.append("\"_entity\" text COLLATE \"C\" NOT NULL") }
        definitions += table.columns.flatMap(columnSQL)
        definitions += table.foreignKeys.map { "\(quoted($0.column)) bigint" }
        // Keys come from a sequence per table, so that processes inserting at once never take the same.
        return ["CREATE TABLE \(quoted(table.name)) (\(definitions.joined(separator: ", ")))",
                "CREATE SEQUENCE \(quoted(sequence(of: table.name)))"]
    }

    /// The definitions of an attribute's column and of its ``TextForm`` columns.
    static func columnSQL(_ column: StoreSchema.Column) -> [String] {
        let forms = TextForm.applies(to: column.type) ? TextForm.allCases.map { "\(quoted($0.column(of: column.name))) text COLLATE \"C\"" } : []
        return ["\(quoted(column.name)) \(PostgresValues.columnType(of: column.type))"] + forms
    }

    /// `CREATE TABLE` of a join table.
    static func createSQL(of join: StoreSchema.JoinTable) -> String {
        var definitions = [
            "\"source\" bigint NOT NULL REFERENCES \(quoted(join.sourceTable)) (\"_pk\") ON DELETE CASCADE",
            "\"target\" bigint NOT NULL REFERENCES \(quoted(join.destinationTable)) (\"_pk\") ON DELETE CASCADE",
        ]
        if join.isOrdered { definitions.append("\"position\" bigint NOT NULL") }
        definitions.append("PRIMARY KEY (\"source\", \"target\")")
        return "CREATE TABLE \(quoted(join.name)) (\(definitions.joined(separator: ", ")))"
    }

    /// The indexes of an entity table: `_entity`, unique keys, foreign-key columns.
    static func indexSQL(of table: StoreSchema.Table) -> [String] {
        var statements: [String] = []
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
        return statements
    }

    /// The constraint of a foreign-key column of `table`: checked at commit, as SQLite's
    /// deferred ones.
    static func foreignKeySQL(_ fk: StoreSchema.ForeignKey, of table: String) -> String {
        """
        ALTER TABLE \(quoted(table)) ADD FOREIGN KEY (\(quoted(fk.column))) REFERENCES \(quoted(fk.destinationTable)) ("_pk") \
        ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED
        """
    }

    /// The index of a join table's `target` column (its primary key serves `source`).
    static func indexSQL(of join: StoreSchema.JoinTable) -> String {
        "CREATE INDEX \(quoted("_idx_\(join.name)_target")) ON \(quoted(join.name)) (\"target\")"
    }

    /// The sequence a table's primary keys come from.
    static func sequence(of table: String) -> String {
        "_seq_\(table)"
    }
}
