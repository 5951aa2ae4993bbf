public import Foundation
import GRDB
public import Trove

/// SQLite's own check of a store file, for tests that kill or fault a writer, and the contents
/// of a store, to tell whether two hold the same data.
public enum StoreIntegrity {
    /// The problems `PRAGMA integrity_check` finds in the file at `url` (empty when it is whole),
    /// read on a read-only connection of its own.
    public static func problems(ofStoreAt url: URL) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        let rows = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        return rows == ["ok"] ? [] : rows
    }

    /// Runs `sql` on the store file at `url`, on a connection of its own, behind Trove's back:
    /// for tests that damage a store (drop or rename a table) to see how Trove fails.
    public static func execute(_ sql: String, onStoreAt url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: sql) }
    }

    /// Every row of every table of the store file at `url`, table by table in name order, rows
    /// in order of their first columns, leaving out the metadata rows named in `leavingOut`: to
    /// tell whether two stores hold the same data.
    public static func contents(ofStoreAt url: URL, leavingOut metadataKeys: Set<String> = []) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        return try queue.read { db in
            var lines: [String] = []
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                let columns = try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_table_info(?)", arguments: [table]) ?? 1
                let order = (1...max(1, min(columns, 2))).map(String.init).joined(separator: ", ")
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\" ORDER BY \(order)") {
                    if table == "_trove_metadata", let key = row[0] as String?, metadataKeys.contains(key) { continue }
                    lines.append("\(table) \(row)")
                }
            }
            return lines
        }
    }

    /// Every object of `store`, one line each, sorted: its ID (so its key), each attribute's value
    /// (dates and data exactly), each relationship's IDs (in order where it is ordered) and, with
    /// `versions`, its row version. Equal for two stores of any kind that hold the same objects.
    public static func objects(in store: any PersistentStore, versions: Bool = false) throws -> [String] {
        let context = try Container(store: store).newBackgroundContext()
        var lines: [String] = []
        for entity in store.model.entities {
            let objects = try context.fetch(FetchRequest(entityName: entity.name, includesSubentities: false))
            let stored = versions ? Dictionary(try store.rows(for: objects.map(\.objectID)).map { ($0.objectID, $0.version) },
                                               uniquingKeysWith: { a, _ in a }) : [:]
            for object in objects {
                var line = "\(object.objectID)" + (versions ? " v\(stored[object.objectID] ?? -1)" : "")
                for attribute in entity.attributes { line += " \(attribute.name)=\(exact(try object.value(forKey: attribute.name)))" }
                for relationship in entity.relationships {
                    let ids = try object.objectIDs(forRelationshipNamed: relationship.name).map { "\($0)" }
                    line += " \(relationship.name)=\(relationship.isOrdered ? ids : ids.sorted())"
                }
                lines.append(line)
            }
        }
        return lines.sorted()
    }

    /// A value's text, exact for dates and data (whose descriptions round or summarize).
    private static func exact(_ value: AttributeValue) -> String {
        switch value {
        case .date(let date): "date(\(date.timeIntervalSinceReferenceDate))"
        case .binary(let data): "data(\(data.base64EncodedString()))"
        default: "\(value)"
        }
    }
}
