public import TroveModel
public import TroveStore

extension PostgresStore {
    public func save(_ changes: ChangeSet) throws -> SaveResult {
        if changes.isEmpty { return SaveResult(permanentIDs: [:], versions: [:]) }
        return try transaction("saving to \(location)") {
            var writer = PostgresSaveWriter(store: self)
            let result = try writer.write(changes)
            // Under the write lock: the counter moves by exactly this save.
            let row = try query("UPDATE \(quoted(Self.changesTable)) SET \"counter\" = \"counter\" + 1 RETURNING \"counter\"").rows.first
            let after = try row?.decode(Int64.self) ?? 0
            return SaveResult(permanentIDs: result.permanentIDs, versions: result.versions,
                              changeTokenBefore: StoreChangeToken(storeID: storeID, version: after - 1),
                              changeTokenAfter: StoreChangeToken(storeID: storeID, version: after))
        }
    }
}

/// Writes one change set inside the save's transaction, in ``SQLiteStore``'s order: keys for new
/// rows first (rows saved together may refer to each other), then deletes (freeing unique keys),
/// updates, inserts, the join tables, and the metadata.
private struct PostgresSaveWriter {
    let store: PostgresStore
    var permanentIDs: [ObjectID: ObjectID] = [:]
    var versions: [ObjectID: Int64] = [:]
    private var insertKeys: [Int64] = []

    init(store: PostgresStore) {
        self.store = store
    }

    /// At most this many values a statement (PostgreSQL's limit is 65,535 parameters).
    private static let parametersPerStatement = 30_000

    mutating func write(_ changes: ChangeSet) throws -> SaveResult {
        try takeKeys(for: changes.inserts)
        var conflicts: [ConflictError.Conflict] = []
        for delete in changes.deletes {
            let table = try store.schema.layout(of: delete.objectID.entityName).table
            let sql = "DELETE FROM \(quoted(table)) WHERE \"_pk\" = $1 AND \"_version\" = $2"
            if try store.query(sql, [.integer(try key(of: delete.objectID)), .integer(delete.expectedVersion)]).changed == 0 {
                conflicts.append(try conflict(for: delete.objectID, expected: delete.expectedVersion, table: table))
            }
        }
        for update in changes.updates {
            guard let (sql, values, table) = try updateStatement(update) else {
                // Nothing the row holds changed (its links live in other rows): no write.
                versions[update.objectID] = update.expectedVersion
                continue
            }
            if try store.query(sql, values).changed == 0 {
                conflicts.append(try conflict(for: update.objectID, expected: update.expectedVersion, table: table))
            } else {
                versions[update.objectID] = update.expectedVersion + 1
            }
        }
        guard conflicts.isEmpty else { throw ConflictError(conflicts: conflicts) }

        var runs: [(name: String, rows: [Int])] = []
        for row in changes.inserts.indices {
            let name = changes.inserts[row].objectID.entityName
            if let at = runs.firstIndex(where: { $0.name == name }) { runs[at].rows.append(row) } else { runs.append((name, [row])) }
        }
        for run in runs { try insert(changes.inserts, run.rows, run.name) }
        for insert in changes.inserts { try writeJoinRows(insert.relationships, of: insert.objectID) }
        for update in changes.updates { try writeJoinRows(update.relationships, of: update.objectID) }
        try store.writeMetadata(changes.metadata)
        return SaveResult(permanentIDs: permanentIDs, versions: versions)
    }

    /// Takes a primary key for each insert from its table's sequence, in the change set's order.
    private mutating func takeKeys(for inserts: [ChangeSet.Insert]) throws {
        var counts: [String: Int] = [:]
        for insert in inserts { counts[insert.objectID.rootEntityName, default: 0] += 1 }
        var keys: [String: [Int64]] = [:]
        for (table, count) in counts {
            let rows = try store.query("SELECT nextval($1::regclass) FROM generate_series(1, $2)",
                                       [.string(quoted(PostgresStore.sequence(of: table))), .integer(Int64(count))]).rows
            keys[table] = try rows.map { try $0.decode(Int64.self) }.reversed()
        }
        for insert in inserts {
            guard let pk = keys[insert.objectID.rootEntityName]?.popLast() else {
                throw StoreError(.server, "saving \(insert.objectID): the sequence of \(insert.objectID.rootEntityName) gave too few keys")
            }
            insertKeys.append(pk)
            permanentIDs[insert.objectID] = insert.objectID.saved(as: pk)
        }
    }

