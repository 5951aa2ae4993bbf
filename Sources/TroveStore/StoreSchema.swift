import TroveModel

/// How a model is laid out in SQLite tables: one table per inheritance hierarchy, named after
/// its root entity, with a column per attribute (named as the attribute), Trove's own columns
/// `_pk`, `_version` and (for hierarchies of more than one entity) `_entity`, a foreign-key
/// column per to-one relationship that holds the link, and a join table per relationship that
/// needs one.
struct StoreSchema: Sendable {
    /// One table of the store.
    struct Table: Sendable {
        let name: String
        /// Whether rows say which entity of the hierarchy they belong to (`_entity` column).
        let hasEntityColumn: Bool
        /// Attribute columns of the whole hierarchy, root's first.
        let columns: [Column]
        /// Foreign-key columns, one per to-one relationship that holds its link here.
        let foreignKeys: [ForeignKey]
        /// Unique constraints: column names, and the entities whose rows they apply to
        /// (`nil` for every row of the table).
        let uniqueConstraints: [(columns: [String], entities: [String]?)]
    }

    struct Column: Sendable {
        let name: String
        let type: AttributeType
    }

    struct ForeignKey: Sendable {
        let column: String
        let destinationTable: String
    }

    /// A table linking the objects of a to-many relationship (and its inverse, if any).
    struct JoinTable: Sendable {
        let name: String
        let sourceTable: String
        let destinationTable: String
        let isOrdered: Bool
    }

    /// Where an entity's rows live and how to read them.
    struct EntityLayout: Sendable {
        let entity: Entity
        let table: String
        let hasEntityColumn: Bool
        /// The entity and its sub-entities: the `_entity` values of a fetch that includes them.
        let entityNames: [String]
    }

    /// Where a relationship's links are kept.
    enum RelationshipStorage: Sendable, Equatable {
        /// A foreign-key column of the source entity's table.
        case foreignKey(column: String)
        /// The other side's foreign-key column (this side is the to-many of a one-to-many).
        case inverseForeignKey(table: String, column: String)
        /// A join table; `sourceIsFirst` says whether this side's objects are in its `source` column.
        case joinTable(name: String, sourceIsFirst: Bool)
    }

    let tables: [Table]
    let joinTables: [JoinTable]
    let layouts: [String: EntityLayout]
    let relationshipStorage: [String: RelationshipStorage]  // key "Entity.relationship"

    init(model: Model) {
        var relationshipStorage: [String: RelationshipStorage] = [:]
        var joinTables: [JoinTable] = []
        var foreignKeysByTable: [String: [ForeignKey]] = [:]

        for entity in model.entities {
            for relationship in StoreSchema.declaredRelationships(of: entity, in: model) {
                let key = "\(entity.name).\(relationship.name)"
                guard let destination = model.entity(named: relationship.destination) else { continue }
                let inverse = relationship.inverse.flatMap { destination.relationship(named: $0) }
                let storage = StoreSchema.storage(of: relationship, in: entity, inverse: inverse, destination: destination)
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
                relationshipStorage[key] = storage
            }
        }

        var tables: [Table] = []
        var layouts: [String: EntityLayout] = [:]
        for root in model.rootEntities {
            let hierarchy = [root] + root.subentityNames.compactMap { model.entity(named: $0) }
            var columns: [Column] = []
            var seen: Set<String> = []
            for entity in hierarchy {
                for attribute in entity.attributes where seen.insert(attribute.name).inserted {
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

    /// The relationships an entity declares itself (not inherited from its parent).
    private static func declaredRelationships(of entity: Entity, in model: Model) -> ArraySlice<Relationship> {
        let inheritedCount = entity.parent.flatMap { model.entity(named: $0) }?.relationships.count ?? 0
        return entity.relationships.dropFirst(inheritedCount)
    }

    /// Decides where a relationship's links are kept. Both sides of a pair decide the same way:
    /// a to-one facing an unordered to-many (or nothing) holds a foreign key; a one-to-one keeps
    /// its key on the side whose `Entity.relationship` name sorts first; everything else
    /// (many-to-many, ordered, to-many without inverse) uses a join table owned by the side
    /// whose name sorts first.
    private static func storage(
        of relationship: Relationship, in entity: Entity, inverse: Relationship?, destination: Entity
    ) -> RelationshipStorage {
        let this = "\(entity.name).\(relationship.name)"
        let other = inverse.map { "\(destination.name).\($0.name)" }
        let thisSideFirst = other.map { this <= $0 } ?? true
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

    func layout(of entityName: String) throws -> EntityLayout {
        guard let layout = layouts[entityName] else {
            throw StoreError(.unknownEntity, "the model has no entity named '\(entityName)'")
        }
        return layout
    }
}

/// SQL identifiers, always quoted.
func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
