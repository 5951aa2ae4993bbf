package import TroveModel

/// How a model is laid out in SQLite tables: one table per inheritance hierarchy, named after
/// its root entity, with a column per stored attribute (named as the attribute; transient and
/// derived attributes have none), Trove's own columns
/// `_pk`, `_version` and (for hierarchies of more than one entity) `_entity`, a foreign-key
/// column per to-one relationship that holds the link, and a join table per relationship that
/// needs one.
package struct StoreSchema: Sendable {
    /// One table of the store.
    package struct Table: Sendable {
        package let name: String
        /// Whether rows say which entity of the hierarchy they belong to (`_entity` column).
        package let hasEntityColumn: Bool
        /// Attribute columns of the whole hierarchy, root's first.
        package let columns: [Column]
        /// Foreign-key columns, one per to-one relationship that holds its link here.
        package let foreignKeys: [ForeignKey]
        /// Unique constraints: column names, and the entities whose rows they apply to
        /// (`nil` for every row of the table).
        package let uniqueConstraints: [(columns: [String], entities: [String]?)]
    }

    package struct Column: Sendable {
        package let name: String
        package let type: AttributeType
    }

    package struct ForeignKey: Sendable {
        package let column: String
        package let destinationTable: String
    }

    /// A table linking the objects of a to-many relationship (and its inverse, if any).
    package struct JoinTable: Sendable {
        package let name: String
        package let sourceTable: String
        package let destinationTable: String
        package let isOrdered: Bool
    }

    /// Where an entity's rows live and how to read them.
    package struct EntityLayout: Sendable {
        package let entity: Entity
        package let table: String
        package let hasEntityColumn: Bool
        /// The entity and its sub-entities: the `_entity` values of a fetch that includes them.
        package let entityNames: [String]
    }

    /// Where a relationship's links are kept.
    package enum RelationshipStorage: Sendable, Equatable {
        /// A foreign-key column of the source entity's table.
        case foreignKey(column: String)
        /// The other side's foreign-key column (this side is the to-many of a one-to-many).
        case inverseForeignKey(table: String, column: String)
        /// A join table; `sourceIsFirst` says whether this side's objects are in its `source` column.
        case joinTable(name: String, sourceIsFirst: Bool)
    }

    package let tables: [Table]
    package let joinTables: [JoinTable]
    package let layouts: [String: EntityLayout]
    package let relationshipStorage: [String: RelationshipStorage]  // key "Entity.relationship"

    package init(model: Model) {
        var relationshipStorage: [String: RelationshipStorage] = [:]
        var joinTables: [JoinTable] = []
        var foreignKeysByTable: [String: [ForeignKey]] = [:]

        for entity in model.entities {
            for (index, relationship) in entity.relationships.enumerated() {
                // Decide by the entity that declares the relationship, so that sub-entities
                // inheriting it share the same storage.
                let owner = StoreSchema.declaringEntity(ofRelationshipAt: index, in: entity, model: model)
                guard let destination = model.entity(named: relationship.destination) else { continue }
                let inverse = relationship.inverse.flatMap { destination.relationship(named: $0) }
                let storage = StoreSchema.storage(of: relationship, in: owner, inverse: inverse, destination: destination)
                relationshipStorage["\(entity.name).\(relationship.name)"] = storage
                guard owner.name == entity.name else { continue }
                switch storage {
                case .foreignKey(let column):
                    foreignKeysByTable[entity.rootName, default: []].append(
                        ForeignKey(column: column, destinationTable: destination.rootName))
                case .joinTable(let name, let sourceIsFirst) where sourceIsFirst:
                    joinTables.append(JoinTable(name: name, sourceTable: entity.rootName,
                                                destinationTable: destination.rootName,
                                                isOrdered: relationship.isOrdered || inverse?.isOrdered == true))
                default:
                    break
                }
            }
        }

        var tables: [Table] = []
        var layouts: [String: EntityLayout] = [:]
        for root in model.rootEntities {
            let hierarchy = [root] + root.subentityNames.compactMap { model.entity(named: $0) }
            var columns: [Column] = []
            var seen: Set<String> = []
            for entity in hierarchy {
                for attribute in entity.attributes where attribute.isStored && seen.insert(attribute.name).inserted {
                    columns.append(Column(name: attribute.name, type: attribute.type))
                }
            }
            var uniqueConstraints: [(columns: [String], entities: [String]?)] = []
            var seenConstraints: Set<[String]> = []
            for entity in hierarchy {
                for constraint in entity.uniqueBy where seenConstraints.insert(constraint).inserted {
                    let scope = entity.parent == nil ? nil : [entity.name] + entity.subentityNames
                    uniqueConstraints.append((constraint, scope))
                }
            }
            let hasEntityColumn = hierarchy.count > 1
            tables.append(Table(name: root.name, hasEntityColumn: hasEntityColumn, columns: columns,
                                foreignKeys: foreignKeysByTable[root.name] ?? [],
                                uniqueConstraints: uniqueConstraints))
            for entity in hierarchy {
                layouts[entity.name] = EntityLayout(entity: entity, table: root.name, hasEntityColumn: hasEntityColumn,
                                                    entityNames: [entity.name] + entity.subentityNames)
            }
        }
        self.tables = tables
        self.joinTables = joinTables
        self.layouts = layouts
        self.relationshipStorage = relationshipStorage
    }

    /// The ancestor (or the entity itself) that declares the relationship at `index`: resolved
    /// relationship lists start with the parent's, so it is the topmost ancestor whose list
    /// reaches that far.
    private static func declaringEntity(ofRelationshipAt index: Int, in entity: Entity, model: Model) -> Entity {
        var declaring = entity
        var current = entity
        while let parentName = current.parent, let parent = model.entity(named: parentName) {
            if parent.relationships.count > index { declaring = parent }
            current = parent
        }
        return declaring
    }

    /// Decides where a relationship's links are kept. Both sides of a pair decide the same way:
    /// a to-one facing an unordered to-many (or nothing) holds a foreign key; a one-to-one keeps
    /// its key on the side whose `Entity.relationship` name sorts first; everything else
    /// (many-to-many, ordered, to-many without inverse) uses a join table owned by the ordered
    /// side, or else by the side whose name sorts first.
    private static func storage(
        of relationship: Relationship, in entity: Entity, inverse: Relationship?, destination: Entity
    ) -> RelationshipStorage {
        let this = "\(entity.name).\(relationship.name)"
        let other = inverse.map { "\(destination.name).\($0.name)" }
        let thisSideFirst: Bool
        switch (relationship.isOrdered, inverse?.isOrdered ?? false) {
        case (true, false): thisSideFirst = true
        case (false, true): thisSideFirst = false
        default: thisSideFirst = other.map { this <= $0 } ?? true
        }
        switch (relationship.isToMany, inverse) {
        case (false, nil):
            return .foreignKey(column: relationship.name)
        case (false, let inv?) where !inv.isToMany:
            return thisSideFirst ? .foreignKey(column: relationship.name)
                : .inverseForeignKey(table: destination.rootName, column: inv.name)
        case (false, let inv?) where !inv.isOrdered:
            return .foreignKey(column: relationship.name)
        case (true, let inv?) where !inv.isToMany && !relationship.isOrdered:
            return .inverseForeignKey(table: destination.rootName, column: inv.name)
        default:
            guard let other, !thisSideFirst else {
                return .joinTable(name: "_join_\(entity.name)_\(relationship.name)", sourceIsFirst: true)
            }
            let owner = other.split(separator: ".").joined(separator: "_")
            return .joinTable(name: "_join_\(owner)", sourceIsFirst: false)
        }
    }

    /// Where the relationship `name` of `entity` keeps its links.
    package func storage(of name: String, in entity: Entity) throws -> RelationshipStorage {
        guard let storage = relationshipStorage["\(entity.name).\(name)"] else {
            throw StoreError(.unknownEntity, "entity '\(entity.name)' has no relationship '\(name)'")
        }
        return storage
    }

    /// Whether a delete rule of the entities whose rows `query` may select needs the rows to
    /// delete gathered first: a `cascade` or `deny` rule, or a `nullify` rule that raises
    /// versions on the other side (see ``nullifyRaisesVersions(_:in:)``). Without one, a batch
    /// delete is one `DELETE`, the schema's foreign-key actions doing the rest.
    package func deleteRulesNeedRows(_ query: StoreQuery, in model: Model) throws -> Bool {
        let entities = [query.entity] + (query.includesSubentities ? query.entity.subentityNames.compactMap { model.entity(named: $0) } : [])
        for entity in entities {
            for relationship in entity.relationships {
                switch relationship.deleteRule {
                case .cascade, .deny: return true
                case .nullify: if try nullifyRaisesVersions(relationship, in: model) { return true }
                case .noAction: continue
                }
            }
        }
        return false
    }

    /// Whether emptying `relationship` (a `nullify` rule) changes the rows on the other side, as
    /// a save through objects writes them: when the inverse link is kept in those rows' own
    /// foreign-key column, or in join rows they own.
    package func nullifyRaisesVersions(_ relationship: Relationship, in model: Model) throws -> Bool {
        guard let inverseName = relationship.inverse, let destination = model.entity(named: relationship.destination) else { return false }
        switch try storage(of: inverseName, in: destination) {
        case .foreignKey, .joinTable(_, true): return true
        case .inverseForeignKey, .joinTable(_, false): return false
        }
    }

    /// How to read the objects `relationship` reaches from rows of `source`, in every store: the
    /// owner's key (to select first), a FROM clause naming the related rows `d`, and their
    /// order (an ordered relationship's positions, otherwise stored order).
    package func related(_ relationship: String, of source: Entity) throws
        -> (destination: EntityLayout, owner: String, from: String, order: String) {
        guard let declared = source.relationship(named: relationship) else {
            throw StoreError(.unknownEntity, "entity '\(source.name)' has no relationship '\(relationship)'")
        }
        let destination = try layout(of: declared.destination)
        let sourceTable = try layout(of: source.name).table
        switch try storage(of: relationship, in: source) {
        case .foreignKey(let column):
            return (destination, "\"o\".\"_pk\"",
                    "\(quoted(sourceTable)) AS \"o\" JOIN \(quoted(destination.table)) AS \"d\" ON \"d\".\"_pk\" = \"o\".\(quoted(column))", "\"d\".\"_pk\"")
        case .inverseForeignKey(let table, let column):
            return (destination, "\"d\".\(quoted(column))", "\(quoted(table)) AS \"d\"", "\"d\".\"_pk\"")
        case .joinTable(let name, let sourceIsFirst):
            let (mine, other) = sourceIsFirst ? ("source", "target") : ("target", "source")
            // The join table holds its source side's order only: the other side (unordered, or
            // the second of two ordered sides) reads in stored order, as an unordered to-many does.
            let ordered = sourceIsFirst && joinTables.first { $0.name == name }?.isOrdered == true
            return (destination, "\"j\".\(quoted(mine))",
                    "\(quoted(destination.table)) AS \"d\" JOIN \(quoted(name)) AS \"j\" ON \"j\".\(quoted(other)) = \"d\".\"_pk\"",
                    ordered ? "\"j\".\"position\"" : "\"d\".\"_pk\"")
        }
    }

    package func layout(of entityName: String) throws -> EntityLayout {
        guard let layout = layouts[entityName] else {
            throw StoreError(.unknownEntity, "the model has no entity named '\(entityName)'")
        }
        return layout
    }
}

/// SQL identifiers, always quoted. (Model names are checked to be plain identifiers, so the
/// escaping of embedded quotes is almost never needed; it is kept for safety.)
package func quoted(_ identifier: String) -> String {
    guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
    return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// `count` parameter marks, `?, ?, ?` (built at once: joining an array of marks costs a
/// hundred times more, and a find-or-create binds a thousand).
package func placeholders(_ count: Int) -> String {
    count > 0 ? String(repeating: "?, ", count: count - 1) + "?" : ""
}
