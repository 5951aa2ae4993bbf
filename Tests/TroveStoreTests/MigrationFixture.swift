import Foundation
import GRDB
import Testing
@testable import TroveStore
import TroveModel
import TrovePredicate
import TroveTesting

/// A store file to migrate, filled through the store's own saves, and what tests read back.
struct MigrationFixture {
    let directory: TemporaryDirectory
    let url: URL

    /// A new store made with `model`.
    init(_ model: Model) throws {
        directory = try TemporaryDirectory()
        url = directory.file("store.trove")
        _ = try SQLiteStore(url: url, model: model)
    }

    /// The store at `url` (in `directory`, kept alive with it).
    init(directory: TemporaryDirectory, url: URL) {
        self.directory = directory
        self.url = url
    }

    /// Inserts one object of `entity` with `values` by attribute name and to-one `links` by
    /// relationship name; returns its permanent ID.
    @discardableResult
    func insert(_ entityName: String, _ values: [String: AttributeValue], links: [String: ObjectID] = [:], model: Model) throws -> ObjectID {
        let store = try SQLiteStore(url: url, model: model)
        let entity = try #require(model.entity(named: entityName))
        let id = ObjectID.temporary(entity: entity)
        var row = entity.defaultValues
        for (name, value) in values { row[try #require(entity.attributeIndex(named: name))] = value }
        let changes = try links.map { name, target in
            RelationshipChange.toOne(try #require(entity.relationshipIndex(named: name)), .object(target))
        }
        let result = try store.save(ChangeSet(inserts: [.init(objectID: id, values: row, relationships: changes)]))
        return try #require(result.permanentIDs[id])
    }

    /// Every object of exactly `entity`, as attribute name → value, in `_pk` order, read by a
    /// store opened with `model`.
    func objects(_ entityName: String, model: Model) throws -> [[String: AttributeValue]] {
        let store = try SQLiteStore(url: url, model: model)
        let entity = try #require(model.entity(named: entityName))
        let request = FetchRequest(entityName: entityName, includesSubentities: false)
        return try store.fetch(StoreQuery(request, model: model))
            .sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
            .map { row in
                Dictionary(uniqueKeysWithValues: entity.attributes.enumerated().filter { $1.isStored }.map { ($1.name, row.values[$0]) })
            }
    }

    /// The primary keys of the objects `relationship` of the object with primary key `pk` holds.
    func related(_ relationship: String, of entityName: String, pk: Int64, model: Model) throws -> [Int64] {
        let store = try SQLiteStore(url: url, model: model)
        let entity = try #require(model.entity(named: entityName))
        let id = ObjectID(entity: entity, primaryKey: pk)
        return try store.fetchRelated(relationship, of: [id])[id, default: []].compactMap(\.objectID.primaryKey).sorted()
    }

    /// The store file's bytes, its -wal's, and a dump of every table: what a refused migration
    /// must leave as it was.
    func snapshot() throws -> [String] {
        let queue = try DatabaseQueue(path: url.path, configuration: { var c = Configuration(); c.readonly = true; return c }())
        return try queue.read { db in
            var lines = try String.fetchAll(db, sql: "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master ORDER BY name")
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"")
                lines += rows.map { "\(table) \($0)" }
            }
            return lines
        }
    }

    /// Migrates to `model` (no backup unless asked), and checks that the store has the tables,
    /// columns, foreign keys and indexes of a store created with `model`.
    @discardableResult
    func migrate(to model: Model, keepingBackup: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws -> MigrationOutcome {
        let outcome = try SQLiteStore.migrate(storeAt: url, to: model, keepingBackup: keepingBackup)
        let fresh = directory.file("fresh-\(UUID().uuidString).trove")
        _ = try SQLiteStore(url: fresh, model: model)
        #expect(try Self.shape(of: url) == Self.shape(of: fresh), "the migrated store differs from a new one", sourceLocation: sourceLocation)
        return outcome
    }

    /// The layout of the store at `url`: per table, its columns (name, type, not null, primary
    /// key), foreign keys and indexes, in sorted order (column order aside: `ADD COLUMN` appends).
    static func shape(of url: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: url.path, configuration: { var c = Configuration(); c.readonly = true; return c }())
        return try queue.read { db in
            var lines: [String] = []
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            for table in tables {
                lines += try Row.fetchAll(db, sql: "PRAGMA table_xinfo(\"\(table)\")").map { row in
                    "\(table) column \(row["name"] as String) \(row["type"] as String) notnull=\(row["notnull"] as Int) pk=\(row["pk"] as Int)"
                }
                lines += try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\"\(table)\")").map { row in
                    "\(table) fk \(row["from"] as String) → \(row["table"] as String).\(row["to"] as String) \(row["on_delete"] as String)"
                }
                lines.append("\(table) strict=\(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [table])?.hasSuffix("STRICT") == true)")
            }
            lines += try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
            return lines.sorted()
        }
    }

    /// The plan to `model`.
    func plan(to model: Model) throws -> InferredMigration {
        try SQLiteStore.migrationPlan(forStoreAt: url, to: model)
    }
}
