import Foundation
import PostgresNIO
import TroveModel
public import TroveStore

extension PostgresStore {
    /// Saves `changes` in one transaction holding the write lock, which is held only for the
    /// writes: the keys of new rows (sequences stand outside transactions, so a save that fails
    /// leaves gaps, as an insert rolled back does) and every statement with its values bound
    /// (text forms included, the costly part) are made before it, so that processes saving at
    /// once serialize on the server's work alone.
    public func save(_ changes: ChangeSet) throws -> SaveResult {
        if changes.isEmpty { return SaveResult(permanentIDs: [:], versions: [:]) }
        let doing = "saving to \(location)"
        let permanentIDs = try run(doing) { try takeKeys(for: changes.inserts) { try query($0, $1).rows } }
        let statements = try Self.run(doing, location: location) {
            try PostgresSaveStatements(schema: schema, changes: changes, permanentIDs: permanentIDs)
        }
        return try commit(statements, doing)
    }

    /// Writes a save's statements, and its metadata, in one transaction.
    private func commit(_ statements: PostgresSaveStatements, _ doing: String) throws -> SaveResult {
        try transaction(doing) {
            let versions = try statements.write(on: self)
            try writeMetadata(statements.changes.metadata)
            let after = try raiseCounter()
            return SaveResult(permanentIDs: statements.permanentIDs, versions: versions,
                              changeTokenBefore: StoreChangeToken(storeID: storeID, version: after - 1),
                              changeTokenAfter: StoreChangeToken(storeID: storeID, version: after))
        }
    }

    /// Raises the change counter by one, notifies the listeners of ``changeTokens(pollingEvery:)``
    /// (at commit) and returns it. Callers run it last in a write's transaction, under the
    /// write lock: the counter moves by exactly that write.
    func raiseCounter() throws -> Int64 {
        let sql = """
            WITH "raised" AS (UPDATE \(quoted(Self.changesTable)) SET "counter" = "counter" + 1 RETURNING "counter")
            SELECT "counter", pg_notify($1, "counter"::text) FROM "raised"
            """
        // The second cell is pg_notify's void.
        return try query(sql, [.string(changesChannel)]).rows.first.map { try Array($0)[0].decode(Int64.self) } ?? 0
    }

    /// Takes a primary key for each insert from its table's sequence, in the change set's
    /// order, and returns the inserts' permanent IDs: one statement, an array of keys a table,
    /// run by `query` (on a connection its caller holds).
    private func takeKeys(for inserts: [ChangeSet.Insert],
                          query: (String, [AttributeValue]) throws -> [PostgresRow]) throws -> [ObjectID: ObjectID] {
        var counts: [String: Int] = [:]
        for insert in inserts { counts[insert.objectID.rootEntityName, default: 0] += 1 }
        let tables = counts.sorted { $0.key < $1.key }
        var keys: [String: [Int64]] = [:]
        if !tables.isEmpty {
            var arguments: [AttributeValue] = []
            var columns: [String] = []
            for (table, count) in tables {
                arguments += [.string(quoted(Self.sequence(of: table))), .integer(Int64(count))]
                columns.append("array(SELECT nextval($\(arguments.count - 1)::regclass) FROM generate_series(1, $\(arguments.count)))")
            }
            let cells = try query("SELECT " + columns.joined(separator: ", "), arguments).first.map(Array.init) ?? []
            for ((table, _), cell) in zip(tables, cells) {
                keys[table] = try cell.decode([Int64].self).reversed()
            }
        }
        var permanentIDs: [ObjectID: ObjectID] = [:]
        permanentIDs.reserveCapacity(inserts.count)
        for insert in inserts {
            guard let pk = keys[insert.objectID.rootEntityName]?.popLast() else {
                throw StoreError(.server, "saving \(insert.objectID): the sequence of \(insert.objectID.rootEntityName) gave too few keys")
            }
            permanentIDs[insert.objectID] = insert.objectID.saved(as: pk)
        }
        return permanentIDs
    }
}

