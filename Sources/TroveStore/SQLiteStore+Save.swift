import GRDB
import TroveModel

extension SQLiteStore {
    public func save(_ changes: ChangeSet) throws -> SaveResult {
        if changes.isEmpty { return SaveResult(permanentIDs: [:], versions: [:]) }
        return try SQLiteStore.mapErrors("saving") {
            try writer.writeWithoutTransaction { db in
                var result = SaveResult(permanentIDs: [:], versions: [:])
                try db.inTransaction(.immediate) {
                    result = try write(changes, in: db)
                    return .commit
                }
                return result
            }
        }
    }

    /// Writes a change set inside an open transaction: deletes, then updates, then inserts (so
    /// a deleted object's unique key is free for a new one in the same save).
    private func write(_ changes: ChangeSet, in db: Database) throws -> SaveResult {
        var conflicts: [ConflictError.Conflict] = []
        var versions: [ObjectID: Int64] = [:]

        for delete in changes.deletes {
            let layout = try schema.layout(of: delete.objectID.entityName)
            let sql = "DELETE FROM \(quoted(layout.table)) WHERE \(quoted("_pk")) = ? AND \(quoted("_version")) = ?"
            let changed = try RawStatement.with(db, sql: sql) { statement in
                try statement.bind([.integer(delete.objectID.primaryKey ?? 0), .integer(delete.expectedVersion)])
                return try statement.execute()
            }
            if changed == 0 {
                conflicts.append(try conflict(for: delete.objectID, expected: delete.expectedVersion, table: layout.table, in: db))
            }
        }

        for update in changes.updates where !update.changes.isEmpty {
            let layout = try schema.layout(of: update.objectID.entityName)
            let attributes = layout.entity.attributes
            let positions = update.changes.keys.sorted()
            let assignments = positions.map { "\(quoted(attributes[$0].name)) = ?" }.joined(separator: ", ")
            let sql = """
                UPDATE \(quoted(layout.table)) SET \(assignments), \(quoted("_version")) = \(quoted("_version")) + 1 \
                WHERE \(quoted("_pk")) = ? AND \(quoted("_version")) = ?
                """
            var values = positions.map { update.changes[$0] ?? .null }
            values.append(.integer(update.objectID.primaryKey ?? 0))
            values.append(.integer(update.expectedVersion))
            if try execute(sql, values, for: update.objectID, in: db) == 0 {
                conflicts.append(try conflict(for: update.objectID, expected: update.expectedVersion, table: layout.table, in: db))
            } else {
                versions[update.objectID] = update.expectedVersion + 1
            }
        }
        guard conflicts.isEmpty else { throw ConflictError(conflicts: conflicts) }

        var permanentIDs: [ObjectID: ObjectID] = [:]
        var nextKeys: [String: Int64] = [:]
        for insert in changes.inserts {
            let layout = try schema.layout(of: insert.objectID.entityName)
            let pk = try nextKey(for: layout.table, cache: &nextKeys, in: db)
            var columns = ["_pk"]
            var values: [AttributeValue] = [.integer(pk)]
            if layout.hasEntityColumn {
                columns.append("_entity")
                values.append(.string(layout.entity.name))
            }
            for (attribute, value) in zip(layout.entity.attributes, insert.values) {
                columns.append(attribute.name)
                values.append(value)
            }
            let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
            let sql = "INSERT INTO \(quoted(layout.table)) (\(columns.map(quoted).joined(separator: ", "))) VALUES (\(marks))"
            try execute(sql, values, for: insert.objectID, in: db)
            let permanent = ObjectID(entityName: insert.objectID.entityName, primaryKey: pk)
            permanentIDs[insert.objectID] = permanent
            versions[permanent] = 1
        }
        return SaveResult(permanentIDs: permanentIDs, versions: versions)
    }

    /// Runs one write statement, naming the object when a constraint fails; returns the
    /// number of rows changed.
    @discardableResult
    private func execute(_ sql: String, _ values: [AttributeValue], for id: ObjectID, in db: Database) throws -> Int {
        do {
            return try RawStatement.with(db, sql: sql) { statement in
                try statement.bind(values)
                return try statement.execute()
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            let detail = error.message ?? "constraint failed"
            throw StoreError(.constraintViolation,
                "saving \(id) broke a constraint of the store (\(detail)); another object has the same unique key — fetch and update that object instead of inserting a new one")
        }
    }

    /// The next primary key of a table, given before the row is written so that rows inserted
    /// together can refer to each other. Keys are never reused, even after deletes: the table's
    /// AUTOINCREMENT sequence, which SQLite advances past every key inserted, is the source.
    private func nextKey(for table: String, cache: inout [String: Int64], in db: Database) throws -> Int64 {
        let next: Int64
        if let cached = cache[table] {
            next = cached
        } else {
            next = try RawStatement.with(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?") { statement in
                try statement.bind(table, at: 1)
                return try statement.step() ? statement.int64(at: 0) : 0
            } + 1
        }
        cache[table] = next + 1
        return next
    }

    private func conflict(for id: ObjectID, expected: Int64, table: String, in db: Database) throws -> ConflictError.Conflict {
        let current = try RawStatement.with(db, sql: "SELECT \(quoted("_version")) FROM \(quoted(table)) WHERE \(quoted("_pk")) = ?") { statement in
            try statement.bind(id.primaryKey ?? 0, at: 1)
            return try statement.step() ? statement.int64(at: 0) : nil
        }
        return ConflictError.Conflict(objectID: id, expectedVersion: expected, storeVersion: current)
    }
}
