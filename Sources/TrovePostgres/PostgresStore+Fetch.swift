import PostgresNIO
public import TroveModel
public import TrovePredicate
public import TroveStore

/// How to read the rows of one table: the columns selected (`_pk`, `_version`, [`_entity`], the
/// attributes, the foreign keys, then each derived attribute's value) and where each entity's
/// values sit among them.
struct PostgresReadPlan: Sendable {
    struct EntityColumns: Sendable {
        let entity: Entity
        /// Per attribute, its type and its column in the selection; `nil` for a transient one.
        let attributes: [(type: AttributeType, column: Int?)]
        /// Per to-one kept in the row: its position, its column, its destination entity.
        let foreignKeys: [(relationship: Int, column: Int, destination: Entity)]
    }

    let table: StoreSchema.Table
    let entities: [String: EntityColumns]
    /// The selection from the table named `t` (a fetch's rows) and `d` (related rows).
    let selections: (t: String, d: String)

    init(table: StoreSchema.Table, schema: StoreSchema, model: Model) throws {
        self.table = table
        var columns = ["_pk", "_version"]
        if table.hasEntityColumn { columns.append("_entity") }
        columns += table.columns.map(\.name)
        columns += table.foreignKeys.map(\.column)
        let position = Dictionary(columns.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var derived: [(entity: Entity, attribute: Attribute)] = []
        var entities: [String: EntityColumns] = [:]
        for layout in schema.layouts.values where layout.table == table.name {
            let entity = layout.entity
            var attributes: [(AttributeType, Int?)] = []
            for attribute in entity.attributes {
                if attribute.isDerived {
                    attributes.append((attribute.type, columns.count + derived.count))
                    derived.append((entity, attribute))
                } else {
                    attributes.append((attribute.type, attribute.isStored ? position[attribute.name] : nil))
                }
            }
            var foreignKeys: [(Int, Int, Entity)] = []
            for (index, relationship) in entity.relationships.enumerated() {
                guard case .foreignKey(let column)? = schema.relationshipStorage["\(entity.name).\(relationship.name)"],
                      let at = position[column], let destination = model.entity(named: relationship.destination) else { continue }
                foreignKeys.append((index, at, destination))
            }
            entities[entity.name] = EntityColumns(entity: entity, attributes: attributes, foreignKeys: foreignKeys)
        }
        self.entities = entities
        // Each column, qualified by the alias, then each derived value.
        func selection(from alias: String) throws -> String {
            var compiler = QueryCompiler(schema: schema, model: model, dialect: .postgres)
            let values = try derived.map { try compiler.derivedValue(of: $0.attribute, in: $0.entity, at: alias).sql }
            return (columns.map { "\(quoted(alias)).\(quoted($0))" } + values).joined(separator: ", ")
        }
        selections = (try selection(from: "t"), try selection(from: "d"))
    }

    /// Decodes a row whose selection starts at cell `base`; `defaultEntity` names the entity of
    /// a table without an `_entity` column.
    func snapshot(from row: PostgresRow, defaultEntity: String, base: Int = 0) throws -> RowSnapshot {
        let cells = Array(row)
        let pk = try cells[base].decode(Int64.self)
        let version = try cells[base + 1].decode(Int64.self)
        let entityName = table.hasEntityColumn ? try cells[base + 2].decode(String.self) : defaultEntity
        guard let plan = entities[entityName] else {
            throw StoreError(.corruptValue, "row \(pk) of table \(table.name) names entity '\(entityName)', which the model does not have below \(table.name)")
        }
        var values: [AttributeValue] = []
        values.reserveCapacity(plan.attributes.count)
        for (position, (type, column)) in plan.attributes.enumerated() {
            guard let column else {
                values.append(plan.entity.attributes[position].defaultValue)
                continue
            }
            guard let value = PostgresValues.read(cells[base + column], as: type) else {
                throw StoreError(.corruptValue, """
                    \(plan.entity.name)/\(pk): column \(plan.entity.attributes[position].name) holds \(PostgresValues.describe(cells[base + column])), \
                    which is not a valid \(type.rawValue); the database was changed outside Trove — fix or clear that value with psql
                    """)
            }
            values.append(value)
        }
        var toOne: [Int: Link] = [:]
        for (relationship, column, destination) in plan.foreignKeys {
            let key = try cells[base + column].decode(Int64?.self)
            toOne[relationship] = Link(key.map { ObjectID(entity: destination, primaryKey: $0) })
        }
        return RowSnapshot(objectID: ObjectID(entity: plan.entity, primaryKey: pk), version: version, values: values, toOne: toOne)
    }
}

extension PostgresStore {
    func readPlan(for layout: StoreSchema.EntityLayout) throws -> PostgresReadPlan {
        guard let plan = readPlans[layout.table] else {
            throw StoreError(.unknownEntity, "no table for entity '\(layout.entity.name)'")
        }
        return plan
    }

