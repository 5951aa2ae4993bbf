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
        let statement = try db.cachedStatement(
            sql: "INSERT INTO \(quoted(metadataTable)) (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            try statement.execute(arguments: [key, value])
        }
    }
}