extension PostgresStore: BackgroundSavingStore {
    /// Takes the new rows' keys on a reading connection and makes the statements, so that both
    /// run while this store's connection still saves the last batch; the transaction then runs
    /// as ``save(_:)``'s.
    public func stageSave(_ changes: ChangeSet) throws -> StagedSave {
        let doing = "saving to \(location)"
        let permanentIDs = changes.inserts.isEmpty ? [:] : try read(doing) { connection in
            try takeKeys(for: changes.inserts) { sql, values in
                Array(try connection.answer(Self.statement(sql, values)).rows)
            }
        }
        let statements = try Self.run(doing, location: location) {
            try PostgresSaveStatements(schema: schema, changes: changes, permanentIDs: permanentIDs)
        }
        return StagedSave(permanentIDs: permanentIDs, versions: statements.versions) { [self] in
            if changes.isEmpty { return SaveResult(permanentIDs: [:], versions: [:]) }
            return try commit(statements, doing)
        }
    }
}

/// The statements of one change set, their values bound, made before the save takes the write
/// lock; ``write(on:)`` runs them in ``SQLiteStore``'s order: deletes (freeing unique keys),
/// updates, inserts, the join tables.
private struct PostgresSaveStatements: Sendable {
    /// A delete or an update of one row at its expected version.
    struct RowWrite {
        let objectID: ObjectID
        let expectedVersion: Int64
        let table: String
        /// `nil` for an update that changes nothing the row holds (its links live in other rows).
        let statement: PostgresQuery?
    }

    /// One multi-row INSERT, and what it takes to insert its rows one by one when it breaks a
    /// constraint.
    struct InsertChunk {
        let layout: InsertLayout
        let rows: ArraySlice<Int>
        let statement: PostgresQuery
    }

    /// A statement writing a join table's rows for `objectID`.
    struct JoinWrite {
        let objectID: ObjectID
        let statement: PostgresQuery
        /// Whether a broken constraint is this object's to name (inserts; deletes break none).
        let namesConstraints: Bool
    }

    let changes: ChangeSet
    let permanentIDs: [ObjectID: ObjectID]
    private(set) var deletes: [RowWrite] = []
    private(set) var updates: [RowWrite] = []
    private(set) var inserts: [InsertChunk] = []
    private(set) var joinWrites: [JoinWrite] = []

    /// At most this many values a statement (PostgreSQL's limit is 65,535 parameters).
    static let parametersPerStatement = 30_000

    init(schema: StoreSchema, changes: ChangeSet, permanentIDs: [ObjectID: ObjectID]) throws {
        self.changes = changes
        self.permanentIDs = permanentIDs
        for delete in changes.deletes {
            let table = try schema.layout(of: delete.objectID.entityName).table
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(try key(of: delete.objectID))
            bindings.append(delete.expectedVersion)
            deletes.append(RowWrite(objectID: delete.objectID, expectedVersion: delete.expectedVersion, table: table,
                                    statement: PostgresQuery(unsafeSQL: "DELETE FROM \(quoted(table)) WHERE \"_pk\" = $1 AND \"_version\" = $2",
                                                             binds: bindings)))
        }
        for update in changes.updates {
            updates.append(try updateStatement(update, schema: schema))
        }
        var runs: [(name: String, rows: [Int])] = []
        for row in changes.inserts.indices {
            let name = changes.inserts[row].objectID.entityName
            if let at = runs.firstIndex(where: { $0.name == name }) { runs[at].rows.append(row) } else { runs.append((name, [row])) }
        }
        for run in runs {
            let layout = try InsertLayout(schema.layout(of: run.name), schema: schema)
            let perStatement = max(1, Self.parametersPerStatement / layout.columns.count)
            for start in stride(from: 0, to: run.rows.count, by: perStatement) {
                let rows = run.rows[start..<min(start + perStatement, run.rows.count)]
                let statement = try layout.arrayStatement(rows, of: changes.inserts, permanentIDs: permanentIDs)
                    ?? layout.statement(rows, of: changes.inserts, permanentIDs: permanentIDs)
                inserts.append(InsertChunk(layout: layout, rows: rows, statement: statement))
            }
        }
        for insert in changes.inserts { try addJoinWrites(insert.relationships, of: insert.objectID, schema: schema) }
        for update in changes.updates { try addJoinWrites(update.relationships, of: update.objectID, schema: schema) }
    }

