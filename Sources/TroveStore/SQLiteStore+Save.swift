import GRDB
import GRDBSQLite
import TroveModel

extension SQLiteStore {
    public func save(_ changes: ChangeSet) throws -> SaveResult {
        if changes.isEmpty { return SaveResult(permanentIDs: [:], versions: [:]) }
        return try SQLiteStore.mapErrors("saving") {
            try writeLocked("saving") { db in
                // Under the write lock no other writer can commit between the two tokens.
                let before = changeTokenIfReadable()
                var result = SaveResult(permanentIDs: [:], versions: [:])
                try db.inTransaction(.immediate) {
                    if let migrated = try migratedSinceOpening(db) { throw migrated }
                    var writer = SaveWriter(store: self, db: db)
                    result = try writer.write(changes)
                    KillPoint.saveBeforeCommit.reached()
                    return .commit
                }
                KillPoint.saveAfterCommit.reached()
                commitCount.add(1, ordering: .releasing)
                return SaveResult(permanentIDs: result.permanentIDs, versions: result.versions,
                                  changeTokenBefore: before, changeTokenAfter: changeTokenIfReadable())
            }
        }
    }
}

/// The INSERT of one entity's rows, built once: `_pk`, [`_entity`], every stored attribute (not
/// transient or derived ones), then the foreign keys of its to-one relationships kept in the row.
struct InsertPlan: Sendable {
    /// The INSERT of one row, and of `rowsPerStatement` rows (a long run of inserts is written
    /// that many rows a statement: each statement's own work — its start, its end, the
    /// AUTOINCREMENT sequence's read and write — is then shared by them all).
    let sql: String
    let manyRowsSQL: String
    let rowsPerStatement: Int
    let hasEntityColumn: Bool
    /// The number of attributes (an insert has a value for each).
    let attributeCount: Int
    /// The positions of the stored attributes, whose values follow `_pk` [and `_entity`].
    let storedAttributes: [Int]
    /// The relationship positions whose keys follow the attributes, in order.
    let foreignKeys: [Int]

    init(layout: StoreSchema.EntityLayout, schema: StoreSchema) {
        var columns = ["_pk"]
        if layout.hasEntityColumn { columns.append("_entity") }
        storedAttributes = layout.entity.attributes.indices.filter { layout.entity.attributes[$0].isStored }
        columns += storedAttributes.map { layout.entity.attributes[$0].name }
        var foreignKeys: [Int] = []
        for (index, relationship) in layout.entity.relationships.enumerated() {
            if case .foreignKey(let column)? = try? schema.storage(of: relationship.name, in: layout.entity) {
                columns.append(column)
                foreignKeys.append(index)
            }
        }
        let head = "INSERT INTO \(quoted(layout.table)) (\(columns.map(quoted).joined(separator: ", "))) VALUES "
        let row = "(\(placeholders(columns.count)))"
        sql = head + row
        // 64 rows (measured: more gain nothing), well under SQLite's limit of parameters.
        rowsPerStatement = max(1, min(64, 30_000 / columns.count))
        manyRowsSQL = head + String(repeating: row + ", ", count: rowsPerStatement - 1) + row
        hasEntityColumn = layout.hasEntityColumn
        attributeCount = layout.entity.attributes.count
        self.foreignKeys = foreignKeys
    }
}

/// What an update changes: its entity, attributes and links. Updates of one shape run the
/// same statement.
private struct UpdateShape: Equatable {
    let entity: String
    /// Attribute positions, in order.
    let attributes: [Int]
    /// The positions of the to-one and to-many links it changes, in its order.
    let toOne: [Int]
    let toMany: [Int]

    init(_ update: ChangeSet.Update) {
        entity = update.objectID.entityName
        attributes = update.changes.keys.sorted()
        var toOne: [Int] = []
        var toMany: [Int] = []
        for change in update.relationships {
            switch change {
            case .toOne(let index, _): toOne.append(index)
            case .toMany(let index, _, _, _): toMany.append(index)
            }
        }
        self.toOne = toOne
        self.toMany = toMany
    }
}

/// How to write updates of one shape: the UPDATE of the columns it sets and bumps `_version`
/// (for the row of a `_pk` at an expected `_version`), or none when the row holds nothing it
/// changes (its links live in other rows: join tables, the other side's foreign key; or only
/// transient attributes changed).
private struct UpdatePlan {
    let table: String
    /// The positions of the stored attributes the shape changes, whose values the statement binds.
    let attributes: [Int]
    /// The UPDATE and its statement, prepared on the save's connection; `nil` when the row holds
    /// nothing the shape changes.
    let statement: (sql: String, handle: SQLiteStatement)?
    /// The to-one links kept in the row's own foreign-key columns, whose keys the statement binds.
    let foreignKeys: Set<Int>

