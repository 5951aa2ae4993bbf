import Foundation
import Testing
import TroveContext
import TroveModel
import TrovePredicate
import TroveStore
import TroveTesting

/// Prefetching reads each relationship level in a query or two, whatever the number of
/// objects, and keeps what it read for as long as the results live.
@Suite struct PrefetchTests {
    /// The SELECT statements a store runs, as its observer reports them.
    final class StatementLog: Sendable {
        private let selects = Locked<[String]>([])

        func record(_ sql: String) {
            if sql.hasPrefix("SELECT") { selects.withLock { $0.append(sql) } }
        }
        var count: Int { selects.withLock { $0.count } }
    }

    /// 300 photos, each with an owner among 30 photographers; returns the store and its log.
    func filledStore() throws -> (SQLiteStore, StatementLog) {
        let log = StatementLog()
        let store = try SQLiteStore(inMemoryWith: SampleModels.photos(), options: .init(statementObserver: { log.record($0) }))
        let context = try ObjectContext(store: store)
        var owners: [ManagedObject] = []
        for i in 0..<30 {
            let owner = try context.insert("Photographer")
            try owner.setValue("o\(i)", forKey: "id")
            try owner.setValue("Owner \(i)", forKey: "name")
            owners.append(owner)
        }
        for i in 0..<300 {
            let photo = try context.insert("Photo")
            try photo.setValue("p\(i)", forKey: "id")
            try photo.setRelatedObject(owners[i % 30], forKey: "whoTook")
        }
        try context.save()
        return (store, log)
    }

    @Test(arguments: [0, 100])
    func prefetchedToOneAndToManyReadNothingMore(batchSize: Int) throws {
        let (store, log) = try filledStore()
        let context = try ObjectContext(store: store)
        var request = FetchRequest(entityName: "Photo")
        request.fetchBatchSize = batchSize
        request.relationshipKeyPathsForPrefetching = ["whoTook.photos"]
        let before = log.count
        var names: Set<String> = []
        var counts = 0
        for photo in try context.fetch(request) {
            let owner = try photo.relatedObject(forKey: "whoTook")
            names.insert(try owner?.value(forKey: "name", as: String.self) ?? "")
            counts += try owner?.relatedObjects(forKey: "photos").count ?? 0
        }
        #expect(names.count == 30)
        #expect(counts == 300 * 10)
        let batches = batchSize == 0 ? 1 : 300 / batchSize
        // The fetch, then per batch at most: its rows (read by the fetch when unbatched), the
        // owners, and the owners' photos (600 and 2,674 SELECTs before prefetching was kept).
        #expect(log.count - before <= (batchSize == 0 ? 3 : 1 + batches * 3))
    }
}