    /// Runs a SELECT of a read plan's selection on a reading connection and decodes every row.
    private func snapshots(_ doing: String, plan: PostgresReadPlan, sql: String, _ values: [AttributeValue],
                           defaultEntity: String) throws -> [RowSnapshot] {
        try read(doing) { connection in
            try connection.answer(Self.statement(sql, values)).rows.map {
                try plan.snapshot(from: $0, defaultEntity: defaultEntity)
            }
        }
    }

    /// A compiler in PostgreSQL's dialect whose `MATCHES` may read texts first with `query`
    /// (``QueryCompiler/readTexts``).
    func compiler(reading query: @escaping (String) throws -> [PostgresRow]) -> QueryCompiler {
        var compiler = QueryCompiler(schema: schema, model: model, dialect: .postgres)
        compiler.readTexts = { sql in try query(sql).map { try $0.decode(String.self) } }
        return compiler
    }

    /// Runs `body` on a reading connection, given a compiler (``compiler(reading:)``) for the one
    /// statement `body` runs and a function running statements: when the compiler reads texts
    /// first, the two run in one ``ReadSnapshot``, so that the statement reads the rows the
    /// texts came from.
    func reading<T>(_ doing: String, _ body: (inout QueryCompiler, (String, [AttributeValue]) throws -> [PostgresRow]) throws -> T) throws -> T {
        try read(doing) { connection in
            try Self.withSnapshot(on: connection) { snapshot in
                func query(_ sql: String, _ values: [AttributeValue] = []) throws -> [PostgresRow] {
                    Array(try connection.answer(Self.statement(sql, values)).rows)
                }
                var compiler = compiler { sql in
                    try snapshot.begin()
                    return try query(sql)
                }
                return try body(&compiler, query)
            }
        }
    }

    public func fetch(_ query: StoreQuery) throws -> [RowSnapshot] {
        let layout = try schema.layout(of: query.entity.name)
        let plan = try readPlan(for: layout)
        let selection = plan.selections.t
        return try reading("fetching \(query.entity.name)") { compiler, run in
            let sql = try compiler.select({ _ in selection }, for: query)
            return try run(sql, compiler.arguments).map { try plan.snapshot(from: $0, defaultEntity: layout.entity.name) }
        }
    }

    public func fetchObjectIDs(_ query: StoreQuery) throws -> ObjectIDList {
        let layout = try schema.layout(of: query.entity.name)
        return try reading("fetching \(query.entity.name)") { compiler, run in
            let sql = try compiler.select({ layout in layout.hasEntityColumn ? "\"t\".\"_pk\", \"t\".\"_entity\"" : "\"t\".\"_pk\"" }, for: query)
            var ids = ObjectIDList(entity: layout.entity)
            for row in try run(sql, compiler.arguments) {
                if layout.hasEntityColumn {
                    let (pk, name) = try row.decode((Int64, String).self)
                    ids.append(pk, of: model.entity(named: name) ?? layout.entity)
                } else {
                    ids.append(try row.decode(Int64.self))
                }
            }
            return ids
        }
    }