    /// The versions ``write(on:)`` gives the updated rows when it succeeds.
    var versions: [ObjectID: Int64] {
        var versions: [ObjectID: Int64] = [:]
        for update in updates { versions[update.objectID] = update.expectedVersion + (update.statement == nil ? 0 : 1) }
        return versions
    }

    /// Runs the statements in the save's transaction and returns the rows' new versions.
    /// - Throws: ``ConflictError`` when a deleted or updated row is not at its expected version.
    func write(on store: PostgresStore) throws -> [ObjectID: Int64] {
        var versions: [ObjectID: Int64] = [:]
        var conflicts: [ConflictError.Conflict] = []
        for delete in deletes {
            if let statement = delete.statement, try store.query(statement).changed == 0 {
                conflicts.append(try conflict(delete, on: store))
            }
        }
        for update in updates {
            guard let statement = update.statement else {
                versions[update.objectID] = update.expectedVersion
                continue
            }
            if try store.query(statement).changed == 0 {
                conflicts.append(try conflict(update, on: store))
            } else {
                versions[update.objectID] = update.expectedVersion + 1
            }
        }
        guard conflicts.isEmpty else { throw ConflictError(conflicts: conflicts) }
        for chunk in inserts {
            try store.query("SAVEPOINT trove_insert")
            do {
                try store.query(chunk.statement)
                try store.query("RELEASE SAVEPOINT trove_insert")
            } catch {
                // Rare: made under the lock, one row a statement, so that the error names the object at fault.
                try store.query("ROLLBACK TO SAVEPOINT trove_insert")
                for row in chunk.rows {
                    let one = try chunk.layout.statement([row], of: changes.inserts, permanentIDs: permanentIDs)
                    try namingConstraints(changes.inserts[row].objectID) { try store.query(one) }
                }
                try store.query("RELEASE SAVEPOINT trove_insert")
            }
        }
        for write in joinWrites {
            if write.namesConstraints {
                try namingConstraints(write.objectID) { try store.query(write.statement) }
            } else {
                try store.query(write.statement)
            }
        }
        return versions
    }

    /// The UPDATE of the columns an update sets, raising `_version`, for its row at its expected
    /// version; no statement when the row holds nothing it changes.
    private func updateStatement(_ update: ChangeSet.Update, schema: StoreSchema) throws -> RowWrite {
        let layout = try schema.layout(of: update.objectID.entityName)
        let entity = layout.entity
        var assignments: [String] = []
        var bindings = PostgresBindings()
        func bind(_ value: AttributeValue, to column: String) throws {
            try Self.bind(value, column, of: update.objectID, to: &bindings)
            assignments.append("\(quoted(column)) = $\(assignments.count + 1)")
        }
        for (position, value) in update.changes.sorted(by: { $0.key < $1.key }) where entity.attributes[position].isStored {
            let attribute = entity.attributes[position]
            try bind(value, to: attribute.name)
            guard TextForm.applies(to: attribute.type) else { continue }
            for (form, formed) in zip(TextForm.allCases, TextForm.values(of: value)) {
                try bind(formed, to: form.column(of: attribute.name))
            }
        }
        var keepsJoinRows = false
        for change in update.relationships {
            switch change {
            case .toOne(let index, let link):
                guard case .foreignKey(let column) = try schema.storage(of: entity.relationships[index].name, in: entity) else { continue }
                try bind(try link.objectID.map { .integer(try key(of: $0)) } ?? .null, to: column)
            case .toMany(let index, _, _, _):
                if case .joinTable(_, true) = try schema.storage(of: entity.relationships[index].name, in: entity) { keepsJoinRows = true }
            }
        }
        guard !assignments.isEmpty || keepsJoinRows else {
            return RowWrite(objectID: update.objectID, expectedVersion: update.expectedVersion, table: layout.table, statement: nil)
        }
        let count = assignments.count
        assignments.append("\"_version\" = \"_version\" + 1")
        bindings.append(try key(of: update.objectID))
        bindings.append(update.expectedVersion)
        let sql = "UPDATE \(quoted(layout.table)) SET \(assignments.joined(separator: ", ")) WHERE \"_pk\" = $\(count + 1) AND \"_version\" = $\(count + 2)"
        return RowWrite(objectID: update.objectID, expectedVersion: update.expectedVersion, table: layout.table,
                        statement: PostgresQuery(unsafeSQL: sql, binds: bindings))
    }

