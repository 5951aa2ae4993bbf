import PostgresNIO
public import TroveModel
public import TroveStore

extension PostgresStore: BulkWritingStore {
    /// The rows ``fetchBeforeWriting(_:attributes:keys:)`` reads, all of them as of one moment:
    /// one read-only transaction reads every slice (on a reading connection, as every read).
    public func fetchAhead(_ entity: Entity, attributes: [String], keys: [[AttributeValue]]) throws -> [RowSnapshot] {
        try read("finding \(entity.name) by \(attributes.joined(separator: ", ")) ahead") { connection in
            let lookup = try keyLookup(entity, attributes: attributes, keys: keys)
            guard !lookup.statements.isEmpty else { return [] }
            let single = lookup.statements.count == 1
            if !single { _ = try connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: Self.logger).wait() }
            do {
                let rows = try lookup.rows { Array(try connection.query($0, logger: Self.logger).wait().rows) }
                if !single { _ = try connection.query("COMMIT", logger: Self.logger).wait() }
                return rows
            } catch {
                // The read's error is the one to report; a connection that cannot end its
                // transaction is closed, so that no later read finds it still open.
                if !single {
                    do { _ = try connection.query("ROLLBACK", logger: Self.logger).wait() } catch { try? connection.close().wait() }
                }
                throw error
            }
        }
    }

    /// Runs `body`: a PostgreSQL store has nothing to set for a run of saves.
    public func bulkWriting<T>(_ body: () throws -> T) throws -> T {
        try body()
    }
}