    /// The UPDATE of the columns an update sets, raising `_version`, for its row at its expected
    /// version; `nil` when the row holds nothing it changes.
    private func updateStatement(_ update: ChangeSet.Update) throws -> (String, [AttributeValue], String)? {
        let layout = try store.schema.layout(of: update.objectID.entityName)
        let entity = layout.entity
        var assignments: [String] = []
        var values: [AttributeValue] = []
        for (position, value) in update.changes.sorted(by: { $0.key < $1.key }) where entity.attributes[position].isStored {
            let attribute = entity.attributes[position]
            values.append(value)
            assignments.append("\(quoted(attribute.name)) = $\(values.count)")
            guard TextForm.applies(to: attribute.type) else { continue }
            for (form, formed) in zip(TextForm.allCases, TextForm.values(of: value)) {
                values.append(formed)
                assignments.append("\(quoted(form.column(of: attribute.name))) = $\(values.count)")
            }
        }
        var keepsJoinRows = false
        for change in update.relationships {
            switch change {
            case .toOne(let index, let link):
                guard case .foreignKey(let column) = try store.schema.storage(of: entity.relationships[index].name, in: entity) else { continue }
                values.append(try link.objectID.map { .integer(try key(of: $0)) } ?? .null)
                assignments.append("\(quoted(column)) = $\(values.count)")
            case .toMany(let index, _, _, _):
                if case .joinTable(_, true) = try store.schema.storage(of: entity.relationships[index].name, in: entity) { keepsJoinRows = true }
            }
        }
        guard !assignments.isEmpty || keepsJoinRows else { return nil }
        assignments.append("\"_version\" = \"_version\" + 1")
        values += [.integer(try key(of: update.objectID)), .integer(update.expectedVersion)]
        let sql = "UPDATE \(quoted(layout.table)) SET \(assignments.joined(separator: ", ")) WHERE \"_pk\" = $\(values.count - 1) AND \"_version\" = $\(values.count)"
        return (sql, values, layout.table)
    }

    /// Inserts the rows of one entity, many a statement. A statement that breaks a constraint
    /// is undone to its savepoint and its rows inserted one by one, so that the error names the
    /// object at fault.
    private func insert(_ inserts: [ChangeSet.Insert], _ rows: [Int], _ entityName: String) throws {
        let layout = try store.schema.layout(of: entityName)
        let entity = layout.entity
        var columns = ["_pk"]
        if layout.hasEntityColumn { columns.append("_entity") }
        let stored = entity.attributes.indices.filter { entity.attributes[$0].isStored }
        let texts = Set(stored.filter { TextForm.applies(to: entity.attributes[$0].type) })
        for position in stored {
            columns.append(entity.attributes[position].name)
            if texts.contains(position) { columns += TextForm.allCases.map { $0.column(of: entity.attributes[position].name) } }
        }
        var foreignKeys: [Int] = []
        for (index, relationship) in entity.relationships.enumerated() {
            if case .foreignKey(let column) = try store.schema.storage(of: relationship.name, in: entity) {
                columns.append(column)
                foreignKeys.append(index)
            }
        }
        let head = "INSERT INTO \(quoted(layout.table)) (\(columns.map(quoted).joined(separator: ", "))) VALUES "
        func statement(_ chunk: ArraySlice<Int>) throws -> (String, [AttributeValue]) {
            var values: [AttributeValue] = []
            values.reserveCapacity(chunk.count * columns.count)
            var tuples: [String] = []
            for row in chunk {
                let insert = inserts[row]
                guard insert.values.count == entity.attributes.count else {
                    throw StoreError(.constraintViolation, "saving \(insert.objectID): \(insert.values.count) values for \(entity.attributes.count) attributes")
                }
                let first = values.count + 1
                values.append(.integer(insertKeys[row]))
                if layout.hasEntityColumn { values.append(.string(insert.objectID.entityName)) }
                for position in stored {
                    values.append(insert.values[position])
                    if texts.contains(position) { values += TextForm.values(of: insert.values[position]) }
                }
                var links = [AttributeValue](repeating: .null, count: foreignKeys.count)
                for case .toOne(let relationship, .object(let target)) in insert.relationships {
                    if let slot = foreignKeys.firstIndex(of: relationship) { links[slot] = .integer(try key(of: target)) }
                }
                values += links
                tuples.append("(" + (first..<(first + columns.count)).map { "$\($0)" }.joined(separator: ", ") + ")")
            }
            return (head + tuples.joined(separator: ", "), values)
        }
        let perStatement = max(1, Self.parametersPerStatement / columns.count)
        for start in stride(from: 0, to: rows.count, by: perStatement) {
            let chunk = rows[start..<min(start + perStatement, rows.count)]
            let (sql, values) = try statement(chunk)
            try store.query("SAVEPOINT trove_insert")
            do {
                try store.query(sql, values)
                try store.query("RELEASE SAVEPOINT trove_insert")
            } catch {
                try store.query("ROLLBACK TO SAVEPOINT trove_insert")
                for row in chunk {
                    let (one, values) = try statement([row])
                    try namingConstraints(inserts[row].objectID) { try store.query(one, values) }
                }
                try store.query("RELEASE SAVEPOINT trove_insert")
            }
        }
    }

