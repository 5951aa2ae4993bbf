import Foundation
import TroveModel
import TroveStore

/// The stored rows of a batch's keys, read on the reading thread while the importing thread
/// saves the batches before it (``BulkWritingStore/fetchAhead(_:attributes:keys:)``), with the
/// store's token taken just before. The importing thread uses them for the keys no save since
/// wrote (``RowCache/keysWritten(since:current:)``), and reads the others itself.
struct RowsReadAhead {
    /// The rows read for one lookup: those of `keys`, or of all its keys when `keys` is `nil`.
    struct Group {
        let group: UniqueKey.Group
        let rows: [RowSnapshot]
        let keys: Set<UniqueKey>?

        /// Whether the rows answer for `key` (found or not).
        func covers(_ key: UniqueKey) -> Bool { keys?.contains(key) ?? true }
    }

    let token: StoreChangeToken
    let groups: [Group]

    /// Reads rows ahead for the batches of one import, in order: every top-level record's key,
    /// and the shared keys (nested objects, references) first met in this batch — the rows of
    /// those met before are most likely kept by the importing thread (``RowCache``) already.
    struct Reader {
        let source: Source
        /// Shared keys met in earlier batches, as many as the ``RowCache`` keeps.
        private var met: Set<UniqueKey> = []

        init(_ source: Source) {
            self.source = source
        }

        /// The rows of `records`' keys, or `nil` when they could not be read (the importing
        /// thread then reads them) or the records need objects (which find their rows otherwise).
        mutating func read(_ records: ParsedRecords) -> RowsReadAhead? {
            defer { noteShared(records) }
            let needsObjects = records.needs.contains { if case .objects = $0 { true } else { false } }
            guard records.failure == nil, !needsObjects else { return nil }
            return source.reading { store in read(records, from: store) }
        }

        private func read(_ records: ParsedRecords, from store: any PersistentStore) -> RowsReadAhead? {
            guard let store = store as? any BulkWritingStore, let token = try? store.changeToken() else { return nil }
            // The top-level records' groups are read whole: their keys are not kept between batches.
            var topLevel: [UniqueKey.Group] = []
            for plan in records.plans {
                guard let key = plan.node.key, !topLevel.contains(where: { $0.root == key.root && $0.attributes == key.attributes }) else { continue }
                topLevel.append(UniqueKey.Group(root: key.root, attributes: key.attributes))
            }
            var groups: [Group] = []
            for lookup in records.lookups {
                let unmet = met.isEmpty || topLevel.contains(lookup.group) ? nil : lookup.keys.filter { !met.contains($0) }
                guard unmet?.isEmpty != true else { continue }
                let keys = unmet ?? lookup.keys
                let names = lookup.group.attributes.map { lookup.entity.attributes[$0].name }
                guard let rows = try? store.fetchAhead(lookup.entity, attributes: names, keys: keys.map(\.values)) else { return nil }
                groups.append(Group(group: lookup.group, rows: rows, keys: unmet))
            }
            return groups.isEmpty ? nil : RowsReadAhead(token: token, groups: groups)
        }

        private mutating func noteShared(_ records: ParsedRecords) {
            for plan in records.plans where met.count < RowCache.limit {
                for node in plan.nodes.dropFirst() {
                    if let key = node.key { met.insert(key) }
                }
                for (key, _) in plan.references { met.insert(key) }
            }
        }
    }

    /// The store rows are read ahead from, for as long as the import runs: ``close()`` (when the
    /// import stops) waits for a read in progress and lets the store go, so that once the import
    /// has returned nothing of it reads the store or keeps it open.
    ///
    /// `@unchecked`: `store` is guarded by `lock` (an `NSLock`, which Thread Sanitizer sees).
    final class Source: @unchecked Sendable {
        private let lock = NSLock()
        private var store: (any PersistentStore)?

        init(_ store: any PersistentStore) {
            self.store = store
        }

        /// What `read` makes of the store; `nil` once closed.
        func reading<T>(_ read: (any PersistentStore) -> T?) -> T? {
            lock.withLock { store.flatMap(read) }
        }

        func close() {
            lock.withLock { store = nil }
        }
    }
}
