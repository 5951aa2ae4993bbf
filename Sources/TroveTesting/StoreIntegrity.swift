public import Foundation
import GRDB

/// SQLite's own check of a store file, for tests that kill or fault a writer.
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
}
