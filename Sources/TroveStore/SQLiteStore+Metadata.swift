import GRDB

extension SQLiteStore {
    public func metadata() throws -> [String: String] {
        try SQLiteStore.mapErrors("reading the store metadata") {
            try writer.read { try SQLiteStore.readMetadata($0) }
        }
    }

    static func readMetadata(_ db: Database) throws -> [String: String] {
        let rows = try Row.fetchAll(db, sql: "SELECT key, value FROM \(quoted(metadataTable))")
        return Dictionary(rows.map { ($0[0] as String, $0[1] as String) }, uniquingKeysWith: { _, last in last })
    }

    static func writeMetadata(_ values: [String: String], in db: Database) throws {
        try writeMetadataChanges(values.mapValues { $0 }, in: db)
    }

    /// Sets each key to its value, or removes it where the value is `nil`.
    static func writeMetadataChanges(_ changes: [String: String?], in db: Database) throws {
        let upsert = try db.cachedStatement(
            sql: "INSERT INTO \(quoted(metadataTable)) (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
        let delete = try db.cachedStatement(sql: "DELETE FROM \(quoted(metadataTable)) WHERE key = ?")
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let value {
                try upsert.execute(arguments: [key, value])
            } else {
                try delete.execute(arguments: [key])
            }
        }
    }
}
