import TroveModel

/// How the tables of a store change from the stored model's layout to the new model's: which
/// tables are created, altered in place, rebuilt or dropped, where each column's values come
/// from, and which links move to another kind of storage.
///
/// A table is altered in place (SQLite's `ALTER TABLE … ADD COLUMN`, `RENAME COLUMN`) when every
/// stored column and foreign key stays, with its SQL type and destination; otherwise it is rebuilt
/// (SQLite's twelve-step procedure: create the new table, copy the rows keeping their `_pk`, drop
/// the old one, rename the new one). Unique indexes are dropped and created to match.
struct MigrationLayout {
    /// One table of the new layout.
    struct TableWork {
        let table: StoreSchema.Table
        /// The stored table the rows come from; `nil` for a new table.
        let oldTable: StoreSchema.Table?
        /// Whether the table is rebuilt (else created, when there is no old table, or altered).
        let rebuild: Bool
        /// Each new column's source column in the old table (attribute columns and foreign keys).
        let sources: [String: String]
        /// The old names of the hierarchy's entities whose rows are kept; `nil` keeps every row.
        let keptEntities: [String]?
        /// The `_entity` value of the copied rows, over the old table; `nil` without the column.
        let entityExpression: String?
        /// The table's name while it is built: its own, unless a stored table has that name.
        let buildName: String
    }

    /// A join table of the new layout.
    struct JoinWork {
        let join: StoreSchema.JoinTable
        /// Whether the stored join table of this name is kept as it is.
        let kept: Bool
        /// The links to copy in (`src`, `dst`, `pos` over the old tables) when not kept.
        let links: String?

        var buildName: String { kept ? join.name : "_migrating_\(join.name)" }
    }

    /// A foreign-key column filled from links kept elsewhere in the stored layout.
    struct LinkFill {
        let table: String
        let column: String
        let links: String
    }

    let tables: [TableWork]
    let joins: [JoinWork]
    let linkFills: [LinkFill]
    /// Old tables (entity tables and join tables) that no new table keeps as it is.
    let droppedTables: [String]
    /// Whether rows of some entity are deleted (an entity removed from a hierarchy that stays),
    /// so links to them must be cleared.
    let deletesRows: Bool

