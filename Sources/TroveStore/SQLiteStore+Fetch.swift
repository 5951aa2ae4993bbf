import GRDB
public import TroveModel

/// How to read the rows of one table: the columns to select (then the values of derived
/// attributes, each computed by a correlated subquery) and, for each entity of the hierarchy,
/// where its attributes and foreign keys are among them.
struct ReadPlan: Sendable {
    /// How one entity's values sit in a selected row. A class: each row read takes it, and
    /// copying a struct holding the entity retained each of the entity's parts.
    final class EntityColumns: Sendable {
        let entity: Entity
        /// An ID of the entity, whose `saved(as:)` makes a row's ID without copying the entity.
        let idPrototype: ObjectID
        /// Per attribute, its type and its column's index in the selection; -1 for a transient
        /// attribute, which no column holds.
        let attributes: [(type: AttributeType, column: Int32)]
        /// Per attribute, the value a row gives it when no column holds it (its default).
        let defaults: [AttributeValue]
        /// Per to-one relationship kept in the row: its position, its column's index in the
        /// selection, and an ID of the destination entity (a prototype, as `idPrototype`).
        let foreignKeys: [(relationship: Int, column: Int32, destination: ObjectID)]

        init(entity: Entity, idPrototype: ObjectID, attributes: [(type: AttributeType, column: Int32)],
             foreignKeys: [(relationship: Int, column: Int32, destination: ObjectID)]) {
            self.entity = entity
            self.idPrototype = idPrototype
            self.attributes = attributes
            self.defaults = entity.attributes.map(\.defaultValue)
            self.foreignKeys = foreignKeys
        }
    }

    let table: StoreSchema.Table
    /// The selected column names: `_pk`, `_version`, [`_entity`], attributes, foreign keys.
    let columns: [String]
    /// The derived attributes of the hierarchy, each once (its name and the entity declaring it),
    /// selected after ``columns``.
    let derived: [(entity: Entity, attribute: Attribute)]
    let entities: [String: EntityColumns]
    /// The one entity of a table without a hierarchy: its rows need no lookup by name.
    private let only: EntityColumns?
    /// The selection for the aliases queries use most, built once.
    private let selections: [String: String]
    /// The query of the rows whose primary keys lie between two bound values, in key order.
    let rangeQuery: String

    init(table: StoreSchema.Table, schema: StoreSchema, model: Model) throws {
        self.table = table
        var columns = ["_pk", "_version"]
        if table.hasEntityColumn { columns.append("_entity") }
        columns += table.columns.map(\.name)
        columns += table.foreignKeys.map(\.column)
        self.columns = columns
        let position = Dictionary(columns.enumerated().map { ($1, Int32($0)) }, uniquingKeysWith: { a, _ in a })
        // Each derived attribute once, computed for the entity that declares it (sub-entities
        // inherit it), selected after the columns: `Entity.attribute` -> its index.
        var derived: [(entity: Entity, attribute: Attribute)] = []
        var derivedPosition: [String: Int32] = [:]
        func derivedKey(_ index: Int, of entity: Entity) -> String {
            var declaring = entity
            while let name = declaring.parent, let parent = model.entity(named: name), parent.attributes.count > index { declaring = parent }
            return "\(declaring.name).\(entity.attributes[index].name)"
        }
        for entity in model.entities where schema.layouts[entity.name]?.table == table.name {
            for (index, attribute) in entity.attributes.enumerated() where attribute.isDerived {
                let key = derivedKey(index, of: entity)
                guard derivedPosition[key] == nil else { continue }
                derivedPosition[key] = Int32(columns.count + derived.count)
                derived.append((entity, attribute))
            }
        }
        self.derived = derived
        var entities: [String: EntityColumns] = [:]
        for layout in schema.layouts.values where layout.table == table.name {
            let entity = layout.entity
            var foreignKeys: [(Int, Int32, ObjectID)] = []
            for (index, relationship) in entity.relationships.enumerated() {
                guard case .foreignKey(let column)? = schema.relationshipStorage["\(entity.name).\(relationship.name)"],
                      let at = position[column], let destination = model.entity(named: relationship.destination) else { continue }
                foreignKeys.append((index, at, ObjectID(entity: destination, primaryKey: 0)))
            }
            entities[entity.name] = EntityColumns(
                entity: entity, idPrototype: ObjectID(entity: entity, primaryKey: 0),
                attributes: entity.attributes.enumerated().map { index, attribute in
                    let column = attribute.isDerived ? derivedPosition[derivedKey(index, of: entity)] : attribute.isStored ? position[attribute.name] : nil
                    return (attribute.type, column ?? -1)
                },
                foreignKeys: foreignKeys)
        }
        self.entities = entities
        only = entities.count == 1 ? entities.values.first : nil
        var selections: [String: String] = [:]
        for alias in ["t", "d"] {
            var compiler = QueryCompiler(schema: schema, model: model)
            let values = try derived.map { try compiler.derivedValue(of: $0.attribute, in: $0.entity, at: alias).sql }
            selections[alias] = (columns.map { "\(quoted(alias)).\(quoted($0))" } + values).joined(separator: ", ")
        }
        self.selections = selections
        rangeQuery = "SELECT \(selections["t"] ?? "") FROM \(quoted(table.name)) AS \"t\" WHERE \"t\".\"_pk\" BETWEEN ? AND ? ORDER BY \"t\".\"_pk\""
    }

