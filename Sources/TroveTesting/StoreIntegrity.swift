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
}
