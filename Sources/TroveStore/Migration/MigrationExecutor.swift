import Foundation
import GRDB
import TroveModel

/// A value a migration writes into a column after the tables have their new shape: a default
/// for rows that had no value, or nil for rows whose entity no longer has the attribute.
struct MigrationValueUpdate {
    let table: String
    let column: String
    let value: AttributeValue
    /// The (new) entity names whose rows change; `nil` for every row of the table.
    let entities: [String]?
    /// Whether only rows where the column is nil change.
    let onlyNil: Bool

    var sql: String {
        var conditions: [String] = []
        if let entities { conditions.append("\(quoted("_entity")) IN (\(entities.map(sqlStringLiteral).joined(separator: ", ")))") }
        conditions.append(onlyNil ? "\(quoted(column)) IS NULL" : "\(quoted(column)) IS NOT NULL")
        return "UPDATE \(quoted(table)) SET \(quoted(column)) = ? WHERE " + conditions.joined(separator: " AND ")
    }
}

/// Runs migrations on a store's writer connection, in one transaction: SQLite's DDL is
/// transactional, so a failure at any statement leaves the store as it was.
enum MigrationExecutor {
    /// A test hook: the migration throws after this many statements, as a failure half way would.
    @TaskLocal package static var failingAfterStatements: Int?
    /// Rows of a rebuilt table copied a statement (by ranges of `_pk`), between progress reports.
    static let rowsPerCopy: Int64 = 20_000

    /// Calls `body` (which reshapes the tables with the ``Runner`` it is given), checks the
    /// foreign keys, then calls `finish` (the metadata) and commits; any error rolls everything
    /// back. Foreign keys are off meanwhile, as SQLite's procedure for table changes requires (a
    /// dropped table would otherwise clear the links to its rows).
    static func run(in db: Database, progress: MigrationProgress.Handler?,
                    _ body: (inout Runner) throws -> Void, finish: (Database) throws -> Void) throws {
        try db.execute(sql: "PRAGMA foreign_keys = OFF")
        do {
            try db.inTransaction(.immediate) {
                var runner = Runner(db: db, limit: failingAfterStatements, progress: progress)
                try body(&runner)
                let broken = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
                guard broken.isEmpty else {
                    let first = broken.prefix(3).map { "\($0[0] as String? ?? "?") row \($0[1] as Int64? ?? 0) → \($0[2] as String? ?? "?")" }
                    throw StoreError(.constraintViolation, "the migrated store would hold \(broken.count) link(s) to missing rows ("
                        + first.joined(separator: "; ") + "); nothing was changed")
                }
                try finish(db)
                runner.finish()
                KillPoint.migrationBeforeCommit.reached()
                return .commit
            }
        } catch {
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            throw error
        }
        KillPoint.migrationAfterCommit.reached()
        try db.execute(sql: "PRAGMA foreign_keys = ON")
    }

    /// Runs the statements of a migration, counting them for the test hooks and the rows they
    /// write for its progress.
    struct Runner {
        let db: Database
        let limit: Int?
        var executed = 0
        var meter: MigrationMeter?

        init(db: Database, limit: Int?, progress: MigrationProgress.Handler?) {
            self.db = db
            self.limit = limit
            self.meter = progress.map { MigrationMeter(report: $0) }
        }

        mutating func count() throws {
            executed += 1
            KillPoint.migrationStatement.reached()
            if let limit, executed > limit {
                throw StoreError(.sqlite, "migration stopped by a test after \(limit) statements")
            }
        }

        mutating func execute(_ sql: String) throws {
            try count()
            try db.execute(sql: sql)
        }

        /// Runs `sql`, which writes rows of `table`, and counts them in the progress.
        mutating func execute(_ sql: String, writing table: String) throws {
            try execute(sql)
            let rows = db.changesCount
            meter?.wrote(rows, in: table)
        }

        /// Starts stage `index` (0-based) of `count`, which rewrites `rows` rows.
        mutating func begin(stage index: Int, of count: Int, rows: Int) {
            meter?.begin(stage: index, of: count, rows: rows)
        }

        mutating func finish() {
            meter?.finish()
        }

