import Foundation
public import TroveStore

/// A scratch copy of a store (an import's dry run): its tables copied into a schema of their own
/// in the same database.
extension PostgresStore: ScratchCopyingStore {
    /// Runs `body` on a copy of the store in a new schema of the same database
    /// (`trove_scratch_<UUID>`), made from one snapshot of every table, and drops the schema after.
    ///
    /// The copy's saves take a write lock of their own: they neither wait for the database's
    /// writers nor hold them up. The user needs the right to create schemas in the database
    /// (`CREATE` on it). A process killed meanwhile leaves the schema behind; drop it with
    /// `DROP SCHEMA trove_scratch_… CASCADE`.
    public func withScratchCopy<T>(_ body: (any PersistentStore) throws -> T) throws -> T {
        let name = "trove_scratch_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let source = try run("making a schema for a scratch copy of \(location)") {
            try query("CREATE SCHEMA \(quoted(name))")
            return try query("SELECT current_schema()").rows.first?.decode(String.self) ?? "public"
        }
        let result: T
        do {
            // The copy is released, and so closed, when `body` returns.
            result = try body(try copy(from: source, into: name))
        } catch {
            // The error of the work or of the copy is the one to report; a schema left behind is logged.
            do {
                try dropScratchSchema(name)
            } catch let dropError {
                Self.logger.warning("\(dropError)")
            }
            throw error
        }
        try dropScratchSchema(name)
        return result
    }

    /// A store in the empty schema `name` holding what this store's schema `source` holds, read
    /// in one repeatable-read transaction; its sequences go on from this store's.
    private func copy(from source: String, into name: String) throws -> PostgresStore {
        let copy = try PostgresStore(location: location.schema(name), model: model)
        let tables = schema.tables.map(\.name) + schema.joinTables.map(\.name) + [Self.metadataTable, Self.changesTable]
        try copy.run("copying \(location) into the schema \(name)") {
            try copy.query("BEGIN ISOLATION LEVEL REPEATABLE READ")
            do {
                // The new store's own metadata and counter make way for the copied ones.
                try copy.query("DELETE FROM \(quoted(Self.metadataTable))")
                try copy.query("DELETE FROM \(quoted(Self.changesTable))")
                // The tables have the same columns in the same order: the same model made them.
                for table in tables {
                    try copy.query("INSERT INTO \(quoted(table)) SELECT * FROM \(quoted(source)).\(quoted(table))")
                }
                for table in schema.tables {
                    let sequence = Self.sequence(of: table.name)
                    try copy.query("SELECT setval($1, last_value, is_called) FROM \(quoted(source)).\(quoted(sequence))",
                                   [.string("\(quoted(name)).\(quoted(sequence))")])
                }
                try copy.query("COMMIT")
            } catch {
                _ = try? copy.query("ROLLBACK")  // The copy's error is the one to report.
                throw error
            }
        }
        return copy
    }

    private func dropScratchSchema(_ name: String) throws {
        do {
            _ = try run("dropping the scratch copy in the schema \(name) of \(location)") {
                try query("DROP SCHEMA \(quoted(name)) CASCADE")
            }
        } catch let error as StoreError {
            throw StoreError(error.code, "\(error.message); drop the scratch copy by hand: DROP SCHEMA \(name) CASCADE")
        }
    }
}