    public func count(_ query: StoreQuery) throws -> Int {
        let counted = try reading("counting \(query.entity.name)") { compiler, run in
            let sql = try compiler.select({ _ in "count(*)" }, for: query.unbounded, ordered: false)
            return try run(sql, compiler.arguments).first?.decode(Int64.self) ?? 0
        }
        let afterOffset = max(0, Int(counted) - query.offset)
        return query.limit.map { min($0, afterOffset) } ?? afterOffset
    }

    /// The groups, computed by one statement as on SQLite (``SQLiteStore/fetchAggregates(_:)``).
    /// The grouping selects the text forms of each text key and text `@min`/`@max` beside it, for
    /// the having-predicate's `[c]`/`[d]` and the string sorts; on other computed text those are
    /// refused.
    public func fetchAggregates(_ request: CheckedAggregateRequest) throws -> [[AttributeValue]] {
        let resultsSchema = StoreSchema(model: request.resultsModel)
        guard let table = resultsSchema.tables.first else {
            throw StoreError(.unknownEntity, "no table for the aggregate results")
        }
        var results = FetchRequest(entityName: request.results.name, predicate: request.having?.predicate,
                                   sortDescriptors: request.sortDescriptors.map(\.descriptor))
        results.fetchLimit = request.limit ?? 0
        results.fetchOffset = request.offset
        let selection = table.columns.map { "\"t\".\(quoted($0.name))" }.joined(separator: ", ")
        let types = request.results.attributes.map(\.type)
        return try reading("aggregating \(request.entity.name)") { inner, run in
            let grouping = try inner.grouping(request)
            // The groups are no table to read texts from: the outer statement reads none.
            var outer = QueryCompiler(schema: resultsSchema, model: request.resultsModel, dialect: .postgres)
            outer.textFormAttributes = inner.groupTextForms
            // The outer statement's parameters follow the grouping's: its markers are renumbered.
            outer.skipParameters(inner.arguments.count)
            let sql = try outer.select({ _ in selection }, for: try StoreQuery(results, model: request.resultsModel), from: "(\(grouping))")
            return try run(sql, inner.arguments + outer.arguments).map { row in
                try zip(row, types).enumerated().map { index, cell in
                    guard let value = PostgresValues.readAggregate(cell.0, as: cell.1) else {
                        throw StoreError(.corruptValue, "aggregating \(request.entity.name): \(request.columns[index].key) is "
                            + "\(PostgresValues.describe(cell.0)), which is not a value of type \(cell.1.rawValue); a stored value is damaged")
                    }
                    return value
                }
            }
        }
    }

    public func fetchBeforeWriting(_ entity: Entity, attributes: [String], keys: [[AttributeValue]]) throws -> [RowSnapshot] {
        try read("finding \(entity.name) by \(attributes.joined(separator: ", "))") { connection in
            try keyLookup(entity, attributes: attributes, keys: keys).rows { Array(try connection.answer($0).rows) }
        }
    }

    /// The statements finding rows by key (``keyLookup(_:attributes:keys:)``), and how to read
    /// their rows.
    struct KeyLookup {
        let plan: PostgresReadPlan
        let defaultEntity: String
        let statements: [PostgresQuery]

        /// The rows of every statement, each run by `run`.
        func rows(_ run: (PostgresQuery) throws -> [PostgresRow]) throws -> [RowSnapshot] {
            var rows: [RowSnapshot] = []
            for statement in statements {
                for row in try run(statement) {
                    rows.append(try plan.snapshot(from: row, defaultEntity: defaultEntity))
                }
            }
            return rows
        }
    }

