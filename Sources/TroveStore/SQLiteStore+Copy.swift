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

extension SQLiteStore: ScratchCopyingStore {
    /// Runs `body` on a copy of the store (``copy(to:)``) in a folder of its own in the
    /// temporary directory (`TMPDIR`), or in memory for a store in memory, and removes it after.
    public func withScratchCopy<T>(_ body: (any PersistentStore) throws -> T) throws -> T {
        guard url != nil else { return try body(try copy(to: nil)) }
        // The copy is released, and so closed, when `body` returns.
        return try SQLiteStore.withScratchFolder { try body(try copy(to: $0.appendingPathComponent("copy.trove"))) }
    }

    /// Runs `body` with a new folder of its own in the temporary directory (`TMPDIR`), for
    /// scratch stores, and removes the folder after.
    /// - Throws: ``StoreError/Code/fileAccess`` when the folder cannot be made or removed;
    ///   what `body` throws.
    package static func withScratchFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let manager = FileManager.default
        let folder = manager.temporaryDirectory.appendingPathComponent("trove-scratch-\(UUID().uuidString)", isDirectory: true)
        do {
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.fileAccess, "a scratch copy of the store goes in the temporary directory, but \(folder.path) cannot be made:"
                + " \(error.localizedDescription); set TMPDIR to a folder with room for a copy of the store")
        }
        let result: T
        do {
            result = try body(folder)
        } catch {
            try? manager.removeItem(at: folder)  // The error of the work or of the copy is the one to report.
            throw error
        }
        do {
            try manager.removeItem(at: folder)
        } catch {
            throw StoreError(.fileAccess, "the scratch copy of the store in \(folder.path) could not be removed: \(error.localizedDescription); remove it by hand")
        }
        return result
    }
}
