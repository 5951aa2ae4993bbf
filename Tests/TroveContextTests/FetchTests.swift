import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct FetchTests {
    let dir: TemporaryDirectory
    let recorder = SQLRecorder()
    let container: Container
    let context: ObjectContext

    /// 10 photographers p0…p9, each with i photos (views = 10 * i + j), and one tag per photo.
    init() throws {
        dir = try TemporaryDirectory()
        let store = try SQLiteStore(url: dir.file("photos.trove"), model: SampleModels.photos(),
                                    options: .init(statementObserver: recorder.observer))
        container = try Container(store: store)
        let setup = container.newBackgroundContext()
        for i in 0..<10 {
            let photographer = try setup.insert("Photographer")
            try photographer.setValue("p\(i)", forKey: "id")
            try photographer.setValue("Name \(9 - i)", forKey: "name")
            for j in 0..<i {
                let photo = try setup.insert("Photo")
                try photo.setValue("p\(i)-\(j)", forKey: "id")
                try photo.setValue(Int64(10 * i + j), forKey: "views")
                try photo.setValue(j % 2 == 0 ? "Sunset \(i)" : "Beach \(i)", forKey: "title")
                try photo.setRelatedObject(photographer, forKey: "whoTook")
            }
        }
        try setup.save()
        context = container.newBackgroundContext()
        recorder.reset()
    }

    func request(_ entity: String, _ format: String? = nil, _ arguments: any PredicateArgument...,
                 sort: String? = nil) throws -> FetchRequest {
        var request = FetchRequest(entityName: entity)
        request.predicate = try format.map { try ObjectPredicate(format: $0, arguments: arguments) }
        request.sortDescriptors = try sort.map { try SortKey.parse($0) } ?? []
        return request
    }

    func ids(_ results: FetchedResults<ManagedObject>) throws -> [String] {
        try results.map { try $0.value(forKey: "id", as: String.self) ?? "nil" }
    }

    @Test func predicateSortLimitAndOffsetRunAsOneStatement() throws {
        var request = try request("Photo", "views >= %d AND title BEGINSWITH %@", 80, "Sunset", sort: "-views")
        request.fetchLimit = 3
        request.fetchOffset = 1
        let results = try context.fetch(request)
        #expect(try ids(results) == ["p9-6", "p9-4", "p9-2"])
        #expect(recorder.selects.count == 1, "\(recorder.statements)")
        #expect(try context.count(for: request) == 3)
        #expect(try context.count(for: self.request("Photo", "whoTook.name == %@", "Name 0")) == 9)
    }

    @Test func unsavedChangesAreSeenByFetchesAndCounts() throws {
        let request = try request("Photo", "views > %d", 95, sort: "views")
        #expect(try ids(context.fetch(request)) == ["p9-6", "p9-7", "p9-8"])
        let fresh = try context.insert("Photo")
        try fresh.setValue("new", forKey: "id")
        try fresh.setValue(96, forKey: "views")
        let lowered = try #require(context.fetch(request).first)
        try lowered.setValue(1, forKey: "views")
        let raised = try #require(context.fetch(self.request("Photo", "id == %@", "p1-0")).first)
        try raised.setValue(100, forKey: "views")
        try context.delete(try #require(context.fetch(self.request("Photo", "id == %@", "p9-8")).first))

        #expect(try ids(context.fetch(request)) == ["new", "p9-7", "p1-0"])
        #expect(try context.count(for: request) == 3)
        var storeOnly = request
        storeOnly.includesPendingChanges = false
        #expect(try ids(context.fetch(storeOnly)) == ["p9-6", "p9-7", "p9-8"])
        var windowed = request
        windowed.fetchLimit = 1
        windowed.fetchOffset = 1
        #expect(try ids(context.fetch(windowed)) == ["p9-7"])
        #expect(try context.fetchObjectIDs(windowed) == [try #require(context.fetch(windowed).first).objectID])
    }

    @Test func batchedResultsLoadOneBatchAtATime() throws {
        var request = try request("Photo", sort: "views")
        request.fetchBatchSize = 10
        let results = try context.fetch(request)
        #expect(results.count == 45)
        #expect(recorder.selects.count == 1, "the fetch reads IDs only")
        #expect(context.registeredObjectCount == 0)
        _ = try results[0].value(forKey: "views")
        _ = try results[9].value(forKey: "views")
        #expect(recorder.selects.count == 2, "one query for the first batch")
        let views = try results.map { try $0.value(forKey: "views", as: Int.self) ?? -1 }
        #expect(views == views.sorted() && views.count == 45)
        #expect(recorder.selects.count == 6, "five batches in all: \(recorder.selects)")
    }

    @Test func batchesInKeyOrderAreReadByRangeAndKeepTheObjectsInMemory() throws {
        let held = try #require(try context.fetchFirst("Photo", where: "id == %@", "p9-3"))
        try held.setValue("changed", forKey: "title")
        var faultRequest = try request("Photo", "id == %@", "p9-4")
        faultRequest.returnsObjectsAsFaults = true
        let fault = try #require(try context.fetch(faultRequest).first)
        #expect(fault.isFault)

        for includesPendingChanges in [true, false] {
            var request = try request("Photo")
            request.fetchBatchSize = 10
            request.includesPendingChanges = includesPendingChanges
            let results = try context.fetch(request)
            recorder.reset()
            var ids: [String] = []
            for photo in results {
                ids.append(try photo.value(forKey: "id", as: String.self) ?? "?")
                if photo.objectID == held.objectID {
                    #expect(photo === held)
                    #expect(try photo.value(forKey: "title") == "changed", "unsaved changes stay")
                }
                if photo.objectID == fault.objectID {
                    #expect(photo === fault)
                    #expect(!fault.isFault)
                }
                #expect(context.registeredObjectCount <= 12, "one batch in memory, and the two objects held")
            }
            #expect(ids == (0..<10).flatMap { i in (0..<i).map { "p\(i)-\($0)" } }, "key order")
            #expect(recorder.selects.count == 5, "\(recorder.selects)")
            #expect(recorder.selects.allSatisfy { $0.contains("BETWEEN") }, "\(recorder.selects)")
        }
    }

    @Test func faultsReadTheirRowOnFirstAccess() throws {
        var request = try request("Photographer", sort: "id")
        request.returnsObjectsAsFaults = true
        let results = try context.fetch(request)
        let first = results[0]
        #expect(first.isFault)
        #expect(first.description == "\(first.objectID) <fault>")
        recorder.reset()
        #expect(try first.value(forKey: "name") == "Name 9")
        #expect(!first.isFault)
        #expect(recorder.selects.count == 1)
    }

    @Test func relationshipsAreFaultsUntilTouchedAndLoadInOneQuery() throws {
        let photographers = try context.fetch(request("Photographer", "id == %@", "p5"))
        recorder.reset()
        let photos = try photographers[0].relatedObjects(forKey: "photos")
        #expect(photos.count == 5)
        #expect(recorder.selects.count == 1, "a to-many loads with one query")
        recorder.reset()
        _ = try photos.map { try $0.relatedObject(forKey: "whoTook") }
        #expect(recorder.selects.isEmpty, "the to-one's row is already in memory")
        let other = container.newBackgroundContext()
        let photo = try #require(other.fetch(request("Photo", "id == %@", "p7-0")).first)
        recorder.reset()
        #expect(try photo.relatedObject(forKey: "whoTook")?.value(forKey: "id") == "p7")
        #expect(recorder.selects.count == 1, "touching a to-one loads one row")
    }

    @Test func prefetchingLoadsAKeyPathWithOneQueryPerLevel() throws {
        // Without prefetching: one query per photographer (N+1).
        let plain = try context.fetch(request("Photographer", sort: "id"))
        for photographer in plain { _ = try photographer.relatedObjects(forKey: "photos") }
        #expect(recorder.selects.count == 11)

        let other = container.newBackgroundContext()
        recorder.reset()
        var request = try request("Photographer", sort: "id")
        request.relationshipKeyPathsForPrefetching = ["photos", "photos.whoTook"]
        let prefetched = try other.fetch(request)
        #expect(recorder.selects.count == 2, "the fetch, then every photographer's photos at once")
        let photos = try prefetched.flatMap { try $0.relatedObjects(forKey: "photos") }
        let owners = try photos.map { try $0.relatedObject(forKey: "whoTook")?.objectID }
        #expect(photos.count == 45 && owners.allSatisfy { $0 != nil })
        #expect(recorder.selects.count == 2, "touching prefetched relationships reads nothing")
    }

    @Test func fetchErrorsNameTheProblem() throws {
        let unknownEntity = try #require(throws: StoreError.self) { try context.fetch(FetchRequest(entityName: "Nope")) }
        #expect(unknownEntity.message.contains("Photographer, Photo"))
        let unknownKey = try #require(throws: Trove.ObjectPredicateError.self) { try context.fetch(request("Photo", "veiws > 3")) }
        #expect(unknownKey.description.contains("views"))
        var badPrefetch = try request("Photo")
        badPrefetch.relationshipKeyPathsForPrefetching = ["owner"]
        #expect(throws: ObjectError.self) { try context.fetch(badPrefetch) }
    }
}
