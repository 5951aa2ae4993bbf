import PostgresNIO
public import TroveModel
public import TroveStore

extension PostgresStore: BulkWritingStore {
    /// The rows ``fetchBeforeWriting(_:attributes:keys:)`` reads, read on the store's second
    /// connection (opened on first use), so that they are read while this store's connection
    /// saves. All of them are as of one moment: one read-only transaction reads every slice.
    /// Once that connection is open, ``changeToken()`` reads on it too.
    public func fetchAhead(_ entity: Entity, attributes: [String], keys: [[AttributeValue]]) throws -> [RowSnapshot] {
        try Self.run("finding \(entity.name) by \(attributes.joined(separator: ", ")) ahead", location: location) {
            let lookup = try keyLookup(entity, attributes: attributes, keys: keys)
            guard !lookup.statements.isEmpty else { return [] }
            return try onAheadConnection { connection in
                let single = lookup.statements.count == 1
                if !single { _ = try connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: Self.logger).wait() }
                do {
                    let rows = try lookup.rows { try connection.query($0, logger: Self.logger).wait().rows }
                    if !single { _ = try connection.query("COMMIT", logger: Self.logger).wait() }
                    return rows
                } catch {
                    // The read's error is the one to report; a read-only transaction changes nothing.
                    if !single { _ = try? connection.query("ROLLBACK", logger: Self.logger).wait() }
                    throw error
                }
            }
        }
    }

    /// Runs `body` on the second connection, holding it (opened on first use).
    func onAheadConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try aheadConnection.withLock { connection in
            let connection = try connection ?? { () throws -> PostgresConnection in
                let opened = try Self.connect(to: location)
                connection = opened
                return opened
            }()
            return try body(connection)
        }
    }

    /// Runs `body`: a PostgreSQL store has nothing to set for a run of saves.
    public func bulkWriting<T>(_ body: () throws -> T) throws -> T {
        try body()
    }
}