    /// Writes the join-table rows of the relationships this side keeps.
    private func writeJoinRows(_ changes: [RelationshipChange], of id: ObjectID) throws {
        guard changes.contains(where: { if case .toMany = $0 { true } else { false } }) else { return }
        let entity = try store.schema.layout(of: id.entityName).entity
        for case .toMany(let index, let added, let removed, let order) in changes {
            guard case .joinTable(let table, true) = try store.schema.storage(of: entity.relationships[index].name, in: entity) else { continue }
            let source = try key(of: id)
            if let order {
                try store.query("DELETE FROM \(quoted(table)) WHERE \"source\" = $1", [.integer(source)])
                for (position, target) in order.enumerated() {
                    try namingConstraints(id) {
                        try store.query("INSERT INTO \(quoted(table)) (\"source\", \"target\", \"position\") VALUES ($1, $2, $3)",
                                        [.integer(source), .integer(try key(of: target)), .integer(Int64(position))])
                    }
                }
                continue
            }
            for target in removed {
                try store.query("DELETE FROM \(quoted(table)) WHERE \"source\" = $1 AND \"target\" = $2", [.integer(source), .integer(try key(of: target))])
            }
            for target in added {
                try namingConstraints(id) {
                    try store.query("INSERT INTO \(quoted(table)) (\"source\", \"target\") VALUES ($1, $2) ON CONFLICT DO NOTHING",
                                    [.integer(source), .integer(try key(of: target))])
                }
            }
        }
    }

    /// The primary key of a stored object, or of an object inserted by this save.
    private func key(of id: ObjectID) throws -> Int64 {
        try ChangeSet.primaryKey(of: id, permanentIDs: permanentIDs)
    }

    /// Runs `body`, naming the object in the error when it breaks a constraint.
    @discardableResult
    private func namingConstraints<T>(_ id: ObjectID, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            guard let state = PostgresStore.sqlState(of: error), state.hasPrefix("23") else { throw error }
            throw StoreError(.constraintViolation,
                "saving \(id) broke a constraint of the store (\(PostgresStore.describe(error))); another object has the same unique key — fetch and update that object instead of inserting a new one")
        }
    }

    private func conflict(for id: ObjectID, expected: Int64, table: String) throws -> ConflictError.Conflict {
        let row = try store.query("SELECT \"_version\" FROM \(quoted(table)) WHERE \"_pk\" = $1", [.integer(try key(of: id))]).rows.first
        return ConflictError.Conflict(objectID: id, expectedVersion: expected, storeVersion: try row?.decode(Int64.self))
    }
}

extension PostgresStore {
    /// Not on PostgreSQL yet: throws ``StoreError/Code/unsupportedFormat``, and a context's
    /// batch request then deletes through objects (its result's `usedObjects` says so).
    public func batchDelete(_ query: StoreQuery) throws -> BatchWriteResult {
        throw StoreError(.unsupportedFormat, "batch deletes do not run on PostgreSQL yet; delete the objects through a context")
    }

    /// Not on PostgreSQL yet: throws ``StoreError/Code/unsupportedFormat``, and a context's
    /// batch request then updates through objects (its result's `usedObjects` says so).
    public func batchUpdate(_ query: StoreQuery, values: [Int: AttributeValue]) throws -> BatchWriteResult {
        throw StoreError(.unsupportedFormat, "batch updates do not run on PostgreSQL yet; update the objects through a context")
    }
}
