import GRDB

/// Writing when other processes share the file: the write lock, checkpoints, change tokens.
///
/// What runs under the write lock (``WriteLock``, `STORE-lock`): opening the pool (GRDB writes
/// then), schema creation and metadata writes at open, every save, explicit checkpoints, and
/// closing. SQLite's automatic checkpoint (`wal_autocheckpoint`, ``Options/autoCheckpointPages``)
/// runs inside the `COMMIT` of the connection that commits, so inside the save and under the
/// lock; the other connections of the store are read-only and never checkpoint, not even when
/// they close last. Reads take no lock.
extension SQLiteStore {
    /// Runs `body` on the writer connection, outside any transaction, holding the write lock.
    /// Every write of the store goes through here.
    func writeLocked<T>(_ doing: String, _ body: (Database) throws -> T) throws -> T {
        guard !options.readOnly else {
            throw StoreError(.readOnly, "\(doing): \(url?.path ?? "the store") was opened for reading only"
                + " (SQLiteStore.Options.readOnly, as `trove query`, `count` and `inspect` open it); open it for writing to write")
        }
        return try exclusively(doing) { try writer.writeWithoutTransaction(body) }
    }

    /// Runs `body` holding the store's write lock — taken first, then the writer connection,
    /// always in that order: the cross-process ``WriteLock`` of a file store, an in-process lock
    /// in memory. A thread holding it may take it again.
    private func exclusively<T>(_ doing: String, _ body: () throws -> T) throws -> T {
        if let writeLock { return try writeLock.withLock(timeout: options.busyTimeout, clock: options.clock, doing: doing, body) }
        memoryWriteLock.lock()
        defer { memoryWriteLock.unlock() }
        return try body()
    }

    /// Holds the write lock while `body` reads and then saves: no other writer — another
    /// process, another store on the same file, another thread — commits in between, so that
    /// what `body` read as missing is still missing when it saves. Saves, fetches and change
    /// tokens inside `body` work as usual (the lock is held once, by the outermost call).
    ///
    /// Other writers wait meanwhile (and fail with ``StoreError/Code/busy`` after
    /// ``Options/busyTimeout``): keep `body` short, one batch.
    /// - Throws: ``StoreError/Code/busy`` when another writer kept the lock for
    ///   ``Options/busyTimeout``; whatever `body` throws.
    public func writingExclusively<T>(_ body: () throws -> T) throws -> T {
        try exclusively("writing exclusively", body)
    }

    /// Copies the whole write-ahead log into the store file and empties the log (a `TRUNCATE`
    /// checkpoint), under the write lock. Does nothing in memory.
    ///
    /// Saves already checkpoint every ``Options/autoCheckpointPages`` pages; call this before
    /// copying the store file with other tools, or to give back disk space after a large import.
    /// - Throws: ``StoreError/Code/busy`` when another process is writing, or when a reader
    ///   (in any process) still reads an old part of the log after ``Options/busyTimeout``.
    public func checkpoint() throws {
        guard url != nil else { return }
        try SQLiteStore.mapErrors("checkpointing \(url?.path ?? "")") {
            _ = try writeLocked("checkpointing") { db in
                try db.checkpoint(.truncate)
            }
        }
    }

    /// How many pages the write-ahead log may hold during ``bulkWriting(_:)`` before a save
    /// copies them into the store file: 40,000 (about 160 MB of disk while an import runs;
    /// ``checkpoint()`` or closing the store gives it back). With the usual 1000, nearly every
    /// save of a large import's chunk filled the log; a million-record import took 23% longer
    /// with 1000 than with 10,000, and its update 13% longer with 10,000 than with 40,000 (a page
    /// that many chunks rewrite is copied once per checkpoint; 100,000 gained nothing more).
    public static let bulkCheckpointPages = 40_000

    /// A store opened with ``Options/autoCheckpointPages`` 0 (no automatic copy: the app
    /// checkpoints itself) or with more than ``bulkCheckpointPages`` runs `body` as it is.
    public func bulkWriting<T>(_ body: () throws -> T) throws -> T {
        guard url != nil, (1..<Self.bulkCheckpointPages).contains(options.autoCheckpointPages) else { return try body() }
        try setBulk(entering: true)
        defer {
            do {
                try setBulk(entering: false)
            } catch {
                // The log keeps what was not copied; the next save's checkpoint copies it.
                SQLiteStore.logger.debug("bulk writing ended without its checkpoint", metadata: ["reason": "\(error)"])
            }
        }
        return try body()
    }

    /// Counts bulk runs in and out: the first in raises the checkpoint threshold and keeps
    /// statement journals in memory, the last out restores both and copies the log into the file
    /// (passively: readers are never waited for).
    ///
    /// A statement journal holds the pages one statement changed, so that a failing statement
    /// can be undone alone: a save's many-row INSERTs need one, and SQLite writes it to a
    /// temporary file once past 64 KiB — a 100,000-record import wrote 250 MB there, a million
    /// 2.5 GB. A bulk run's statements are small (at most 64 rows), so in memory each journal
    /// stays under a megabyte; outside bulk runs a statement may change a whole table, and the
    /// journal goes back to its file.
    private func setBulk(entering: Bool) throws {
        try bulkRuns.withLock { runs in
            runs += entering ? 1 : -1
            guard runs == (entering ? 1 : 0) else { return }
            let pages = entering ? Self.bulkCheckpointPages : options.autoCheckpointPages
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(pages)")
                try db.execute(sql: "PRAGMA temp_store = \(entering ? "MEMORY" : "DEFAULT")")
            }
            if !entering {
                _ = try writeLocked("checkpointing") { try $0.checkpoint(.passive) }
            }
        }
    }

    /// A token for the store's state now; reads no row.
    ///
    /// A file store answers with SQLite's `PRAGMA data_version` on a read-only connection of its
    /// own, which changes whenever any other connection commits to the file: another process,
    /// another store on the same file in this process, and this store's own saves (its writer is
    /// another connection too). ``SaveResult/changeTokenBefore`` and
    /// ``SaveResult/changeTokenAfter`` tell a save's own commit apart from the others.
    /// A `TRUNCATE` checkpoint may change the token without changing a row. An in-memory store
    /// counts its commits.
    public func changeToken() throws -> StoreChangeToken {
        guard let observer else {
            return StoreChangeToken(storeID: storeID, version: commitCount.load(ordering: .acquiring))
        }
        return StoreChangeToken(storeID: storeID, version: try observer.dataVersion())
    }

    /// The token now, or `nil` when it cannot be read: taken around a save's commit, where an
    /// error must not turn a saved change set into a failed save.
    func changeTokenIfReadable() -> StoreChangeToken? {
        try? changeToken()
    }
}