    /// The selection of rows of the table named `alias` (`t` or `d`): each column, qualified by
    /// `alias`, then each derived value.
    func selection(from alias: String) -> String {
        selections[alias] ?? ""
    }

    /// Decodes the statement's current row, whose selection starts at column `base`;
    /// `defaultEntity` is the entity of tables without an `_entity` column.
    func snapshot(from statement: RawStatement, defaultEntity: String, base: Int32 = 0) throws -> RowSnapshot {
        let pk = statement.int64(at: base)
        let version = statement.int64(at: base + 1)
        let plan: EntityColumns
        if !table.hasEntityColumn, let only {
            plan = only
        } else {
            let entityName = table.hasEntityColumn ? statement.text(at: base + 2) : defaultEntity
            guard let found = entities[entityName] else {
                throw StoreError(.corruptValue,
                    "row \(pk) of table \(table.name) names entity '\(entityName)', which the model does not have below \(table.name)")
            }
            plan = found
        }
        let attributes = plan.attributes
        var values: [AttributeValue] = []
        values.reserveCapacity(attributes.count)
        for position in attributes.indices {
            let column = attributes[position].column
            guard column >= 0 else {
                values.append(plan.defaults[position])
                continue
            }
            guard let value = ValueCoding.read(statement.handle, column: base + column, as: attributes[position].type) else {
                throw plan.corruptValue(at: position, of: pk, in: statement, base: base)
            }
            values.append(value)
        }
        var toOne = [Int: Link]()
        if !plan.foreignKeys.isEmpty {
            toOne.reserveCapacity(plan.foreignKeys.count)
            for (relationship, column, destination) in plan.foreignKeys {
                toOne[relationship] = statement.isNull(at: base + column)
                    ? .empty : .object(destination.saved(as: statement.int64(at: base + column)))
            }
        }
        return RowSnapshot(objectID: plan.idPrototype.saved(as: pk), version: version, values: values, toOne: toOne)
    }
}

extension ReadPlan.EntityColumns {
    /// The error for a column that holds no valid value of its attribute.
    func corruptValue(at position: Int, of pk: Int64, in statement: RawStatement, base: Int32) -> StoreError {
        let (type, column) = attributes[position]
        return StoreError(.corruptValue, """
            \(entity.name)/\(pk): column \(entity.attributes[position].name) holds \(ValueCoding.describeColumn(statement.handle, base + column)), \
            which is not a valid \(type.rawValue); the store was changed outside Trove — fix or clear that value with sqlite3
            """)
    }
}

extension SQLiteStore {
    public func fetch(_ query: StoreQuery) throws -> [RowSnapshot] {
        let layout = try schema.layout(of: query.entity.name)
        let plan = try readPlan(for: layout)
        let statement = try compiledFetch(query, selecting: .objects)
        // One statement reads one consistent snapshot: no transaction around it is needed.
        return try read("fetching \(query.entity.name)") { source in
            try self.rows(of: plan, sql: statement.sql, defaultEntity: layout.entity.name, in: source) { try $0.bind(statement.arguments) }
        }
    }

    /// Reads on the writing connection (waiting for a write in progress), so that a write
    /// right after finds the pages it needs in that connection's cache; a reader connection's
    /// cache goes stale at every commit.
    public func fetchBeforeWriting(_ entity: Entity, attributes: [String], keys: [[AttributeValue]]) throws -> [RowSnapshot] {
        guard !keys.isEmpty, !attributes.isEmpty else { return [] }
        return try SQLiteStore.mapErrors("finding \(entity.name) by \(attributes.joined(separator: ", "))") {
            try writer.writeWithoutTransaction { db in try rows(of: entity, attributes: attributes, keys: keys, in: db) }
        }
    }

