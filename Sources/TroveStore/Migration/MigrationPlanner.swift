import Foundation
import GRDB
import TroveModel

/// Compares the stored model with a new one and reads the stored data where a change depends
/// on it: the steps of an ``InferredMigration``, its blockers, and the values to write after the
/// tables have their new shape.
///
/// Decided here (and documented in the Migration article): narrowing an integer is allowed when
/// every stored value fits; integer → double or float only when every value is exact in a double
/// (at most 2^53); a new validation rule is not checked against stored values (as Core Data's
/// lightweight migration does not: such an object fails validation at its next save); an
/// entity may become abstract only when no object is of exactly that entity.
struct MigrationPlanner {
    let mapping: MigrationMapping
    let layout: MigrationLayout
    let db: Database
    private(set) var steps: [MigrationStep] = []
    private(set) var blockers: [MigrationBlocker] = []
    private(set) var updates: [MigrationValueUpdate] = []
    private var rowsRewritten = 0

    init(mapping: MigrationMapping, layout: MigrationLayout, db: Database) {
        self.mapping = mapping
        self.layout = layout
        self.db = db
    }

    /// Plans the whole migration.
    mutating func plan() throws -> InferredMigration {
        let old = mapping.old, new = mapping.new
        if old.keyStyle != new.keyStyle {
            step("keyStyle", "import hint: key style \(old.keyStyle.rawValue) → \(new.keyStyle.rawValue)")
        }
        for (e, entity) in new.entities.enumerated() {
            try planEntity(entity, at: e)
        }
        try planRemovals()
        for work in layout.tables where work.rebuild {
            let rows = try count(in: work.oldTable?.name ?? "", entities: work.keptEntities)
            rowsRewritten += rows
            step("table \(work.table.name)", "rebuild the table (new table, rows copied, old table dropped)", rows: rows)
        }
        for join in layout.joins where !join.kept {
            guard let links = join.links else { continue }
            let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(links))") ?? 0
            rowsRewritten += rows
            step("table \(join.join.name)", "move the links into a join table", rows: rows)
        }
        for fill in layout.linkFills {
            let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(fill.links))") ?? 0
            rowsRewritten += rows
            step("table \(fill.table.replacingOccurrences(of: "_migrating_", with: ""))", "move the links of column \(fill.column)", rows: rows)
        }
        return InferredMigration(fromVersion: old.versionHash, toVersion: new.versionHash, steps: steps,
                                 blockers: blockers, rowsRewritten: rowsRewritten)
    }

    // MARK: Entities

    private mutating func planEntity(_ entity: Entity, at e: Int) throws {
        let path = "entities[\(e)]"
        guard let oldEntity = mapping.oldEntity(of: entity.name) else {
            step(path, "add entity \(entity.name)")
            return
        }
        if oldEntity.name != entity.name { step(path, "rename entity \(oldEntity.name) → \(entity.name)") }
        let oldParent = entity.parent.map { mapping.oldEntityName[$0] ?? "\($0) (new)" }
        if oldParent != oldEntity.parent {
            block("\(path).parent", "parent \(oldEntity.parent ?? "none") → \(entity.parent ?? "none"): moving an entity to another"
                + " hierarchy is not inferred; keep its parent, or add a new entity and move the objects yourself")
        }
        if entity.isAbstract != oldEntity.isAbstract {
            let own = entity.isAbstract ? try count(of: [entity.name], exactly: true) : 0
            if own > 0 {
                block("\(path).abstract", "becomes abstract, but \(own) object\(own == 1 ? " is" : "s are") of exactly \(entity.name);"
                    + " delete them or move them to a sub-entity first, or keep it concrete")
            } else {
                step(path, "\(entity.name) becomes \(entity.isAbstract ? "abstract" : "concrete")")
            }
        }
        if entity.remoteName != oldEntity.remoteName {
            step(path, "import hint: remoteName \(oldEntity.remoteName ?? "none") → \(entity.remoteName ?? "none")")
        }
        let parent = entity.parent.flatMap { mapping.new.entity(named: $0) }
        let oldParentEntity = oldEntity.parent.flatMap { mapping.old.entity(named: $0) }
        try planUniqueKeys(of: entity, declared: Array(entity.uniqueBy.dropFirst(parent?.uniqueBy.count ?? 0)),
                           old: Array(oldEntity.uniqueBy.dropFirst(oldParentEntity?.uniqueBy.count ?? 0)), path: path)
        for (a, attribute) in entity.attributes.dropFirst(parent?.attributes.count ?? 0).enumerated() where attribute.isStored {
            try planAttribute(attribute, of: entity, path: "\(path).attributes[\(a)]")
        }
        for (r, relationship) in entity.relationships.dropFirst(parent?.relationships.count ?? 0).enumerated() {
            try planRelationship(relationship, of: entity, path: "\(path).relationships[\(r)]")
        }
    }

    private mutating func planUniqueKeys(of entity: Entity, declared: [[String]], old: [[String]], path: String) throws {
        let work = tableWork(of: entity)
        let oldToNew = Dictionary((work?.sources ?? [:]).map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        let before = old.map { $0.map { oldToNew[$0] ?? "\($0) (removed)" } }
        for (c, constraint) in declared.enumerated() where !before.contains(constraint) {
            let keyPath = declared.count == 1 ? "\(path).uniqueBy" : "\(path).uniqueBy[\(c)]"
            let oldColumns = constraint.compactMap { work?.sources[$0] }
            guard oldColumns.count == constraint.count, let table = work?.oldTable?.name else {
                step(keyPath, "add unique key (\(constraint.joined(separator: ", "))) to \(entity.name)")
                continue
            }
            let duplicates = try self.duplicates(of: oldColumns, in: table, entities: oldNames(of: entity))
            if duplicates.isEmpty {
                step(keyPath, "add unique key (\(constraint.joined(separator: ", "))) to \(entity.name)")
            } else {
                block(keyPath, "new unique key (\(constraint.joined(separator: ", "))): the stored objects repeat it: "
                    + duplicates.joined(separator: "; ") + "; remove the duplicates first, or leave the key out")
            }
        }
        for constraint in before where !declared.contains(constraint) {
            step("\(path).uniqueBy", "remove unique key (\(constraint.joined(separator: ", "))) of \(entity.name)")
        }
    }

    // MARK: Attributes

    private mutating func planAttribute(_ attribute: Attribute, of entity: Entity, path: String) throws {
        let name = "\(entity.name).\(attribute.name)"
        let table = entity.rootName
        let now = [entity.name] + entity.subentityNames
        guard let work = tableWork(of: entity), let oldTable = work.oldTable, let oldColumn = work.sources[attribute.name],
              let (declarer, old) = oldDeclaration(ofColumn: oldColumn, in: oldTable.name) else {
            let existing = try count(of: now)
            var summary = "add attribute \(name) (\(attribute.type.rawValue)"
            if !attribute.defaultValue.isNull {
                summary += ", default \(attribute.defaultValue)"
                update(table, attribute.name, attribute.defaultValue, entities: now, onlyNil: true, rows: existing, summary: summary + ")", path: path)
                return
            }
            if !attribute.isOptional, existing > 0 {
                block(path, "new required attribute \(name) without a default: \(existing) stored object\(existing == 1 ? "" : "s")"
                    + " would be nil; give a default, or make it optional")
                return
            }
            step(path, summary + ")")
            return
        }
        // Which entities have the attribute before and after (a move within the hierarchy).
        let before = ([declarer.name] + declarer.subentityNames).compactMap { mapping.newEntityName[$0] }
        if mapping.newEntityName[declarer.name] != entity.name {
            step(path, "move attribute \(attribute.name) from \(mapping.newEntityName[declarer.name] ?? declarer.name) to \(entity.name)")
            let lost = before.filter { !now.contains($0) }
            let cleared = try count(of: lost, where: "\(quoted(oldColumn)) IS NOT NULL")
            if cleared > 0 {
                update(table, attribute.name, .null, entities: lost, onlyNil: false, rows: cleared,
                       summary: "clear \(attribute.name) of \(lost.joined(separator: ", ")), which no longer have it", path: path)
            }
        }
        let gained = now.filter { !before.contains($0) }
        if old.name != attribute.name { step(path, "rename attribute \(entity.name).\(old.name) → \(attribute.name)") }
        try planType(from: old.type, to: attribute.type, column: oldColumn, table: oldTable.name, entities: before.filter(now.contains), name: name, path: path)
        let nilRows = try count(of: before.filter(now.contains), where: "\(quoted(oldColumn)) IS NULL") + count(of: gained)
        if !attribute.isOptional && (old.isOptional || !gained.isEmpty) {
            if nilRows == 0 {
                step(path, "\(name): optional → required (no stored value is nil)")
            } else if !attribute.defaultValue.isNull {
                update(table, attribute.name, attribute.defaultValue, entities: now, onlyNil: true, rows: nilRows,
                       summary: "\(name): optional → required, \(nilRows) nil value\(nilRows == 1 ? "" : "s") set to the default \(attribute.defaultValue)", path: path)
            } else {
                block(path, "optional → required, \(nilRows) row\(nilRows == 1 ? " is" : "s are") nil; give a default")
            }
        } else if attribute.isOptional && !old.isOptional {
            step(path, "\(name): required → optional")
        } else if !gained.isEmpty && !attribute.defaultValue.isNull {
            let rows = try count(of: gained)
            if rows > 0 {
                update(table, attribute.name, attribute.defaultValue, entities: gained, onlyNil: true, rows: rows,
                       summary: "set \(attribute.name) of the \(gained.joined(separator: ", ")) objects to its default", path: path)
            }
        }
        if attribute.defaultValue != old.defaultValue {
            step(path, "\(name): default \(old.defaultValue) → \(attribute.defaultValue) (for new objects)")
        }
        if attribute.minimum != old.minimum || attribute.maximum != old.maximum || attribute.regex != old.regex {
            step(path, "validation rule of \(name) changes (min, max or regex); stored values are not checked:"
                + " an object that breaks it fails validation at its next save")
        }
        if attribute.remoteKeys != old.remoteKeys || attribute.dateFormat != old.dateFormat || attribute.transformer != old.transformer {
            step(path, "import hint of \(name) changes (remoteKey, dateFormat or transformer)")
        }
    }

    private mutating func planType(from old: AttributeType, to new: AttributeType, column: String, table: String,
                                   entities: [String], name: String, path: String) throws {
        guard old != new else { return }
        let change = "\(name): \(old.rawValue) → \(new.rawValue)"
        switch (old.integerRange, new) {
        case (let range?, _) where new.isInteger:
            guard let target = new.integerRange, !(target.lowerBound <= range.lowerBound && range.upperBound <= target.upperBound) else {
                return step(path, "\(change) (wider; no value changes)")
            }
            let outside = try count(of: entities, where: "\(quoted(column)) NOT BETWEEN \(target.lowerBound) AND \(target.upperBound)")
            stepUnless(outside, path, "\(change) (narrower; every stored value fits)",
                       blocked: "\(old.rawValue) → \(new.rawValue), \(outside) stored value\(outside == 1 ? " does" : "s do") not fit"
                           + " \(target.lowerBound)...\(target.upperBound); change those values first, or keep \(old.rawValue)")
        case (_?, .double), (_?, .float):
            let inexact = try count(of: entities, where: "abs(\(quoted(column))) > 9007199254740992")
            stepUnless(inexact, path, "\(change) (values converted)",
                       blocked: "\(old.rawValue) → \(new.rawValue), \(inexact) stored value\(inexact == 1 ? " is" : "s are") beyond 2^53,"
                           + " which a double cannot hold exactly; use decimal, or keep \(old.rawValue)")
        case (_?, .decimal):
            step(path, "\(change) (values converted)")
        default:
            block(path, "type \(old.rawValue) → \(new.rawValue) is not inferred (only an integer may become a wider integer,"
                + " a double, a float or a decimal); keep the type, or add an attribute of the new type beside it")
        }
    }

    // MARK: Relationships

    private mutating func planRelationship(_ relationship: Relationship, of entity: Entity, path: String) throws {
        let name = "\(entity.name).\(relationship.name)"
        guard let old = mapping.oldRelationship(relationship.name, of: entity.name) else {
            let required = !relationship.isOptional || (relationship.minCount ?? 0) > 0
            let existing = required ? try count(of: [entity.name] + entity.subentityNames) : 0
            if existing > 0 {
                block(path, "new required relationship \(name): \(existing) stored object\(existing == 1 ? "" : "s")"
                    + " would have none; make it optional")
            } else {
                step(path, "add relationship \(name) → \(relationship.destination)")
            }
            return
        }
        if old.name != relationship.name { step(path, "rename relationship \(entity.name).\(old.name) → \(relationship.name)") }
        if mapping.oldEntityName[relationship.destination] != old.destination {
            block("\(path).destination", "destination \(old.destination) → \(relationship.destination) is not inferred;"
                + " keep the destination, or add a new relationship")
        }
        switch (old.isToMany, relationship.isToMany) {
        case (false, true): step(path, "\(name): to-one → \(relationship.isOrdered ? "ordered " : "")to-many (links kept)")
        case (true, false):
            block("\(path).toMany", "to-many → to-one is not inferred; keep it to-many")
        case (true, true) where old.isOrdered != relationship.isOrdered:
            block("\(path).ordered", "\(old.isOrdered ? "ordered → unordered" : "unordered → ordered") is not inferred; keep it as it was")
        default: break
        }
        let inverse = relationship.inverse.map { mapping.oldRelationship($0, of: relationship.destination)?.name ?? "\($0) (new)" }
        if inverse != old.inverse {
            block("\(path).inverse", "inverse \(old.inverse ?? "none") → \(relationship.inverse ?? "none") is not inferred;"
                + " keep the inverse, or add a new relationship")
        }
        if relationship.deleteRule != old.deleteRule {
            step(path, "\(name): delete rule \(old.deleteRule.rawValue) → \(relationship.deleteRule.rawValue)")
        }
        if relationship.isOptional != old.isOptional || relationship.minCount != old.minCount || relationship.maxCount != old.maxCount {
            step(path, "validation rule of \(name) changes (optional, minCount or maxCount); stored links are not checked")
        }
        if relationship.remoteKeys != old.remoteKeys || relationship.importPolicy != old.importPolicy || relationship.referenceKey != old.referenceKey {
            step(path, "import hint of \(name) changes (remoteKey, importPolicy or referenceKey)")
        }
    }

    // MARK: Removals

    /// Stored entities, attributes and relationships the new model no longer has.
    private mutating func planRemovals() throws {
        for (e, entity) in mapping.old.entities.enumerated() {
            let path = "stored entities[\(e)]"
            guard let now = mapping.newEntity(of: entity.name) else {
                let objects = try count(in: entity.rootName, entities: entity.rootName == entity.name && entity.subentityNames.isEmpty ? nil : [entity.name])
                step(path, "remove entity \(entity.name): \(objects) object\(objects == 1 ? "" : "s") deleted")
                continue
            }
            let parent = entity.parent.flatMap { mapping.old.entity(named: $0) }
            let kept = Set(tableWork(of: now)?.sources.values.map { $0 } ?? [])
            for (a, attribute) in entity.attributes.dropFirst(parent?.attributes.count ?? 0).enumerated()
            where attribute.isStored && !kept.contains(attribute.name) {
                step("\(path).attributes[\(a)]", "remove attribute \(entity.name).\(attribute.name): its values are dropped")
            }
            for (r, relationship) in entity.relationships.dropFirst(parent?.relationships.count ?? 0).enumerated()
            where !now.relationships.contains(where: { mapping.oldRelationship($0.name, of: now.name)?.name == relationship.name }) {
                step("\(path).relationships[\(r)]", "remove relationship \(entity.name).\(relationship.name): its links are dropped")
            }
        }
    }

    // MARK: Data

    private func tableWork(of entity: Entity) -> MigrationLayout.TableWork? {
        layout.tables.first { $0.table.name == entity.rootName }
    }

    /// The stored entity declaring the column `column` of the old table, and its attribute.
    private func oldDeclaration(ofColumn column: String, in table: String) -> (Entity, Attribute)? {
        guard let root = mapping.old.entity(named: table) else { return nil }
        for name in [root.name] + root.subentityNames {
            guard let entity = mapping.old.entity(named: name) else { continue }
            let inherited = entity.parent.flatMap { mapping.old.entity(named: $0) }?.attributes.count ?? 0
            if let attribute = entity.attributes.dropFirst(inherited).first(where: { $0.name == column }) { return (entity, attribute) }
        }
        return nil
    }

    /// The old names of the entity and its sub-entities that the store has.
    private func oldNames(of entity: Entity) -> [String] {
        ([entity.name] + entity.subentityNames).compactMap { mapping.oldEntityName[$0] }
    }

    /// Stored objects of the (new) entities `names` (exactly those entities: sub-entities are
    /// listed by the caller), optionally only those meeting `condition` (over the old columns).
    private func count(of names: [String], exactly: Bool = true, where condition: String? = nil) throws -> Int {
        let oldNames = names.compactMap { mapping.oldEntityName[$0] }
        guard let first = oldNames.first, let root = mapping.old.entity(named: first)?.rootName else { return 0 }
        return try count(in: root, entities: oldNames, where: condition)
    }

    /// Rows of the old table `table`, of the old entities `entities` (all rows when `nil`, or
    /// when the table has no `_entity` column).
    private func count(in table: String, entities: [String]?, where condition: String? = nil) throws -> Int {
        var conditions: [String] = []
        let hasEntityColumn = layout.tables.contains { $0.oldTable?.name == table && $0.oldTable?.hasEntityColumn == true }
            || mapping.old.entity(named: table)?.subentityNames.isEmpty == false
        if let entities, hasEntityColumn {
            conditions.append("\(quoted("_entity")) IN (\(entities.map(sqlStringLiteral).joined(separator: ", ")))")
        }
        if let condition { conditions.append(condition) }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoted(table))\(filter)") ?? 0
    }

    /// The first (at most three) repeated values of `columns` among the rows of `entities`,
    /// described for a message: `("a", 1) × 2`.
    private func duplicates(of columns: [String], in table: String, entities: [String]) throws -> [String] {
        let list = columns.map(quoted).joined(separator: ", ")
        var conditions = columns.map { "\(quoted($0)) IS NOT NULL" }
        if mapping.old.entity(named: table)?.subentityNames.isEmpty == false {
            conditions.append("\(quoted("_entity")) IN (\(entities.map(sqlStringLiteral).joined(separator: ", ")))")
        }
        let rows = try Row.fetchAll(db, sql: """
            SELECT \(list), count(*) FROM \(quoted(table)) WHERE \(conditions.joined(separator: " AND ")) \
            GROUP BY \(list) HAVING count(*) > 1 ORDER BY min(\(quoted("_pk"))) LIMIT 3
            """)
        return rows.map { row in
            let values = columns.indices.map { (index: Int) -> String in
                switch (row[index] as DatabaseValue).storage {
                case .string(let text): "\"\(text.prefix(40))\""
                case .int64(let value): "\(value)"
                case .double(let value): "\(value)"
                case .blob(let data): "\(data.count) bytes"
                case .null: "nil"
                }
            }
            let count: Int = row[columns.count]
            return "(\(values.joined(separator: ", "))) × \(count)"
        }
    }

    // MARK: Recording

    private mutating func step(_ path: String, _ summary: String, rows: Int = 0) {
        steps.append(MigrationStep(path: path, summary: summary, rowsRewritten: rows))
    }

    private mutating func block(_ path: String, _ reason: String) {
        blockers.append(MigrationBlocker(path: path, reason: reason))
    }

    /// A step, unless `offending` stored values keep the change from being made: then a blocker.
    private mutating func stepUnless(_ offending: Int, _ path: String, _ summary: String, blocked reason: @autoclosure () -> String) {
        if offending > 0 { block(path, reason()) } else { step(path, summary) }
    }

    private mutating func update(_ table: String, _ column: String, _ value: AttributeValue, entities: [String], onlyNil: Bool,
                                 rows: Int, summary: String, path: String) {
        let hasEntityColumn = mapping.new.entity(named: table)?.subentityNames.isEmpty == false
        updates.append(MigrationValueUpdate(table: table, column: column, value: value, entities: hasEntityColumn ? entities : nil, onlyNil: onlyNil))
        if !layout.tables.contains(where: { $0.table.name == table && $0.rebuild }) { rowsRewritten += rows }
        step(path, summary, rows: rows)
    }
}