    /// The statements reading the rows of `entity`'s hierarchy whose `attributes` hold one of
    /// `keys`, 500 keys a statement, their values bound; none when there is nothing to find.
    func keyLookup(_ entity: Entity, attributes: [String], keys: [[AttributeValue]]) throws -> KeyLookup {
        let layout = try schema.layout(of: entity.name)
        let plan = try readPlan(for: layout)
        guard !attributes.isEmpty else { return KeyLookup(plan: plan, defaultEntity: layout.entity.name, statements: []) }
        let selection = plan.selections.t
        let columns = "(" + attributes.map { "\"t\".\(quoted($0))" }.joined(separator: ", ") + ")"
        var statements: [PostgresQuery] = []
        for start in stride(from: 0, to: keys.count, by: 500) {
            var bindings = PostgresBindings()
            var tuples: [String] = []
            var parameter = 0
            for key in keys[start..<min(start + 500, keys.count)] {
                for value in key { try PostgresValues.bind(value, to: &bindings) }
                tuples.append("(" + ((parameter + 1)...(parameter + key.count)).map { "$\($0)" }.joined(separator: ", ") + ")")
                parameter += key.count
            }
            let sql = "SELECT \(selection) FROM \(quoted(layout.table)) AS \"t\" WHERE \(columns) IN (\(tuples.joined(separator: ", ")))"
            statements.append(PostgresQuery(unsafeSQL: sql, binds: bindings))
        }
        return KeyLookup(plan: plan, defaultEntity: layout.entity.name, statements: statements)
    }

    public func rows(for ids: [ObjectID]) throws -> [RowSnapshot] {
        var byTable: [String: (layout: StoreSchema.EntityLayout, keys: [Int64])] = [:]
        for id in ids {
            guard let pk = id.primaryKey else { continue }
            let layout = try schema.layout(of: id.rootEntityName)
            byTable[layout.table, default: (layout, [])].keys.append(pk)
        }
        var rows: [RowSnapshot] = []
        for (table, group) in byTable.sorted(by: { $0.key < $1.key }) {
            let plan = try readPlan(for: group.layout)
            let selection = plan.selections.t
            for start in stride(from: 0, to: group.keys.count, by: 1000) {
                let slice = group.keys[start..<min(start + 1000, group.keys.count)]
                let sql = "SELECT \(selection) FROM \(quoted(table)) AS \"t\" WHERE \"t\".\"_pk\" IN (\((1...slice.count).map { "$\($0)" }.joined(separator: ", ")))"
                rows += try snapshots("reading \(ids.count) objects", plan: plan, sql: sql, slice.map { .integer($0) },
                                      defaultEntity: group.layout.entity.name)
            }
        }
        return rows
    }

    public func row(for id: ObjectID) throws -> RowSnapshot? {
        guard id.primaryKey != nil else { return nil }
        let layout = try schema.layout(of: id.entityName)
        return try rows(for: [id]).first { layout.entityNames.contains($0.objectID.entityName) }
    }

    public func fetchRelated(_ relationship: String, of ids: [ObjectID]) throws -> [ObjectID: [RowSnapshot]] {
        let owners = Dictionary(ids.compactMap { id in id.primaryKey.map { ($0, id) } }, uniquingKeysWith: { a, _ in a })
        guard let first = ids.first(where: { $0.primaryKey != nil }) else { return [:] }
        let source = try schema.layout(of: first.entityName).entity
        let (destination, owner, from, order) = try schema.related(relationship, of: source)
        let plan = try readPlan(for: destination)
        let selection = plan.selections.d
        var related: [ObjectID: [RowSnapshot]] = [:]
        let keys = owners.keys.sorted()
        for start in stride(from: 0, to: keys.count, by: 1000) {
            let slice = keys[start..<min(start + 1000, keys.count)]
            let marks = (1...slice.count).map { "$\($0)" }.joined(separator: ", ")
            let sql = "SELECT \(owner), \(selection) FROM \(from) WHERE \(owner) IN (\(marks)) ORDER BY \(order)"
            try read("reading \(source.name).\(relationship) of \(ids.count) objects") { connection in
                for row in try connection.answer(Self.statement(sql, slice.map { .integer($0) })).rows {
                    guard let ownerKey = try row.first?.decode(Int64.self), let id = owners[ownerKey] else { continue }
                    related[id, default: []].append(try plan.snapshot(from: row, defaultEntity: destination.entity.name, base: 1))
                }
            }
        }
        return related
    }
}
