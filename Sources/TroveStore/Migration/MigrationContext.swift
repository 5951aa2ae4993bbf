public import TroveModel
import GRDB

/// What a custom ``MigrationStage`` reads and writes: the store's rows, in the terms of the model
/// the store has at that moment (``model``), inside the migration's transaction.
///
/// Objects are rows here (each with its primary key), not ``ObjectID``s of a context: no context
/// can open the store during its migration. Use the context only inside the stage's closure.
///
/// ```swift
/// try context.forEachRow(of: "Person") { row in
///     guard case .string(let name) = row["name"] else { return }
///     let parts = name.split(separator: " ", maxSplits: 1).map { AttributeValue.string(String($0)) }
///     try context.update("Person", row.key, ["first": parts.first ?? .null, "last": parts.dropFirst().first ?? .null])
/// }
/// ```
public final class MigrationContext {
    /// The model the store has while the closure runs: the stage's `from` in `willMigrate`, its
    /// `to` in `didMigrate`.
    public let model: Model
    let db: Database
    let schema: StoreSchema
    /// Rows read a query, in order of primary key.
    static let batchSize = 1000

    init(model: Model, db: Database) {
        self.model = model
        self.db = db
        self.schema = StoreSchema(model: model)
    }

    /// Calls `body` with each row of `entity` (and of its sub-entities), in order of primary key,
    /// read a thousand at a time: `body` may write rows, those of `entity` included.
    /// - Throws: ``StoreError`` `.unknownEntity` for an entity the model lacks; `.corruptValue`
    ///   for a stored value its attribute's type cannot hold; what `body` throws.
    public func forEachRow(of entity: String, _ body: (MigrationRow) throws -> Void) throws {
        let (described, layout) = try self.layout(of: entity)
        let attributes = described.attributes.filter(\.isStored)
        var columns = [quoted("_pk"), layout.hasEntityColumn ? quoted("_entity") : sqlStringLiteral(entity)]
        columns += attributes.map { quoted($0.name) }
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(quoted(layout.table)) WHERE \(quoted("_pk")) > ?"
        if layout.hasEntityColumn {
            sql += " AND \(quoted("_entity")) IN (\(layout.entityNames.map(sqlStringLiteral).joined(separator: ", ")))"
        }
        sql += " ORDER BY \(quoted("_pk")) LIMIT \(Self.batchSize)"
        var after = Int64.min
        while true {
            let rows = try RawStatement.with(db, sql: sql) { statement in
                try statement.bind(after, at: 1)
                var rows: [MigrationRow] = []
                while try statement.step() {
                    let key = statement.int64(at: 0)
                    var values: [String: AttributeValue] = [:]
                    for (index, attribute) in attributes.enumerated() {
                        guard let value = ValueCoding.read(statement.handle, column: Int32(index + 2), as: attribute.type) else {
                            throw StoreError(.corruptValue, "\(layout.table) row \(key): the value of \(attribute.name) is not a \(attribute.type.rawValue)"
                                + " (\(ValueCoding.describeColumn(statement.handle, Int32(index + 2))))")
                        }
                        values[attribute.name] = value
                    }
                    rows.append(MigrationRow(key: key, entity: statement.text(at: 1), values: values))
                }
                return rows
            }
            for row in rows { try body(row) }
            guard let last = rows.last, rows.count == Self.batchSize else { return }
            after = last.key
        }
    }

    /// Sets attributes of the row of `entity` whose primary key is `key`.
    /// - Throws: ``StoreError`` `.unknownEntity` for an entity or attribute the model lacks,
    ///   `.constraintViolation` for a value that does not fit its attribute (nil for a required
    ///   one) or a unique key taken, `.notFound` when there is no such row.
    public func update(_ entity: String, _ key: Int64, _ values: [String: AttributeValue]) throws {
        let (described, layout) = try self.layout(of: entity)
        let checked = try self.checked(values, for: described)
        guard !checked.isEmpty else { return }
        let assignments = checked.map { "\(quoted($0.name)) = ?" } + ["\(quoted("_version")) = \(quoted("_version")) + 1"]
        let changed = try RawStatement.with(db, sql: "UPDATE \(quoted(layout.table)) SET \(assignments.joined(separator: ", ")) WHERE \(quoted("_pk")) = ?") { statement in
            try statement.bind(checked.map(\.value) + [.integer(key)])
            return try statement.execute()
        }
        guard changed == 1 else { throw StoreError(.notFound, "migration: no \(entity) row with key \(key)") }
    }