    init(_ shape: UpdateShape, schema: StoreSchema, db: Database) throws {
        let layout = try schema.layout(of: shape.entity)
        let entity = layout.entity
        table = layout.table
        attributes = shape.attributes.filter { entity.attributes[$0].isStored }
        var columns = attributes.map { entity.attributes[$0].name }
        var foreignKeys: Set<Int> = []
        for index in shape.toOne {
            if case .foreignKey(let column) = try schema.storage(of: entity.relationships[index].name, in: entity) {
                columns.append(column)
                foreignKeys.insert(index)
            }
        }
        self.foreignKeys = foreignKeys
        // A to-many change this side keeps in a join table writes join rows: the row itself is
        // written too, so that its version moves.
        let keepsJoinRows = try shape.toMany.contains { index in
            if case .joinTable(_, true) = try schema.storage(of: entity.relationships[index].name, in: entity) { true } else { false }
        }
        guard !columns.isEmpty || keepsJoinRows else {
            statement = nil
            return
        }
        let assignments = columns.map { "\(quoted($0)) = ?" } + ["\"_version\" = \"_version\" + 1"]
        let sql = "UPDATE \(quoted(table)) SET \(assignments.joined(separator: ", ")) WHERE \"_pk\" = ? AND \"_version\" = ?"
        statement = (sql, try db.cachedStatement(sql: sql).sqliteStatement)
    }
}

/// Writes one change set inside an open transaction.
///
/// Order: primary keys for new rows are taken first (so rows saved together can refer to each
/// other); then deletes (freeing unique keys for new rows), updates, inserts, and last the join
/// tables (whose references are checked at once, unlike the deferred foreign-key columns), then
/// the metadata.
private struct SaveWriter {
    let store: SQLiteStore
    let db: Database
    var permanentIDs: [ObjectID: ObjectID] = [:]
    var versions: [ObjectID: Int64] = [:]
    /// The primary key taken for each insert, in the change set's order.
    private var insertKeys: [Int64] = []

    init(store: SQLiteStore, db: Database) {
        self.store = store
        self.db = db
    }

    mutating func write(_ changes: ChangeSet) throws -> SaveResult {
        // A save writes a few tables: their next keys are found by a linear search, cheaper
        // than hashing a table's name for every insert.
        var nextKeys: [(table: String, key: Int64)] = []
        permanentIDs.reserveCapacity(changes.inserts.count)
        insertKeys.reserveCapacity(changes.inserts.count)
        versions.reserveCapacity(changes.updates.count)
        for insert in changes.inserts {
            // The table is the root entity's (one table per hierarchy).
            let pk = try nextKey(for: insert.objectID.rootEntityName, cache: &nextKeys)
            insertKeys.append(pk)
            permanentIDs[insert.objectID] = insert.objectID.saved(as: pk)
        }

        var conflicts: [ConflictError.Conflict] = []
        for delete in changes.deletes {
            let layout = try store.schema.layout(of: delete.objectID.entityName)
            let sql = "DELETE FROM \(quoted(layout.table)) WHERE \"_pk\" = ? AND \"_version\" = ?"
            if try execute(sql, [.integer(try key(of: delete.objectID)), .integer(delete.expectedVersion)], for: delete.objectID) == 0 {
                conflicts.append(try conflict(for: delete.objectID, expected: delete.expectedVersion, table: layout.table))
            }
        }
        // Updates of one shape (entity, attributes, links) share their plan, made once. A save
        // has a few shapes: found by comparing, cheaper than hashing each update's shape.
        var plans: [(shape: UpdateShape, plan: UpdatePlan)] = []
        for update in changes.updates {
            let shape = UpdateShape(update)
            let plan: UpdatePlan
            if let at = plans.firstIndex(where: { $0.shape == shape }) {
                plan = plans[at].plan
            } else {
                plan = try UpdatePlan(shape, schema: store.schema, db: db)
                plans.append((shape, plan))
            }
            guard let (sql, handle) = plan.statement else {
                // Nothing this row holds changed (the links live in other rows): no write.
                versions[update.objectID] = update.expectedVersion
                continue
            }
            // Sized once: the changed values, the foreign keys, then `_pk` and `_version`.
            var values: [AttributeValue] = []
            values.reserveCapacity(plan.attributes.count + plan.foreignKeys.count + 2)
            for position in plan.attributes { values.append(update.changes[position] ?? .null) }
            for case .toOne(let index, let link) in update.relationships where plan.foreignKeys.contains(index) {
                values.append(try link.objectID.map { .integer(try key(of: $0)) } ?? .null)
            }
            values.append(.integer(try key(of: update.objectID)))
            values.append(.integer(update.expectedVersion))
            if try execute(sql, values, for: update.objectID, prepared: handle) == 0 {
                conflicts.append(try conflict(for: update.objectID, expected: update.expectedVersion, table: plan.table))
            } else {
                versions[update.objectID] = update.expectedVersion + 1
            }
        }
        guard conflicts.isEmpty else { throw ConflictError(conflicts: conflicts) }

        // Inserts are written entity by entity (in their order within each, so keys are taken
        // in that order), many rows a statement: the foreign keys between them are checked at
        // commit. Runs are of positions in the change set: its inserts are not copied.
        let inserts = changes.inserts
        var runs: [(name: String, rows: [Int])] = []
        for row in inserts.indices {
            let name = inserts[row].objectID.entityName
            if let at = runs.firstIndex(where: { $0.name == name }) { runs[at].rows.append(row) } else { runs.append((name, [row])) }
        }
        for run in runs { try insert(inserts, run.rows[...], run.name) }

        for row in inserts.indices { try writeJoinRows(inserts[row].relationships, of: inserts[row].objectID) }
        for row in changes.updates.indices { try writeJoinRows(changes.updates[row].relationships, of: changes.updates[row].objectID) }
        try SQLiteStore.writeMetadataChanges(changes.metadata, in: db)
        return SaveResult(permanentIDs: permanentIDs, versions: versions)
    }

