import Foundation
import Testing
import Trove

/// The examples of the article "Fetching" (`Fetching.md`).
@Suite struct FetchingExamples {
    @Test func formatStrings() throws {
        let graph = try SmallGraph()
        let context = graph.context

        // One-liners on a context:
        let popular = try context.fetch("Photo", where: "views > %d AND whoTook.name == %@", 100, "Ann", sortedBy: "-views,title:ci")
        let first = try context.fetchFirst("Photographer", whereKey: "id", equals: "ann")
        let count = try context.fetchCount("Photo", where: "ANY tags.name IN %@", ["sea", "sky"])
        let any = try context.exists("Photo", where: "title CONTAINS[cd] %@", "cafe")
        try context.deleteAll("Photo", where: "views == 0")

        // The full request:
        var request = FetchRequest(entityName: "Photo")
        request.predicate = try ObjectPredicate(format: "SUBQUERY(tags, $t, $t.name BEGINSWITH 's').@count > 1")
        request.sortDescriptors = [SortKey("uploadDate", ascending: false)]
        request.fetchLimit = 20
        request.fetchBatchSize = 500                        // iterate millions with flat memory
        request.relationshipKeyPathsForPrefetching = ["whoTook"]
        let results = try context.fetch(request)            // a lazy RandomAccessCollection

        #expect(popular == [graph.photo])
        #expect(first === graph.ann)
        #expect(count == 1)
        #expect(any)
        #expect(graph.other.isRemoved, "deleted in the store at once")
        #expect(Array(results) == [graph.photo])
        #expect(try Array(context.fetch(request, as: Photo.self)) == [graph.photo])
    }

    @Test func batchRequests() throws {
        let graph = try SmallGraph()
        let context = graph.context

        let gone = try context.execute(BatchDeleteRequest(entityName: Photo.entityName, where: "views == %d", 0))
        print(gone.count, gone.objectIDs, gone.cascadedObjectIDs)

        var request = try BatchUpdateRequest(Photo.self, where: #Predicate { $0.views > 100 })
        request.values = ["title": "Popular"]
        let renamed = try context.execute(request)
        let cleared = try context.updateAll(Photo.entityName, where: "title == %@", "Popular", set: ["title": nil])

        #expect(gone.objectIDs == [graph.other.objectID] && graph.other.isRemoved)
        #expect(renamed.objectIDs == [graph.photo.objectID] && !renamed.usedObjects)
        #expect(cleared == 1 && graph.photo.title == nil)
    }

    @Test func aMalformedPredicateSaysWhere() throws {
        let graph = try SmallGraph()
        let context = graph.context
        #expect(throws: ObjectPredicateError.self) { try context.fetch(Photo.self, where: "veiws > %d", 3) }
        #expect(throws: ObjectPredicateError.self) { try ObjectPredicate(format: "views >") }
    }

    @Test func typedPredicates() throws {
        let graph = try SmallGraph()
        let context = graph.context

        let predicate = #Predicate<Photo> { photo in
            photo.views > 100 && photo.tags.contains { $0.name.starts(with: "s") }
        }
        let count = try context.fetchCount(Photo.self, where: predicate)

        #expect(count == 1)
    }

    @Test func objectsInPredicates() throws {
        let graph = try SmallGraph()
        let context = graph.context, ann = graph.ann, photo = graph.photo, other = graph.other

        let hers = try context.fetch(Photo.self, where: "whoTook == %@", ann)
        let these = try context.fetch(Photo.self, where: "SELF IN %@", [photo.objectID, other.objectID])

        #expect(hers == [photo])
        #expect(Set(these) == [photo, other])
    }

    @Test func aggregates() throws {
        let graph = try SmallGraph()
        let context = graph.context
        try context.save()

        let total = try context.sum(of: "views", in: Photo.entityName, where: "whoTook.name == %@", "Ann")
        let newest = try context.maximum(of: "uploadDate", in: Photo.entityName)

        var request = AggregateRequest(entityName: Photo.entityName, groupBy: ["whoTook.name"],
                                       aggregates: [.count(as: "photos"), .sum("views", as: "total"), .avg("views")])
        request.predicate = try ObjectPredicate(format: "views > %d", 0)
        request.having = try ObjectPredicate(format: "photos > %d", 1)
        request.sortDescriptors = [SortKey("total", ascending: false)]
        for group in try context.fetchAggregates(request) {
            print(group["whoTook.name"] ?? .null, group["photos"] ?? .null, group["avg(views)"] ?? .null)
        }

        #expect(total == .integer(graph.photo.views))
        #expect(newest != .null || graph.photo.uploadDate == nil)
        request.having = nil
        #expect(try context.fetchAggregates(request).first?["whoTook.name"] == "Ann")
    }
}