    init(mapping: MigrationMapping, old: StoreSchema, new: StoreSchema) {
        let oldTables = Dictionary(old.tables.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var tables: [TableWork] = []
        var deletesRows = false
        for table in new.tables {
            let oldRoot = mapping.oldEntity(of: table.name).flatMap { $0.parent == nil ? $0 : nil }
            guard let oldRoot, let oldTable = oldTables[oldRoot.name] else {
                let buildName = oldTables[table.name] == nil ? table.name : "_migrating_\(table.name)"
                tables.append(TableWork(table: table, oldTable: nil, rebuild: false, sources: [:], keptEntities: nil,
                                        entityExpression: nil, buildName: buildName))
                continue
            }
            let work = Self.tableWork(table, from: oldTable, oldRoot: oldRoot, mapping: mapping, old: old, new: new)
            deletesRows = deletesRows || work.keptEntities != nil
            tables.append(work)
        }
        var joins: [JoinWork] = []
        var fills: [LinkFill] = []
        for entity in mapping.new.entities {
            let inherited = entity.parent.flatMap { mapping.new.entity(named: $0) }?.relationships.count ?? 0
            for relationship in entity.relationships.dropFirst(inherited) {
                guard let storage = new.relationshipStorage["\(entity.name).\(relationship.name)"] else { continue }
                let oldLinks = Self.oldLinks(of: relationship, in: entity, mapping: mapping, old: old)
                switch storage {
                case .foreignKey(let column):
                    let work = tables.first { $0.table.name == entity.rootName }
                    if let oldLinks, work?.sources[column] == nil {
                        fills.append(LinkFill(table: work?.buildName ?? entity.rootName, column: column, links: oldLinks.select))
                    }
                case .joinTable(let name, true):
                    guard let join = new.joinTables.first(where: { $0.name == name }) else { continue }
                    let oldJoin = old.joinTables.first { $0.name == name }
                    let kept = oldLinks?.storage == .joinTable(name: name, sourceIsFirst: true)
                        && oldJoin.map { $0.isOrdered == join.isOrdered && $0.sourceTable == join.sourceTable
                            && $0.destinationTable == join.destinationTable } == true
                    joins.append(JoinWork(join: join, kept: kept, links: kept ? nil : oldLinks?.select))
                default:
                    break
                }
            }
        }
        let keptTables = Set(tables.filter { $0.oldTable != nil && !$0.rebuild }.map { $0.oldTable?.name ?? "" })
            .union(joins.filter(\.kept).map(\.join.name))
        self.droppedTables = (old.tables.map(\.name) + old.joinTables.map(\.name)).filter { !keptTables.contains($0) }
        self.tables = tables
        self.joins = joins
        self.linkFills = fills
        self.deletesRows = deletesRows
    }

    /// The new table `table`, whose rows were in `oldTable`: where each column comes from, and
    /// whether it must be rebuilt.
    private static func tableWork(_ table: StoreSchema.Table, from oldTable: StoreSchema.Table, oldRoot: Entity,
                                  mapping: MigrationMapping, old: StoreSchema, new: StoreSchema) -> TableWork {
        let hierarchy = ([table.name] + (mapping.new.entity(named: table.name)?.subentityNames ?? [])).compactMap { mapping.new.entity(named: $0) }
        // Attribute columns: by renamedFrom, then by name, among the old table's columns.
        var declared: [Attribute] = []
        var seen: Set<String> = []
        for entity in hierarchy {
            for attribute in entity.attributes where attribute.isStored && seen.insert(attribute.name).inserted {
                declared.append(attribute)
            }
        }
        var sources = MigrationMapping.match(declared, among: Set(oldTable.columns.map(\.name)), name: \.name, renamedFrom: \.renamedFrom)
        // Foreign keys kept by the same relationship, in the same kind of storage.
        for entity in hierarchy {
            for relationship in entity.relationships {
                guard case .foreignKey(let column)? = new.relationshipStorage["\(entity.name).\(relationship.name)"],
                      let oldEntity = mapping.oldEntity(of: entity.name),
                      let oldRelationship = mapping.oldRelationship(relationship.name, of: entity.name),
                      case .foreignKey(let oldColumn)? = old.relationshipStorage["\(oldEntity.name).\(oldRelationship.name)"],
                      oldTable.foreignKeys.contains(where: { $0.column == oldColumn }) else { continue }
                sources[column] = oldColumn
            }
        }
        let oldHierarchy = [oldRoot.name] + oldRoot.subentityNames
        let kept = oldHierarchy.filter { mapping.newEntity(of: $0) != nil }
        let renamed = oldHierarchy.contains { mapping.newEntityName[$0] != $0 }
        var entityExpression: String?
        if table.hasEntityColumn {
            entityExpression = oldTable.hasEntityColumn
                ? "CASE \(quoted("_entity")) " + kept.map { "WHEN \(sqlStringLiteral($0)) THEN \(sqlStringLiteral(mapping.newEntityName[$0] ?? $0))" }.joined(separator: " ") + " END"
                : sqlStringLiteral(table.name)
        }
        let oldTypes = Dictionary(oldTable.columns.map { ($0.name, ValueCoding.columnType(of: $0.type)) }, uniquingKeysWith: { a, _ in a })
        let keptColumns = Set(sources.values)
        let typesKept = table.columns.allSatisfy { column in
            sources[column.name].map { oldTypes[$0] == ValueCoding.columnType(of: column.type) } ?? true
        }
        let keysKept = oldTable.foreignKeys.allSatisfy { fk in
            table.foreignKeys.contains { sources[$0.column] == fk.column && $0.destinationTable == fk.destinationTable }
        }
        let oldNames = oldTable.columns.map(\.name) + oldTable.foreignKeys.map(\.column)
        // A rename onto a name the old table still uses (a swap) cannot be done column by column.
        let renamesCollide = sources.contains { new, old in new != old && oldNames.contains(new) }
        let rebuild = table.name != oldTable.name || oldNames.contains { !keptColumns.contains($0) } || !typesKept || !keysKept
            || renamesCollide || table.hasEntityColumn != oldTable.hasEntityColumn || (table.hasEntityColumn && renamed)
            || kept.count != oldHierarchy.count
        return TableWork(table: table, oldTable: oldTable, rebuild: rebuild, sources: sources,
                         keptEntities: kept.count == oldHierarchy.count ? nil : kept, entityExpression: entityExpression,
                         buildName: rebuild || table.name != oldTable.name ? "_migrating_\(table.name)" : table.name)
    }

    /// The stored links of the relationship (or of its inverse, turned around): their storage,
    /// and a query of them as `src`, `dst`, `pos` over the old tables.
    private static func oldLinks(of relationship: Relationship, in entity: Entity, mapping: MigrationMapping,
                                 old: StoreSchema) -> (storage: StoreSchema.RelationshipStorage, select: String)? {
        if let oldEntity = mapping.oldEntity(of: entity.name),
           let oldRelationship = mapping.oldRelationship(relationship.name, of: entity.name),
           let storage = old.relationshipStorage["\(oldEntity.name).\(oldRelationship.name)"] {
            return (storage, select(storage, in: oldEntity, old: old))
        }
        guard let inverse = relationship.inverse, let destination = mapping.new.entity(named: relationship.destination),
              let oldDestination = mapping.oldEntity(of: destination.name),
              let oldInverse = mapping.oldRelationship(inverse, of: destination.name),
              let storage = old.relationshipStorage["\(oldDestination.name).\(oldInverse.name)"] else { return nil }
        let inner = select(storage, in: oldDestination, old: old)
        return (storage, "SELECT dst AS src, src AS dst, pos FROM (\(inner))")
    }

    private static func select(_ storage: StoreSchema.RelationshipStorage, in entity: Entity, old: StoreSchema) -> String {
        let pk = quoted("_pk")
        switch storage {
        case .foreignKey(let column):
            return "SELECT \(pk) AS src, \(quoted(column)) AS dst, 0 AS pos FROM \(quoted(entity.rootName)) WHERE \(quoted(column)) IS NOT NULL"
        case .inverseForeignKey(let table, let column):
            return "SELECT \(quoted(column)) AS src, \(pk) AS dst, 0 AS pos FROM \(quoted(table)) WHERE \(quoted(column)) IS NOT NULL"
        case .joinTable(let name, let sourceIsFirst):
            let ordered = old.joinTables.first { $0.name == name }?.isOrdered == true
            let (src, dst) = sourceIsFirst ? ("source", "target") : ("target", "source")
            return "SELECT \(quoted(src)) AS src, \(quoted(dst)) AS dst, \(ordered ? quoted("position") : "0") AS pos FROM \(quoted(name))"
        }
    }
}