    /// Inserts rows of one entity: `rowsPerStatement` rows a statement, the rest one
    /// by one. A statement that breaks a constraint wrote nothing; its rows are then inserted one
    /// by one, so that the error names the object at fault.
    private mutating func insert(_ inserts: [ChangeSet.Insert], _ run: ArraySlice<Int>, _ entityName: String) throws {
        guard let plan = store.insertPlans[entityName] else { throw StoreError(.unknownEntity, "the model has no entity '\(entityName)'") }
        var rest = run
        if rest.count >= plan.rowsPerStatement {
            let statement = try db.cachedStatement(sql: plan.manyRowsSQL).sqliteStatement
            while rest.count >= plan.rowsPerStatement {
                let rows = rest.prefix(plan.rowsPerStatement)
                do {
                    try insertRows(inserts, rows, plan, statement, sql: plan.manyRowsSQL)
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                    try insertOneByOne(inserts, rows, plan)
                }
                rest = rest.dropFirst(plan.rowsPerStatement)
            }
        }
        try insertOneByOne(inserts, rest, plan)
    }

    private mutating func insertOneByOne(_ inserts: [ChangeSet.Insert], _ rows: ArraySlice<Int>, _ plan: InsertPlan) throws {
        guard !rows.isEmpty else { return }
        let statement = try db.cachedStatement(sql: plan.sql).sqliteStatement
        for index in rows.indices {
            try namingConstraints(inserts[rows[index]].objectID) { try insertRows(inserts, rows[index...index], plan, statement, sql: plan.sql) }
        }
    }

