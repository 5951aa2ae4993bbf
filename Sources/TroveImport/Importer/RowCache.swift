import TroveModel
import TroveStore

/// The stored rows of the objects an import's records share — nested objects and references:
/// owners, tags — kept from one batch to the next, so that a batch reads from the store only the
/// keys it has not met yet. Top-level records are not kept (an input names most once), but a
/// kept row that a top-level record changes is brought up to date.
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
    /// The import's last saves, oldest first: the store's tokens around each, and the hashes of
    /// the keys of the rows it wrote, sorted (for ``keysWritten(since:current:)``).
    private var saves: [(before: StoreChangeToken?, after: StoreChangeToken?, written: [Int])] = []
    /// The hashes of the keys a staged save writes, sorted, while it runs unconfirmed (its rows
    /// are kept already, as it will leave them): see ``keepStaged(_:written:)``.
    private var staged: [Int]?
    /// Whether another writer committed between the import's last two saves: then a batch
    /// staged on the rows of the save before it would most likely have to run again, and the
    /// importer runs batches the ordinary way until its saves follow each other again.
    private(set) var othersWrite = false
    /// Saves remembered: more than a reading thread runs ahead of the importing one (at most
    /// 8 chunks, ``Importer/importJSON(_:into:root:)``'s).
    private static let savesKept = 10

    /// The row stored under `key`, if kept.
    subscript(key: UniqueKey) -> RowSnapshot? { rows[key] }

    /// Forgets every row unless the store is still as the import's last save left it.
    mutating func check(against current: StoreChangeToken?) {
        if token == nil || token != current { forget() }
    }

    mutating func forget() {
        rows.removeAll(keepingCapacity: true)
        token = nil
        saves.removeAll()
        staged = nil
    }

    /// Forgets every row unless the store is still as the import's last save left it, and
    /// takes the store as of `current` as known (for a batch staged while no save runs).
    mutating func begin(at current: StoreChangeToken?) {
        check(against: current)
        token = current
    }

    /// Notes a save of the import: the store's tokens just before and after it, and the keys of
    /// the rows it inserted or changed.
    mutating func noteSave(before: StoreChangeToken?, after: StoreChangeToken?, written: some Sequence<UniqueKey>) {
        if let last = saves.last { othersWrite = before == nil || last.after != before }
        remember(before: before, after: after, written: written.map(\.valuesHash).sorted())
    }

    /// Adds a save to ``saves``, letting the oldest go past ``savesKept``.
    private mutating func remember(before: StoreChangeToken?, after: StoreChangeToken?, written: [Int]) {
        if saves.count == Self.savesKept { saves.removeFirst() }
        saves.append((before, after, written))
    }

    /// Puts `saved` in ``rows``: every row already kept, new ones up to ``limit``.
    private mutating func store(_ saved: some Sequence<(UniqueKey, RowSnapshot)>) {
        for (key, row) in saved where rows.count < Self.limit || rows[key] != nil {
            rows[key] = row
        }
    }

    /// Keys some saves wrote, known by their hashes: a key of the same hash as one written
    /// counts as written too (its row is then only read again).
    struct WrittenKeys {
        fileprivate var sortedHashes: [[Int]] = []

        func contains(_ key: UniqueKey) -> Bool {
            sortedHashes.contains { hashes in
                // The first hash not below the key's.
                var (low, high) = (0, hashes.count)
                while low < high {
                    let middle = (low + high) / 2
                    if hashes[middle] < key.valuesHash { low = middle + 1 } else { high = middle }
                }
                return low < hashes.count && hashes[low] == key.valuesHash
            }
        }
    }

    /// The keys the import's saves wrote since the store's token was `token`, when those saves
    /// are all that was written since and the store's token is now `current`: rows read then
    /// still hold for every other key. `nil` when that cannot be told (another writer, a save
    /// not remembered, a token unknown).
    func keysWritten(since token: StoreChangeToken, current: StoreChangeToken?) -> WrittenKeys? {
        guard let current else { return nil }
        if token == current { return WrittenKeys() }
        guard let first = saves.firstIndex(where: { $0.before == token }) else { return nil }
        var written = WrittenKeys()
        var expected = token
        for save in saves[first...] {
            guard save.before == expected, let after = save.after else { return nil }
            written.sortedHashes.append(save.written)
            expected = after
        }
        return expected == current ? written : nil
    }

    /// The keys the import's saves wrote since the store's token was `token`, the staged save's
    /// among them, when they are all that was written since the last confirmed save (see
    /// ``keysWritten(since:current:)``).
    func keysWrittenWithStaged(since token: StoreChangeToken) -> WrittenKeys? {
        guard let last = self.token, var written = keysWritten(since: token, current: last) else { return nil }
        if let staged { written.sortedHashes.append(staged) }
        return written
    }

    /// Keeps the rows a staged save will leave, as if it had committed, and the keys it writes;
    /// ``confirm(before:after:)`` says whether it came right after the last save.
    mutating func keepStaged(_ saved: some Sequence<(UniqueKey, RowSnapshot)>, written: some Sequence<UniqueKey>) {
        staged = written.map(\.valuesHash).sorted()
        store(saved)
    }

    /// Notes that the staged save committed between the store's tokens `before` and `after`.
    /// Returns whether the rows kept still hold: when someone else committed since the last
    /// save (`before` is not its token), they may not, and every row is forgotten.
    mutating func confirm(before: StoreChangeToken?, after: StoreChangeToken?) -> Bool {
        guard let written = staged, let before, before == token, let after else {
            forget()
            othersWrite = true
            return false
        }
        staged = nil
        othersWrite = false
        remember(before: before, after: after, written: written)
        token = after
        return true
    }

    /// Keeps the rows of a save, and the store's token after it (`nil` keeps nothing).
    mutating func keep(_ saved: some Sequence<(UniqueKey, RowSnapshot)>, after token: StoreChangeToken?) {
        guard let token else {
            forget()
            return
        }
        self.token = token
        store(saved)
    }
}