    public func fetchAhead(_ entity: Entity, attributes: [String], keys: [[AttributeValue]]) throws -> [RowSnapshot] {
        guard !keys.isEmpty, !attributes.isEmpty else { return [] }
        // One read transaction: every slice reads the same snapshot.
        return try read("finding \(entity.name) by \(attributes.joined(separator: ", "))", consistently: true) { source in
            try rows(of: entity, attributes: attributes, keys: keys, in: source)
        }
    }

    /// The rows of `entity`'s hierarchy whose `attributes` hold one of `keys`, read on `db`.
    private func rows(of entity: Entity, attributes: [String], keys: [[AttributeValue]], in source: some StatementSource) throws -> [RowSnapshot] {
        let layout = try schema.layout(of: entity.name)
        let plan = try readPlan(for: layout)
        let columns = attributes.map { "\"t\".\(quoted($0))" }
        let tuple = "(\(placeholders(attributes.count)))"
        var snapshots: [RowSnapshot] = []
        // In slices of at most 512 keys, each padded (with its last key) to a power of
        // two: a handful of distinct statements, prepared once and cached.
        for start in stride(from: 0, to: keys.count, by: 512) {
            let slice = keys[start..<min(start + 512, keys.count)]
            let width = 1 << (Int.bitWidth - (slice.count - 1).leadingZeroBitCount)
            let test = attributes.count == 1
                ? "\(columns[0]) IN (\(placeholders(width)))"
                : "(\(columns.joined(separator: ", "))) IN (VALUES \(String(repeating: tuple + ", ", count: width - 1))\(tuple))"
            let sql = "SELECT \(plan.selection(from: "t")) FROM \(quoted(layout.table)) AS \"t\" WHERE \(test)"
            let padding = repeatElement(slice[slice.endIndex - 1], count: width - slice.count)
            snapshots += try self.rows(of: plan, sql: sql, defaultEntity: layout.entity.name, in: source) {
                try $0.bind((slice + padding).joined())
            }
        }
        return snapshots
    }

    public func fetchObjectIDs(_ query: StoreQuery) throws -> ObjectIDList {
        let layout = try schema.layout(of: query.entity.name)
        let statement = try compiledFetch(query, selecting: .objectIDs)
        let entities = Dictionary(uniqueKeysWithValues: model.entities.map { ($0.name, $0) })
        return try read("fetching \(query.entity.name)") { source in
            try source.withStatement(statement.sql) { raw in
                try raw.bind(statement.arguments)
                var ids = ObjectIDList(entity: layout.entity)
                while try raw.step() {
                    if layout.hasEntityColumn {
                        ids.append(raw.int64(at: 0), of: entities[raw.text(at: 1)] ?? layout.entity)
                    } else {
                        ids.append(raw.int64(at: 0))
                    }
                }
                return ids
            }
        }
    }

    public func count(_ query: StoreQuery) throws -> Int {
        var compiler = QueryCompiler(schema: schema, model: model)
        let sql = try compiler.select({ _ in "count(*)" }, for: query.unbounded, ordered: false)
        let counted = try read("counting \(query.entity.name)") { source in
            try source.withStatement(sql) { statement in
                try statement.bind(compiler.arguments)
                return try statement.step() ? Int(statement.int64(at: 0)) : 0
            }
        }
        let afterOffset = max(0, counted - query.offset)
        return query.limit.map { min($0, afterOffset) } ?? afterOffset
    }

