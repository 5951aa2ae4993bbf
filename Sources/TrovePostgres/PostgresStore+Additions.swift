package import TroveModel
import TroveStore

/// Migrations that only add — attributes and relationships no stored object must have, new
/// entities — or rename attributes run in place: PostgreSQL's `ALTER TABLE … ADD COLUMN` of a
/// column without a default, `RENAME COLUMN` and `CREATE TABLE` change no row, so nothing needs
/// copying, and no stored row can block them. The plan and the metadata are still SQLite's
/// engine's, made on a scratch file that holds the metadata and no row.
extension PostgresStore {
    /// The statements that take the tables of `old` to those of `new`, when `new` only adds to
    /// `old` what no stored row can block, and renames attributes; `nil` when the change needs
    /// the engine's copy.
    ///
    /// That means: every entity of `old` is in `new`, by its name, with the same parent,
    /// abstractness and unique keys; each of its stored attributes, by its name or renamed
    /// (`renamedFrom`, the old name not used again), with the same type and transformer, not
    /// made required; each of its relationships, by its name, with the same destination, kind,
    /// inverse and count rules. What `new` adds to those entities is optional: stored
    /// attributes without a default, relationships without a minimum count. New entities are
    /// new hierarchies. Rules, hints, delete rules and defaults of existing attributes may
    /// change: they shape no stored row.
    package static func additionSQL(from old: Model, to new: Model) -> [String]? {
        guard let renames = renamedColumns(from: old, to: new) else { return nil }
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
            // The old columns by their new names.
            let renamed = renames[table.name] ?? [:]
            let oldColumns = Dictionary(was.columns.map { (renamed[$0.name] ?? $0.name, $0.type) }, uniquingKeysWith: { a, _ in a })
            let oldKeys = Dictionary(was.foreignKeys.map { ($0.column, $0.destinationTable) }, uniquingKeysWith: { a, _ in a })
            let unique = { (constraints: [(columns: [String], entities: [String]?)], names: [String: String]) in
                constraints.map { "\($0.columns.map { names[$0] ?? $0 }) \($0.entities ?? [])" }
            }
            guard table.hasEntityColumn == was.hasEntityColumn,
                  renamed.values.allSatisfy({ name in !was.columns.contains { $0.name == name } }),
                  table.columns.filter({ oldColumns[$0.name] == $0.type }).count == was.columns.count,
                  table.foreignKeys.filter({ oldKeys[$0.column] == $0.destinationTable }).count == was.foreignKeys.count,
                  unique(table.uniqueConstraints, [:]) == unique(was.uniqueConstraints, renamed)
            else { return nil }
            for (from, to) in renamed.sorted(by: { $0.key < $1.key }) {
                let type = oldColumns[to]
                let forms = type.map { TextForm.applies(to: $0) } == true ? TextForm.allCases.map { ($0.column(of: from), $0.column(of: to)) } : []
                for (a, b) in [(from, to)] + forms {
                    tables.append("ALTER TABLE \(quoted(table.name)) RENAME COLUMN \(quoted(a)) TO \(quoted(b))")
                }
            }
            for column in table.columns where oldColumns[column.name] == nil {
                tables += columnSQL(column).map { "ALTER TABLE \(quoted(table.name)) ADD COLUMN \($0)" }
            }
            for fk in table.foreignKeys where oldKeys[fk.column] == nil {
                tables.append("ALTER TABLE \(quoted(table.name)) ADD COLUMN \(quoted(fk.column)) bigint")
                keys.append(foreignKeySQL(fk, of: table.name))
            }
            // Unique keys are the same (their indexes follow renamed columns): only new foreign keys' indexes.
            let existing = Set(indexSQL(of: was))
            indexes += indexSQL(of: table).filter { !existing.contains($0) && !$0.hasPrefix("CREATE UNIQUE") }
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

    /// When `new` only adds to `old` what no stored row can block, and renames attributes (see
    /// ``additionSQL(from:to:)``): each table's renamed columns, old name → new; else `nil`.
    private static func renamedColumns(from old: Model, to new: Model) -> [String: [String: String]]? {
        var renames: [String: [String: String]] = [:]
        for entity in new.entities {
            guard let was = old.entity(named: entity.name) else {
                // A new entity: a hierarchy of its own, not one that was renamed.
                guard entity.renamedFrom == nil, old.entity(named: entity.rootName) == nil else { return nil }
                continue
            }
            guard entity.parent == was.parent, entity.isAbstract == was.isAbstract else { return nil }
            var keys = was.uniqueBy
            for attribute in entity.attributes where attribute.isStored {
                var previous = was.attributes.first { $0.name == attribute.name }
                if previous == nil, let source = attribute.renamedFrom, let renamed = was.attributes.first(where: { $0.name == source && $0.isStored }) {
                    // The old attribute becomes this one (as the engine reads it); one that reuses
                    // its name, or a second claim on it, is the engine's to sort out.
                    let claimed = renames[entity.rootName]?[source]
                    guard !entity.attributes.contains(where: { $0.name == source }), claimed == nil || claimed == attribute.name else { return nil }
                    previous = renamed
                    renames[entity.rootName, default: [:]][source] = attribute.name
                    keys = keys.map { $0.map { $0 == source ? attribute.name : $0 } }
                }
                guard let previous else {
                    guard attribute.isOptional, attribute.defaultValue.isNull else { return nil }
                    continue
                }
                guard previous.isStored, previous.type == attribute.type, previous.transformer == attribute.transformer,
                      attribute.isOptional || !previous.isOptional else { return nil }
            }
            guard keys == entity.uniqueBy else { return nil }
            for relationship in entity.relationships {
                guard let previous = was.relationships.first(where: { $0.name == relationship.name }) else {
                    guard relationship.isOptional, (relationship.minCount ?? 0) == 0, relationship.renamedFrom == nil else { return nil }
                    continue
                }
                guard previous.destination == relationship.destination, previous.isToMany == relationship.isToMany,
                      previous.isOrdered == relationship.isOrdered, previous.inverse == relationship.inverse,
                      previous.isOptional == relationship.isOptional, previous.minCount == relationship.minCount,
                      previous.maxCount == relationship.maxCount else { return nil }
            }
        }
        // Every old entity, attribute (by its name or renamed) and relationship is still there.
        let kept = old.entities.allSatisfy { was in
            guard let entity = new.entity(named: was.name) else { return false }
            let names = Set(entity.attributes.filter(\.isStored).map(\.name))
            let renamed = renames[entity.rootName] ?? [:]
            return was.attributes.filter(\.isStored).allSatisfy { names.contains(renamed[$0.name] ?? $0.name) }
                && was.relationships.allSatisfy { r in entity.relationships.contains { $0.name == r.name } }
        }
        return kept ? renames : nil
    }
}