    /// Adds the statements writing the join-table rows of the relationships this side keeps.
    private mutating func addJoinWrites(_ changes: [RelationshipChange], of id: ObjectID, schema: StoreSchema) throws {
        guard changes.contains(where: { if case .toMany = $0 { true } else { false } }) else { return }
        let entity = try schema.layout(of: id.entityName).entity
        func add(_ sql: String, _ values: [Int64], namesConstraints: Bool) {
            var bindings = PostgresBindings(capacity: values.count)
            for value in values { bindings.append(value) }
            joinWrites.append(JoinWrite(objectID: id, statement: PostgresQuery(unsafeSQL: sql, binds: bindings), namesConstraints: namesConstraints))
        }
        for case .toMany(let index, let added, let removed, let order) in changes {
            guard case .joinTable(let table, true) = try schema.storage(of: entity.relationships[index].name, in: entity) else { continue }
            let source = try key(of: id)
            if let order {
                add("DELETE FROM \(quoted(table)) WHERE \"source\" = $1", [source], namesConstraints: false)
                for (position, target) in order.enumerated() {
                    add("INSERT INTO \(quoted(table)) (\"source\", \"target\", \"position\") VALUES ($1, $2, $3)",
                        [source, try key(of: target), Int64(position)], namesConstraints: true)
                }
                continue
            }
            for target in removed {
                add("DELETE FROM \(quoted(table)) WHERE \"source\" = $1 AND \"target\" = $2", [source, try key(of: target)], namesConstraints: false)
            }
            for target in added {
                add("INSERT INTO \(quoted(table)) (\"source\", \"target\") VALUES ($1, $2) ON CONFLICT DO NOTHING",
                    [source, try key(of: target)], namesConstraints: true)
            }
        }
    }

    /// The primary key of a stored object, or of an object inserted by this save.
    private func key(of id: ObjectID) throws -> Int64 {
        try ChangeSet.primaryKey(of: id, permanentIDs: permanentIDs)
    }

    /// Binds `value`, saved to `column` of `id`'s row, naming both when it is text holding NUL.
    static func bind(_ value: AttributeValue, _ column: String, of id: ObjectID, to bindings: inout PostgresBindings) throws {
        do {
            try PostgresValues.bind(value, to: &bindings)
        } catch is PostgresValues.NULInText {
            throw nulInText(column, of: id)
        }
    }