    /// Inserts an object of `entity` with `values` (every other attribute takes its default)
    /// and returns its primary key.
    /// - Throws: as ``update(_:_:_:)``; `.constraintViolation` too for a required attribute
    ///   without a value or default, or an abstract entity.
    @discardableResult
    public func insert(_ entity: String, _ values: [String: AttributeValue]) throws -> Int64 {
        let (described, layout) = try self.layout(of: entity)
        guard !described.isAbstract else {
            throw StoreError(.constraintViolation, "migration: \(entity) is abstract; insert an object of one of its sub-entities")
        }
        var all = values
        for attribute in described.attributes where attribute.isStored && all[attribute.name] == nil {
            all[attribute.name] = attribute.defaultValue
        }
        let checked = try self.checked(all, for: described)
        var columns = checked.map { quoted($0.name) }
        var arguments = checked.map(\.value)
        if layout.hasEntityColumn {
            columns.append(quoted("_entity"))
            arguments.append(.string(entity))
        }
        let sql = "INSERT INTO \(quoted(layout.table)) (\(columns.joined(separator: ", "))) VALUES (\(placeholders(columns.count)))"
        try RawStatement.with(db, sql: sql) { statement in
            try statement.bind(arguments)
            try statement.execute()
        }
        return db.lastInsertedRowID
    }

    /// Links the row of `entity` whose primary key is `key` to the row `destination` through
    /// `relationship`: a to-one is set (replacing its link), a to-many gains the link (at the
    /// end, when ordered). The inverse follows: links are stored once for both sides.
    /// - Throws: ``StoreError`` `.unknownEntity` for an entity or relationship the model lacks,
    ///   `.notFound` when either row is missing.
    public func link(_ entity: String, _ key: Int64, _ relationship: String, to destination: Int64) throws {
        let (described, _) = try self.layout(of: entity)
        guard let declared = described.relationship(named: relationship),
              let target = schema.layouts[declared.destination] else {
            throw StoreError(.unknownEntity, "migration: \(entity) has no relationship '\(relationship)' in model \(model.versionHash)")
        }
        guard let source = schema.layouts[entity] else { throw StoreError(.unknownEntity, "migration: no entity \(entity)") }
        for (table, row) in [(source.table, key), (target.table, destination)] {
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(quoted(table)) WHERE \(quoted("_pk")) = ?)", arguments: [row]) == true else {
                throw StoreError(.notFound, "migration: no \(table) row with key \(row) to link through \(entity).\(relationship)")
            }
        }
        let version = "\(quoted("_version")) = \(quoted("_version")) + 1"
        switch try schema.storage(of: relationship, in: described) {
        case .foreignKey(let column):
            try db.execute(sql: "UPDATE \(quoted(source.table)) SET \(quoted(column)) = ?, \(version) WHERE \(quoted("_pk")) = ?",
                           arguments: [destination, key])
        case .inverseForeignKey(let table, let column):
            try db.execute(sql: "UPDATE \(quoted(table)) SET \(quoted(column)) = ?, \(version) WHERE \(quoted("_pk")) = ?",
                           arguments: [key, destination])
        case .joinTable(let name, let sourceIsFirst):
            let (from, to) = sourceIsFirst ? (key, destination) : (destination, key)
            let ordered = schema.joinTables.first { $0.name == name }?.isOrdered == true
            let position = ordered ? ", \(quoted("position"))" : ""
            let value = ordered ? ", (SELECT COALESCE(MAX(\(quoted("position"))) + 1, 0) FROM \(quoted(name)) WHERE \(quoted("source")) = ?1)" : ""
            try db.execute(sql: "INSERT INTO \(quoted(name)) (\(quoted("source")), \(quoted("target"))\(position)) VALUES (?1, ?2\(value)) ON CONFLICT DO NOTHING",
                           arguments: [from, to])
        }
    }

    private func layout(of entity: String) throws -> (Entity, StoreSchema.EntityLayout) {
        guard let described = model.entity(named: entity), let layout = schema.layouts[entity] else {
            throw StoreError(.unknownEntity, "migration: model \(model.versionHash) has no entity '\(entity)'")
        }
        return (described, layout)
    }

    /// The values as their attributes store them, in a fixed order.
    private func checked(_ values: [String: AttributeValue], for entity: Entity) throws -> [(name: String, value: AttributeValue)] {
        try values.sorted { $0.key < $1.key }.map { name, value in
            guard let attribute = entity.attribute(named: name), attribute.isStored else {
                throw StoreError(.unknownEntity, "migration: \(entity.name) has no stored attribute '\(name)' in model \(model.versionHash)")
            }
            if value == .null, !attribute.isOptional {
                throw StoreError(.constraintViolation, "migration: \(entity.name).\(name) is required; give it a value")
            }
            switch attribute.checked(value) {
            case .success(let stored): return (name, stored)
            case .failure(let problem): throw StoreError(.constraintViolation, "migration: \(entity.name).\(name): \(problem)")
            }
        }
    }
}

/// A row a ``MigrationContext`` read: its primary key, its entity and its attributes' values.
public struct MigrationRow: Sendable, Hashable {
    /// The row's primary key, which ``MigrationContext/update(_:_:_:)`` and
    /// ``MigrationContext/link(_:_:_:to:)`` take.
    public let key: Int64
    /// The row's entity (a sub-entity's name for its objects).
    public let entity: String
    /// Every stored attribute's value, by name (``AttributeValue/null`` for nil).
    public let values: [String: AttributeValue]

    /// The value of `attribute`; ``AttributeValue/null`` for nil or an unknown name.
    public subscript(attribute: String) -> AttributeValue { values[attribute] ?? .null }
}
