import PostgresNIO
public import TroveModel
public import TroveStore

extension PostgresStore: BulkWritingStore {
    /// The rows ``fetchBeforeWriting(_:attributes:keys:)`` reads, all of them as of one moment:
    /// one read-only transaction reads every slice (on a reading connection, as every read).
    public func fetchAhead(_ entity: Entity, attributes: [String], keys: [[AttributeValue]]) throws -> [RowSnapshot] {
        try read("finding \(entity.name) by \(attributes.joined(separator: ", ")) ahead") { connection in
            let lookup = try keyLookup(entity, attributes: attributes, keys: keys)
            return try Self.withSnapshot(on: connection) { snapshot in
                if lookup.statements.count > 1 { try snapshot.begin() }
                return try lookup.rows { Array(try connection.answer($0).rows) }
            }
        }
    }

    /// Runs `body`: a PostgreSQL store has nothing to set for a run of saves.
    public func bulkWriting<T>(_ body: () throws -> T) throws -> T {
        try body()
    }
}