    /// The error for text holding NUL, which PostgreSQL's text refuses, in `column` of `id`'s row.
    static func nulInText(_ column: String, of id: ObjectID) -> StoreError {
        StoreError(.constraintViolation, "saving \(id): its \(column) holds the NUL character, which PostgreSQL's text cannot keep; remove it before saving")
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

    private func conflict(_ write: RowWrite, on store: PostgresStore) throws -> ConflictError.Conflict {
        let row = try store.query("SELECT \"_version\" FROM \(quoted(write.table)) WHERE \"_pk\" = $1", [.integer(try key(of: write.objectID))]).rows.first
        return ConflictError.Conflict(objectID: write.objectID, expectedVersion: write.expectedVersion, storeVersion: try row?.decode(Int64.self))
    }
}

/// The columns of one entity's INSERT: the key, the entity (in a table of several), each
/// stored attribute with its text forms, the foreign keys.
private struct InsertLayout {
    let entity: Entity
    let hasEntityColumn: Bool
    let columns: [String]
    /// The positions and names of the stored attributes, and whether each keeps text forms.
    let stored: [(position: Int, name: String, hasForms: Bool)]
    /// The relationships kept as a foreign key in this table, in `columns`' order.
    let foreignKeys: [Int]
    /// How each column's values travel in ``arrayStatement(_:of:permanentIDs:)``.
    let elements: [PostgresColumnArray.Element]
    /// `INSERT INTO … (…) VALUES `
    let head: String
    /// `INSERT INTO … (…) SELECT unnest($1::bigint[]), …`
    let arrayHead: String

    init(_ layout: StoreSchema.EntityLayout, schema: StoreSchema) throws {
        entity = layout.entity
        hasEntityColumn = layout.hasEntityColumn
        var columns = ["_pk"]
        var elements: [PostgresColumnArray.Element] = [.int8]
        if layout.hasEntityColumn {
            columns.append("_entity")
            elements.append(.text)
        }
        var stored: [(position: Int, name: String, hasForms: Bool)] = []
        for (position, attribute) in entity.attributes.enumerated() where attribute.isStored {
            let hasForms = TextForm.applies(to: attribute.type)
            stored.append((position, attribute.name, hasForms))
            columns.append(attribute.name)
            elements.append(PostgresColumnArray.Element(attribute.type))
            guard hasForms else { continue }
            for form in TextForm.allCases {
                columns.append(form.column(of: attribute.name))
                elements.append(.text)
            }
        }
        var foreignKeys: [Int] = []
        for (index, relationship) in entity.relationships.enumerated() {
            if case .foreignKey(let column) = try schema.storage(of: relationship.name, in: entity) {
                columns.append(column)
                elements.append(.int8)
                foreignKeys.append(index)
            }
        }
        self.columns = columns
        self.elements = elements
        self.stored = stored
        self.foreignKeys = foreignKeys
        let into = "INSERT INTO \(quoted(layout.table)) (\(columns.map(quoted).joined(separator: ", ")))"
        head = into + " VALUES "
        // Each array unnested in the select list: the server steps through them together, where
        // `SELECT * FROM unnest($1, $2, …)` first copies every row into a tuple store (200,000
        // rows of the benchmark's photos in 200 statements: 2.6 s of the server's time against 3.2 s).
        arrayHead = into + " SELECT " + elements.enumerated().map { "unnest($\($0.offset + 1)\($0.element.sqlCast))" }.joined(separator: ", ")
    }

    /// The INSERT of `rows` (indexes into `inserts`) with one array parameter a column, its
    /// values bound; `nil` when a value is not of its column's element type (then
    /// ``statement(_:of:permanentIDs:)`` makes the INSERT).
    ///
    /// The two halves of many rows are made at once: folding text is most of a save's own
    /// work, and while it runs the server waits and the importer's reading thread mostly does.
    func arrayStatement(_ rows: ArraySlice<Int>, of inserts: [ChangeSet.Insert], permanentIDs: [ObjectID: ObjectID]) throws -> PostgresQuery? {
        guard let arrays = try PostgresColumnArray.inHalves(rows, { try self.arrays($0, of: inserts, permanentIDs: permanentIDs) }) else {
            return nil
        }
        var bindings = PostgresBindings(capacity: arrays.count)
        for array in arrays { bindings.append(array) }
        return PostgresQuery(unsafeSQL: arrayHead, binds: bindings)
    }

