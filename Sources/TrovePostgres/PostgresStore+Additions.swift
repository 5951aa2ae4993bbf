package import TroveModel
import TroveStore

/// Migrations that only add — attributes and relationships no stored object must have, new
/// entities — run in place: PostgreSQL's `ALTER TABLE … ADD COLUMN` of a column without a
/// default, and `CREATE TABLE`, change no row, so nothing needs copying, and no stored row can
/// block them. The plan and the metadata are still SQLite's engine's, made on a scratch file
/// that holds the metadata and no row.
extension PostgresStore {
    /// The statements that take the tables of `old` to those of `new`, when `new` only adds to
    /// `old` what no stored row can block; `nil` when the change needs the engine's copy.
    ///
    /// Additive means: every entity of `old` is in `new` with the same parent, abstractness and
    /// unique keys; each of its stored attributes with the same type and transformer, not made
    /// required; each of its relationships with the same destination, kind, inverse and count
    /// rules. What `new` adds to those entities is optional: stored attributes without a
    /// default, relationships without a minimum count. New entities are new hierarchies. Nothing
    /// new is renamed from something (a rename is the engine's). Rules, hints, delete rules and
    /// defaults of existing attributes may change: they shape no stored row.
    package static func additionSQL(from old: Model, to new: Model) -> [String]? {
        guard isAdditive(from: old, to: new) else { return nil }
        let (before, after) = (StoreSchema(model: old), StoreSchema(model: new))
        let oldTables = Dictionary(before.tables.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let oldJoins = Dictionary(before.joinTables.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        guard after.tables.filter({ oldTables[$0.name] != nil }).count == before.tables.count,
              after.joinTables.filter({ oldJoins[$0.name] != nil }).count == before.joinTables.count else { return nil }
        var tables: [String] = [], indexes: [String] = [], keys: [String] = []
        for table in after.tables {
            guard let was = oldTables[table.name] else {
                tables += createSQL(of: table)
                indexes += indexSQL(of: table)
                keys += table.foreignKeys.map { foreignKeySQL($0, of: table.name) }
                continue
            }
            let oldColumns = Dictionary(was.columns.map { ($0.name, $0.type) }, uniquingKeysWith: { a, _ in a })
            let oldKeys = Dictionary(was.foreignKeys.map { ($0.column, $0.destinationTable) }, uniquingKeysWith: { a, _ in a })
            guard table.hasEntityColumn == was.hasEntityColumn,
                  table.columns.filter({ oldColumns[$0.name] == $0.type }).count == was.columns.count,
                  table.foreignKeys.filter({ oldKeys[$0.column] == $0.destinationTable }).count == was.foreignKeys.count,
                  indexSQL(of: table).filter({ $0.hasPrefix("CREATE UNIQUE") }) == indexSQL(of: was).filter({ $0.hasPrefix("CREATE UNIQUE") })
            else { return nil }
            for column in table.columns where oldColumns[column.name] == nil {
                tables += columnSQL(column).map { "ALTER TABLE \(quoted(table.name)) ADD COLUMN \($0)" }
            }
            for fk in table.foreignKeys where oldKeys[fk.column] == nil {
                tables.append("ALTER TABLE \(quoted(table.name)) ADD COLUMN \(quoted(fk.column)) bigint")
                keys.append(foreignKeySQL(fk, of: table.name))
            }
            let existing = Set(indexSQL(of: was))
            indexes += indexSQL(of: table).filter { !existing.contains($0) }
        }
        for join in after.joinTables {
            guard let was = oldJoins[join.name] else {
                tables.append(createSQL(of: join))
                indexes.append(indexSQL(of: join))
                continue
            }
            guard was.sourceTable == join.sourceTable, was.destinationTable == join.destinationTable, was.isOrdered == join.isOrdered else { return nil }
        }
        return tables + indexes + keys
    }

    /// Whether `new` only adds to `old` what no stored row can block (see ``additionSQL(from:to:)``).
    private static func isAdditive(from old: Model, to new: Model) -> Bool {
        for entity in new.entities {
            guard let was = old.entity(named: entity.name) else {
                // A new entity: a hierarchy of its own, not one that was renamed.
                guard entity.renamedFrom == nil, old.entity(named: entity.rootName) == nil else { return false }
                continue
            }
            guard entity.parent == was.parent, entity.isAbstract == was.isAbstract, entity.uniqueBy == was.uniqueBy else { return false }
            for attribute in entity.attributes where attribute.isStored {
                guard let previous = was.attributes.first(where: { $0.name == attribute.name }) else {
                    guard attribute.isOptional, attribute.defaultValue.isNull, attribute.renamedFrom == nil else { return false }
                    continue
                }
                guard previous.isStored, previous.type == attribute.type, previous.transformer == attribute.transformer,
                      attribute.isOptional || !previous.isOptional else { return false }
            }
            for relationship in entity.relationships {
                guard let previous = was.relationships.first(where: { $0.name == relationship.name }) else {
                    guard relationship.isOptional, (relationship.minCount ?? 0) == 0, relationship.renamedFrom == nil else { return false }
                    continue
                }
                guard previous.destination == relationship.destination, previous.isToMany == relationship.isToMany,
                      previous.isOrdered == relationship.isOrdered, previous.inverse == relationship.inverse,
                      previous.isOptional == relationship.isOptional, previous.minCount == relationship.minCount,
                      previous.maxCount == relationship.maxCount else { return false }
            }
        }
        // Every old entity, attribute and relationship is still there.
        return old.entities.allSatisfy { was in
            guard let entity = new.entity(named: was.name) else { return false }
            return was.attributes.filter(\.isStored).allSatisfy { a in entity.attributes.contains { $0.name == a.name && $0.isStored } }
                && was.relationships.allSatisfy { r in entity.relationships.contains { $0.name == r.name } }
        }
    }
}