    public func rows(for ids: [ObjectID]) throws -> [RowSnapshot] {
        var byTable: [String: (layout: StoreSchema.EntityLayout, keys: [Int64])] = [:]
        // IDs come in runs of one hierarchy: its layout is looked up, and its keys filed, once per run.
        var run: (root: String, layout: StoreSchema.EntityLayout, keys: [Int64])?
        func file(_ run: (root: String, layout: StoreSchema.EntityLayout, keys: [Int64])) {
            byTable[run.layout.table, default: (run.layout, [])].keys += run.keys
        }
        for id in ids {
            guard let pk = id.primaryKey else { continue }
            if run?.root == id.rootEntityName {
                run?.keys.append(pk)
            } else {
                if let run { file(run) }
                run = (id.rootEntityName, try schema.layout(of: id.rootEntityName), [pk])
            }
        }
        if let run { file(run) }
        // Several statements read one snapshot.
        let runs = byTable.mapValues { PrimaryKeyRuns($0.keys) }
        let statements = runs.values.reduce(0) { $0 + $1.ranges.count + ($1.lookups.count + 499) / 500 }
        return try read("reading \(ids.count) objects", consistently: statements > 1) { source in
            var snapshots: [RowSnapshot] = []
            snapshots.reserveCapacity(ids.count)
            for (table, group) in byTable.sorted(by: { $0.key < $1.key }) {
                let plan = try readPlan(for: group.layout)
                let entity = group.layout.entity.name
                let runs = runs[table] ?? PrimaryKeyRuns([])
                // Dense runs by range, in key order, skipping the rows not asked for.
                for run in runs.ranges {
                    try source.withStatement(plan.rangeQuery) { statement in
                        try statement.bind(run[run.startIndex], at: 1)
                        try statement.bind(run[run.endIndex - 1], at: 2)
                        var next = run.startIndex
                        while try statement.step() {
                            let pk = statement.int64(at: 0)
                            while next < run.endIndex, run[next] < pk { next += 1 }
                            guard next < run.endIndex, run[next] == pk else { continue }
                            snapshots.append(try plan.snapshot(from: statement, defaultEntity: entity))
                        }
                    }
                }
                // The rest by key, in slices well under SQLite's limit of parameters per statement.
                for start in stride(from: 0, to: runs.lookups.count, by: 500) {
                    let slice = runs.lookups[start..<min(start + 500, runs.lookups.count)]
                    let sql = "SELECT \(plan.selection(from: "t")) FROM \(quoted(table)) AS \"t\" WHERE \"t\".\"_pk\" IN (\(placeholders(slice.count)))"
                    snapshots += try rows(of: plan, sql: sql, defaultEntity: entity, in: source) {
                        try $0.bind(slice.map { .integer($0) })
                    }
                }
            }
            return snapshots
        }
    }

    public func row(for id: ObjectID) throws -> RowSnapshot? {
        guard let pk = id.primaryKey else { return nil }
        let layout = try schema.layout(of: id.entityName)
        let plan = try readPlan(for: layout)
        let sql = "SELECT \(plan.selection(from: "t")) FROM \(quoted(layout.table)) AS \"t\" WHERE \"t\".\(quoted("_pk")) = ?"
        return try read("reading \(id)") { source in
            let rows = try rows(of: plan, sql: sql, defaultEntity: layout.entity.name, in: source) { try $0.bind(pk, at: 1) }
            return rows.first { layout.entityNames.contains($0.objectID.entityName) }
        }
    }

    public func fetchRelated(_ relationship: String, of ids: [ObjectID]) throws -> [ObjectID: [RowSnapshot]] {
        let owners = Dictionary(ids.compactMap { id in id.primaryKey.map { ($0, id) } }, uniquingKeysWith: { a, _ in a })
        guard let first = ids.first(where: { $0.primaryKey != nil }) else { return [:] }
        let source = try schema.layout(of: first.entityName).entity
        let (destination, owner, from, order) = try schema.related(relationship, of: source)
        let plan = try readPlan(for: destination)
        return try read("reading \(source.name).\(relationship) of \(ids.count) objects", consistently: owners.count > 500) { reader in
            var related: [ObjectID: [RowSnapshot]] = [:]
            let keys = Array(owners.keys).sorted()
            for start in stride(from: 0, to: keys.count, by: 500) {
                let slice = keys[start..<min(start + 500, keys.count)]
                let marks = placeholders(slice.count)
                let sql = "SELECT \(owner), \(plan.selection(from: "d")) FROM \(from) WHERE \(owner) IN (\(marks)) ORDER BY \(order)"
                try reader.withStatement(sql) { statement in
                    try statement.bind(slice.map { .integer($0) })
                    while try statement.step() {
                        guard let id = owners[statement.int64(at: 0)] else { continue }
                        related[id, default: []].append(
                            try plan.snapshot(from: statement, defaultEntity: destination.entity.name, base: 1))
                    }
                }
            }
            return related
        }
    }

    // MARK: Helpers

    func readPlan(for layout: StoreSchema.EntityLayout) throws -> ReadPlan {
        guard let plan = readPlans[layout.table] else {
            throw StoreError(.unknownEntity, "no table for entity '\(layout.entity.name)'")
        }
        return plan
    }

    /// Runs a SELECT of `plan`'s columns and decodes every row.
    func rows(of plan: ReadPlan, sql: String, defaultEntity: String, in source: some StatementSource,
              binding bind: (RawStatement) throws -> Void) throws -> [RowSnapshot] {
        try source.withStatement(sql) { statement in
            try bind(statement)
            var snapshots: [RowSnapshot] = []
            while try statement.step() {
                snapshots.append(try plan.snapshot(from: statement, defaultEntity: defaultEntity))
            }
            return snapshots
        }
    }
}