    /// The array parameters of `rows`' INSERT, one a column; `nil` when a value is not of its
    /// column's element type.
    private func arrays(_ rows: ArraySlice<Int>, of inserts: [ChangeSet.Insert], permanentIDs: [ObjectID: ObjectID]) throws -> [PostgresColumnArray]? {
        var arrays = elements.map { PostgresColumnArray($0, capacity: rows.count) }
        for row in rows {
            let insert = inserts[row]
            let id = insert.objectID
            guard insert.values.count == entity.attributes.count else {
                throw StoreError(.constraintViolation, "saving \(id): \(insert.values.count) values for \(entity.attributes.count) attributes")
            }
            var column = 0
            func append(_ value: AttributeValue, _ name: @autoclosure () -> String) throws -> Bool {
                defer { column += 1 }
                do {
                    return try arrays[column].append(value)
                } catch is PostgresValues.NULInText {
                    throw PostgresSaveStatements.nulInText(name(), of: id)
                }
            }
            arrays[column].append(int8: try ChangeSet.primaryKey(of: id, permanentIDs: permanentIDs))
            column += 1
            if hasEntityColumn {
                guard try append(.string(id.entityName), "_entity") else { return nil }
            }
            for (position, name, hasForms) in stored {
                let value = insert.values[position]
                guard try append(value, name) else { return nil }
                guard hasForms else { continue }
                for (form, formed) in zip(TextForm.allCases, TextForm.values(of: value)) {
                    guard try append(formed, form.column(of: name)) else { return nil }
                }
            }
            var links = [Int64?](repeating: nil, count: foreignKeys.count)
            for case .toOne(let relationship, .object(let target)) in insert.relationships {
                if let slot = foreignKeys.firstIndex(of: relationship) {
                    links[slot] = try ChangeSet.primaryKey(of: target, permanentIDs: permanentIDs)
                }
            }
            for link in links {
                if let link { arrays[column].append(int8: link) } else { arrays[column].appendNull() }
                column += 1
            }
        }
        return arrays
    }

    /// The INSERT of `rows` (indexes into `inserts`), its values bound.
    func statement(_ rows: some Collection<Int>, of inserts: [ChangeSet.Insert], permanentIDs: [ObjectID: ObjectID]) throws -> PostgresQuery {
        var bindings = PostgresBindings(capacity: rows.count * columns.count)
        var sql = head
        sql.reserveCapacity(head.utf8.count + rows.count * columns.count * 7)
        var parameter = 0
        for (n, row) in rows.enumerated() {
            let insert = inserts[row]
            let id = insert.objectID
            guard insert.values.count == entity.attributes.count else {
                throw StoreError(.constraintViolation, "saving \(id): \(insert.values.count) values for \(entity.attributes.count) attributes")
            }
            bindings.append(try ChangeSet.primaryKey(of: id, permanentIDs: permanentIDs))
            if hasEntityColumn { bindings.append(id.entityName) }
            for (position, name, hasForms) in stored {
                let value = insert.values[position]
                try PostgresSaveStatements.bind(value, name, of: id, to: &bindings)
                guard hasForms else { continue }
                for (form, formed) in zip(TextForm.allCases, TextForm.values(of: value)) {
                    try PostgresSaveStatements.bind(formed, form.column(of: name), of: id, to: &bindings)
                }
            }
            var links = [Int64?](repeating: nil, count: foreignKeys.count)
            for case .toOne(let relationship, .object(let target)) in insert.relationships {
                if let slot = foreignKeys.firstIndex(of: relationship) {
                    links[slot] = try ChangeSet.primaryKey(of: target, permanentIDs: permanentIDs)
                }
            }
            for link in links {
                if let link { bindings.append(link) } else { bindings.appendNull() }
            }
            sql += n == 0 ? "(" : ", ("
            for column in 0..<columns.count {
                parameter += 1
                sql += column == 0 ? "$\(parameter)" : ", $\(parameter)"
            }
            sql += ")"
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}
