import GRDB
public import TroveModel

/// How to read the rows of one table: the columns to select and, for each entity of the
/// hierarchy, where its attributes are among them.
struct ReadPlan: Sendable {
    let table: StoreSchema.Table
    /// `"_pk", "_version"[, "_entity"], <attribute columns>` for a SELECT.
    let selection: String
    /// Index of the first attribute column in a selected row.
    let firstColumn: Int
    /// For each entity of the hierarchy: the entity and, per attribute, its column's index
    /// among `table.columns`.
    let entities: [String: (entity: Entity, columns: [Int])]

    static func plans(for schema: StoreSchema) -> [String: ReadPlan] {
        var plans: [String: ReadPlan] = [:]
        for table in schema.tables {
            let columnIndex = Dictionary(table.columns.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
            var entities: [String: (entity: Entity, columns: [Int])] = [:]
            for layout in schema.layouts.values where layout.table == table.name {
                entities[layout.entity.name] = (layout.entity, layout.entity.attributes.compactMap { columnIndex[$0.name] })
            }
            var names = ["_pk", "_version"]
            if table.hasEntityColumn { names.append("_entity") }
            names += table.columns.map(\.name)
            plans[table.name] = ReadPlan(table: table, selection: names.map(quoted).joined(separator: ", "),
                                         firstColumn: table.hasEntityColumn ? 3 : 2, entities: entities)
        }
        return plans
    }

    /// Decodes the statement's current row; `defaultEntity` is the entity of tables without
    /// an `_entity` column.
    func snapshot(from statement: RawStatement, defaultEntity: String) throws -> RowSnapshot {
        let pk = statement.int64(at: 0)
        let version = statement.int64(at: 1)
        let entityName = table.hasEntityColumn ? statement.text(at: 2) : defaultEntity
        guard let (entity, columns) = entities[entityName] else {
            throw StoreError(.corruptValue,
                "row \(pk) of table \(table.name) names entity '\(entityName)', which the model does not have below \(table.name)")
        }
        var values: [AttributeValue] = []
        values.reserveCapacity(columns.count)
        for (attribute, column) in zip(entity.attributes, columns) {
            let index = Int32(firstColumn + column)
            guard let value = ValueCoding.read(statement.handle, column: index, as: attribute.type) else {
                throw StoreError(.corruptValue, """
                    \(entityName)/\(pk): column \(attribute.name) holds \(ValueCoding.describeColumn(statement.handle, index)), \
                    which is not a valid \(attribute.type.rawValue); the store was changed outside Trove — fix or clear that value with sqlite3
                    """)
            }
            values.append(value)
        }
        return RowSnapshot(objectID: ObjectID(entityName: entityName, primaryKey: pk), version: version, values: values)
    }
}

extension SQLiteStore {
    public func fetch(_ request: TroveModel.FetchRequest) throws -> [RowSnapshot] {
        let layout = try schema.layout(of: request.entityName)
        guard let plan = readPlans[layout.table] else { return [] }
        let (filter, entityNames) = entityFilter(layout, includesSubentities: request.includesSubentities)
        let sql = "SELECT \(plan.selection) FROM \(quoted(layout.table))\(filter) ORDER BY \(quoted("_pk"))"
        return try SQLiteStore.mapErrors("fetching \(request.entityName)") {
            try writer.read { db in
                try RawStatement.with(db, sql: sql) { statement in
                    for (i, name) in entityNames.enumerated() { try statement.bind(name, at: Int32(i + 1)) }
                    var snapshots: [RowSnapshot] = []
                    while try statement.step() {
                        snapshots.append(try plan.snapshot(from: statement, defaultEntity: layout.entity.name))
                    }
                    return snapshots
                }
            }
        }
    }

    public func row(for id: ObjectID) throws -> RowSnapshot? {
        guard let pk = id.primaryKey else { return nil }
        let layout = try schema.layout(of: id.entityName)
        guard let plan = readPlans[layout.table] else { return nil }
        let sql = "SELECT \(plan.selection) FROM \(quoted(layout.table)) WHERE \(quoted("_pk")) = ?"
        return try SQLiteStore.mapErrors("reading \(id)") {
            try writer.read { db in
                try RawStatement.with(db, sql: sql) { statement in
                    try statement.bind(pk, at: 1)
                    guard try statement.step() else { return nil }
                    let snapshot = try plan.snapshot(from: statement, defaultEntity: layout.entity.name)
                    return snapshot.objectID == id ? snapshot : nil
                }
            }
        }
    }

    public func count(_ request: TroveModel.FetchRequest) throws -> Int {
        let layout = try schema.layout(of: request.entityName)
        let (filter, entityNames) = entityFilter(layout, includesSubentities: request.includesSubentities)
        let sql = "SELECT count(*) FROM \(quoted(layout.table))\(filter)"
        return try SQLiteStore.mapErrors("counting \(request.entityName)") {
            try writer.read { db in
                try RawStatement.with(db, sql: sql) { statement in
                    for (i, name) in entityNames.enumerated() { try statement.bind(name, at: Int32(i + 1)) }
                    return try statement.step() ? Int(statement.int64(at: 0)) : 0
                }
            }
        }
    }

    /// The WHERE clause that keeps an entity's rows (and its sub-entities') in a shared table.
    func entityFilter(_ layout: StoreSchema.EntityLayout, includesSubentities: Bool) -> (String, [String]) {
        guard layout.hasEntityColumn else { return ("", []) }
        let names = includesSubentities ? layout.entityNames : [layout.entity.name]
        let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
        return (" WHERE \(quoted("_entity")) IN (\(marks))", names)
    }
}
