public import Foundation
import GRDB

extension SQLiteStore {
    /// A copy of the store — every row and its metadata, as of one read — opened as a store of
    /// its own: at `url` (which must not exist yet), or in memory for `nil`. Writes to the copy
    /// never reach this store; an import's dry run works on one (``SQLiteStore`` only reads
    /// this store meanwhile, so a store opened for reading only may be copied).
    ///
    /// The copy takes this store's model and options, but for `synchronous=NORMAL` (a scratch
    /// copy needs no power-loss durability) and no statement observer.
    /// > Warning: It costs a copy of the whole store: its size on disk (or in memory), and the
    /// > time to write it (SQLite's backup API copies pages, not rows).
    /// - Throws: ``StoreError`` when this store cannot be read or the copy cannot be written.
    public func copy(to url: URL?) throws -> SQLiteStore {
        var options = self.options
        options.durability = .normal
        options.statementObserver = nil
        options.readOnly = false
        options.migration = .refuse
        let copy = try url.map { try SQLiteStore(url: $0, model: model, options: options) }
            ?? SQLiteStore(inMemoryWith: model, options: options)
        let place = "copying \(self.url?.path ?? "an in-memory store") to \(url?.path ?? "memory")"
        try SQLiteStore.mapErrors(place) {
            try copy.writeLocked(place) { destination in
                try writer.read { source in try source.backup(to: destination) }
            }
        }
        return copy
    }
}
