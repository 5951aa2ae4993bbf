import TroveModel
import TroveStore

/// The stored rows of the objects an import's records share — nested objects and references:
/// owners, tags — kept from one batch to the next, so that a batch reads from the store only the
/// keys it has not met yet. Top-level records are not kept: an input names each once.
///
/// The rows are what the import's own last save left, so they hold only while no one else has
/// written since: each batch first compares the store's change token with the one that save
/// returned, and forgets every row when they differ (or when either is unknown).
struct RowCache {
    /// At most this many rows are kept (about 8 MiB, some 400 bytes a row): rows met once the
    /// cache is full are not kept, those kept are still brought up to date. An import's memory
    /// stays flat: a million records of 50,000 owners keep 20,000 of them. Measured there:
    /// 10,000 rows took 19.8 s and peaked at 60 MiB, 20,000 16.8 s and 64 MiB, 30,000 17.4 s
    /// and 71 MiB (1.24x a 100,000-record import's 57 MiB: near the 1.3x flat memory allows).
    static let limit = 20_000

    private var rows: [UniqueKey: RowSnapshot] = [:]
    /// The store's token just after the save that left `rows`.
    private var token: StoreChangeToken?

    /// The row stored under `key`, if kept.
    subscript(key: UniqueKey) -> RowSnapshot? { rows[key] }

    /// Forgets every row unless the store is still as the import's last save left it.
    mutating func check(against current: StoreChangeToken?) {
        if token == nil || token != current { forget() }
    }

    mutating func forget() {
        rows.removeAll(keepingCapacity: true)
        token = nil
    }

    /// Keeps the rows of a save, and the store's token after it (`nil` keeps nothing).
    mutating func keep(_ saved: some Sequence<(UniqueKey, RowSnapshot)>, after token: StoreChangeToken?) {
        guard let token else {
            forget()
            return
        }
        self.token = token
        for (key, row) in saved where rows.count < Self.limit || rows[key] != nil {
            rows[key] = row
        }
    }
}