        /// Reshapes the tables as `layout` says, then writes `updates`.
        mutating func reshape(_ layout: MigrationLayout, updates: [MigrationValueUpdate]) throws {
            try reshapeTables(layout)
            for update in updates {
                try count()
                let rows = try RawStatement.with(db, sql: update.sql) { statement in
                    try statement.bind([update.value])
                    return try statement.execute()
                }
                meter?.wrote(rows, in: update.table)
            }
            if layout.deletesRows { try clearDanglingLinks(layout) }
        }

        private mutating func reshapeTables(_ layout: MigrationLayout) throws {
            // 1. New and rebuilt tables under their building names, rows copied with their _pk.
            for work in layout.tables {
                guard let old = work.oldTable else {
                    try execute(SQLiteStore.createTableSQL(work.table, named: work.buildName))
                    continue
                }
                if work.rebuild {
                    try execute(SQLiteStore.createTableSQL(work.table, named: work.buildName))
                    try copyRows(work, from: old)
                } else {
                    for column in work.table.columns where work.sources[column.name] == nil {
                        try execute("ALTER TABLE \(quoted(work.table.name)) ADD COLUMN \(quoted(column.name)) \(ValueCoding.columnType(of: column.type))")
                    }
                    for fk in work.table.foreignKeys where work.sources[fk.column] == nil {
                        try execute("ALTER TABLE \(quoted(work.table.name)) ADD COLUMN \(SQLiteStore.foreignKeyDefinition(fk))")
                    }
                }
            }
            for join in layout.joins where !join.kept {
                try execute(SQLiteStore.createTableSQL(join.join, named: join.buildName))
                if let links = join.links {
                    let position = join.join.isOrdered ? ", \(quoted("position"))" : ""
                    let value = join.join.isOrdered ? ", ROW_NUMBER() OVER (PARTITION BY src ORDER BY pos, dst) - 1" : ""
                    try execute("INSERT INTO \(quoted(join.buildName)) (\(quoted("source")), \(quoted("target"))\(position)) "
                        + "SELECT src, dst\(value) FROM (\(links)) WHERE true ON CONFLICT DO NOTHING", writing: join.join.name)
                }
            }
            // 2. Links that change storage, read from the old tables while they exist.
            for fill in layout.linkFills {
                try execute("""
                    UPDATE \(quoted(fill.table)) SET \(quoted(fill.column)) = (SELECT dst FROM (\(fill.links)) AS l \
                    WHERE l.src = \(quoted(fill.table)).\(quoted("_pk")) LIMIT 1) WHERE \(quoted("_pk")) IN (SELECT src FROM (\(fill.links)))
                    """)
            }
            // 3. Old tables out, new ones under their names; AUTOINCREMENT sequences kept, so a
            // deleted object's _pk is never given again.
            var sequences: [String: Int64] = [:]
            for work in layout.tables where work.rebuild {
                if let old = work.oldTable, let seq = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [old.name]) {
                    sequences[work.table.name] = seq
                }
            }
            for table in layout.droppedTables {
                try execute("DROP TABLE \(quoted(table))")
            }
            for (build, name) in layout.tables.map({ ($0.buildName, $0.table.name) }) + layout.joins.map({ ($0.buildName, $0.join.name) })
            where build != name {
                try execute("ALTER TABLE \(quoted(build)) RENAME TO \(quoted(name))")
            }
            for (table, seq) in sequences.sorted(by: { $0.key < $1.key }) {
                try count()
                try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) SELECT ?, 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)",
                               arguments: [table, table])
                try db.execute(sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", arguments: [seq, table])
            }
            // 4. Columns renamed in place, then indexes made to match the new layout.
            for work in layout.tables where work.oldTable != nil && !work.rebuild {
                for (new, old) in work.sources.sorted(by: { $0.key < $1.key }) where new != old {
                    try execute("ALTER TABLE \(quoted(work.table.name)) RENAME COLUMN \(quoted(old)) TO \(quoted(new))")
                }
            }
            for work in layout.tables {
                try matchIndexes(of: work.table.name, to: SQLiteStore.indexSQL(of: work.table))
            }
            for join in layout.joins {
                try matchIndexes(of: join.join.name, to: SQLiteStore.indexSQL(of: join.join))
            }
        }

        /// Copies the rows of `old` into the rebuilt table, `rowsPerCopy` keys a statement.
        private mutating func copyRows(_ work: MigrationLayout.TableWork, from old: StoreSchema.Table) throws {
            let range = try Row.fetchOne(db, sql: "SELECT min(\(quoted("_pk"))), max(\(quoted("_pk"))) FROM \(quoted(old.name))")
            guard let range, let low = range[0] as Int64?, let high = range[1] as Int64? else { return }
            let sql = copySQL(work, from: old)
            var start = low
            while start <= high {
                let end = start > high - Self.rowsPerCopyLessOne ? high : start + Self.rowsPerCopyLessOne
                try execute("\(sql) \(work.keptEntities == nil ? "WHERE" : "AND") \(quoted("_pk")) BETWEEN \(start) AND \(end)", writing: work.table.name)
                if end == high { break }
                start = end + 1
            }
        }

        private static let rowsPerCopyLessOne = MigrationExecutor.rowsPerCopy - 1

        /// `INSERT INTO new SELECT … FROM old`: every kept row, its `_pk` and `_version` as they
        /// were, each column from its source (an integer widened to REAL or decimal TEXT by CAST).
        private func copySQL(_ work: MigrationLayout.TableWork, from old: StoreSchema.Table) -> String {
            var columns = [quoted("_pk"), quoted("_version")]
            var values = columns
            if let entity = work.entityExpression {
                columns.append(quoted("_entity"))
                values.append(entity)
            }
            let oldTypes = Dictionary(old.columns.map { ($0.name, ValueCoding.columnType(of: $0.type)) }, uniquingKeysWith: { a, _ in a })
            for column in work.table.columns {
                columns.append(quoted(column.name))
                let type = ValueCoding.columnType(of: column.type)
                values.append(work.sources[column.name].map { source in
                    oldTypes[source] == type ? quoted(source) : "CAST(\(quoted(source)) AS \(type))"
                } ?? "NULL")
            }
            for fk in work.table.foreignKeys {
                columns.append(quoted(fk.column))
                values.append(work.sources[fk.column].map(quoted) ?? "NULL")
            }
            var sql = "INSERT INTO \(quoted(work.buildName)) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(quoted(old.name))"
            if let kept = work.keptEntities {
                sql += " WHERE \(quoted("_entity")) IN (\(kept.map(sqlStringLiteral).joined(separator: ", ")))"
            }
            return sql
        }

        /// Drops the Trove indexes of `table` that `wanted` does not list as they are, and creates
        /// the ones missing.
        private mutating func matchIndexes(of table: String, to wanted: [String]) throws {
            let existing = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                                            arguments: [table])
            var present: Set<String> = []
            for row in existing {
                let name: String = row[0], sql: String = row[1]
                if wanted.contains(sql) { present.insert(sql) } else { try execute("DROP INDEX \(quoted(name))") }
            }
            for sql in wanted where !present.contains(sql) {
                try execute(sql)
            }
        }

        /// Clears links to rows the migration deleted (entities removed from a hierarchy).
        mutating func clearDanglingLinks(_ layout: MigrationLayout) throws {
            for work in layout.tables {
                for fk in work.table.foreignKeys {
                    try execute("""
                        UPDATE \(quoted(work.table.name)) SET \(quoted(fk.column)) = NULL WHERE \(quoted(fk.column)) IS NOT NULL \
                        AND \(quoted(fk.column)) NOT IN (SELECT \(quoted("_pk")) FROM \(quoted(fk.destinationTable)))
                        """)
                }
            }
            for join in layout.joins {
                try execute("""
                    DELETE FROM \(quoted(join.join.name)) WHERE \(quoted("source")) NOT IN (SELECT \(quoted("_pk")) FROM \(quoted(join.join.sourceTable))) \
                    OR \(quoted("target")) NOT IN (SELECT \(quoted("_pk")) FROM \(quoted(join.join.destinationTable)))
                    """)
            }
        }
    }
}