    /// Binds the inserts at positions `rows` to a prepared INSERT of that many rows (`_pk`,
    /// [`_entity`], the values, then the foreign keys, for each) and runs it.
    private mutating func insertRows(_ inserts: [ChangeSet.Insert], _ rows: ArraySlice<Int>, _ plan: InsertPlan,
                                     _ statement: SQLiteStatement, sql: String) throws {
        sqlite3_reset(statement)
        defer { sqlite3_reset(statement) }
        var code = SQLITE_OK
        var index: Int32 = 1
        for row in rows {
            let values = inserts[row].values
            guard values.count == plan.attributeCount else {
                throw StoreError(.constraintViolation, "saving \(inserts[row].objectID): \(values.count) values for \(plan.attributeCount) attributes")
            }
            code |= sqlite3_bind_int64(statement, index, insertKeys[row])
            index += 1
            if plan.hasEntityColumn {
                code |= ValueCoding.bindText(inserts[row].objectID.entityName, to: statement, at: index)
                index += 1
            }
            for position in plan.storedAttributes {
                code |= ValueCoding.bind(values[position], to: statement, at: index)
                index += 1
            }
            // Every foreign key is bound: NULL unless the insert links it.
            for slot in plan.foreignKeys.indices {
                code |= sqlite3_bind_null(statement, index + Int32(slot))
            }
            for case .toOne(let relationship, .object(let target)) in inserts[row].relationships {
                if let slot = plan.foreignKeys.firstIndex(of: relationship) {
                    code |= sqlite3_bind_int64(statement, index + Int32(slot), try key(of: target))
                }
            }
            index += Int32(plan.foreignKeys.count)
        }
        guard code == SQLITE_OK else {
            throw StoreError(.constraintViolation, "saving \(rows.first.map { inserts[$0].objectID.description } ?? "rows"): a value could not be bound (\(String(cString: sqlite3_errmsg(db.sqliteConnection))))")
        }
        let result = sqlite3_step(statement)
        guard result == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: sqlite3_extended_errcode(db.sqliteConnection)),
                                message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
        }
    }

    // MARK: Relationships

    /// Writes the join-table rows of the relationships this side keeps.
    private func writeJoinRows(_ changes: [RelationshipChange], of id: ObjectID) throws {
        guard changes.contains(where: { if case .toMany = $0 { true } else { false } }) else { return }
        let entity = try store.schema.layout(of: id.entityName).entity
        for case .toMany(let index, let added, let removed, let order) in changes {
            guard case .joinTable(let table, true) = try store.schema.storage(of: entity.relationships[index].name, in: entity) else { continue }
            let source = try key(of: id)
            if let order {
                try execute("DELETE FROM \(quoted(table)) WHERE \"source\" = ?", [.integer(source)], for: id)
                for (position, target) in order.enumerated() {
                    try execute("INSERT INTO \(quoted(table)) (\"source\", \"target\", \"position\") VALUES (?, ?, ?)",
                                [.integer(source), .integer(try key(of: target)), .integer(Int64(position))], for: id)
                }
                continue
            }
            for target in removed {
                try execute("DELETE FROM \(quoted(table)) WHERE \"source\" = ? AND \"target\" = ?",
                            [.integer(source), .integer(try key(of: target))], for: id)
            }
            for target in added {
                try execute("INSERT OR IGNORE INTO \(quoted(table)) (\"source\", \"target\") VALUES (?, ?)",
                            [.integer(source), .integer(try key(of: target))], for: id)
            }
        }
    }

    // MARK: Helpers

    /// The primary key of a stored object, or of an object inserted by this save.
    private func key(of id: ObjectID) throws -> Int64 {
        try ChangeSet.primaryKey(of: id, permanentIDs: permanentIDs)
    }

    /// Runs one write statement (`prepared` from `sql` already, or looked up in the cache),
    /// naming the object when a constraint fails; returns the number of rows changed.
    @discardableResult
    private func execute(_ sql: String, _ values: [AttributeValue], for id: ObjectID, prepared: SQLiteStatement? = nil) throws -> Int {
        func run(_ statement: RawStatement) throws -> Int {
            try statement.bind(values)
            return try statement.execute()
        }
        return try namingConstraints(id) {
            if let prepared { return try RawStatement.with(prepared, of: db, sql: sql, run) }
            return try RawStatement.with(db, sql: sql, run)
        }
    }

    /// Runs `body`, turning a constraint SQLite refused into an error that names the object.
    private func namingConstraints<T>(_ id: ObjectID, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            let detail = error.message ?? "constraint failed"
            throw StoreError(.constraintViolation,
                "saving \(id) broke a constraint of the store (\(detail)); another object has the same unique key — fetch and update that object instead of inserting a new one")
        }
    }

    /// The next primary key of a table. Keys are never reused, even after deletes: the table's
    /// AUTOINCREMENT sequence, which SQLite advances past every key inserted, is the source.
    private func nextKey(for table: String, cache: inout [(table: String, key: Int64)]) throws -> Int64 {
        if let at = cache.firstIndex(where: { $0.table == table }) {
            defer { cache[at].key += 1 }
            return cache[at].key
        }
        let next = try RawStatement.with(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?") { statement in
            try statement.bind(table, at: 1)
            return try statement.step() ? statement.int64(at: 0) : 0
        } + 1
        cache.append((table, next + 1))
        return next
    }

    private func conflict(for id: ObjectID, expected: Int64, table: String) throws -> ConflictError.Conflict {
        let current = try RawStatement.with(db, sql: "SELECT \"_version\" FROM \(quoted(table)) WHERE \"_pk\" = ?") { statement in
            try statement.bind(try key(of: id), at: 1)
            return try statement.step() ? statement.int64(at: 0) : nil
        }
        return ConflictError.Conflict(objectID: id, expectedVersion: expected, storeVersion: current)
    }
}
