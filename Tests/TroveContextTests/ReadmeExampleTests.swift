import Foundation
import Testing
import Trove
import TroveTesting

/// The README's examples, run as written, so the README stays true.
@Suite struct ReadmeExampleTests {
    @Test func theObjectsExampleRuns() throws {
        let dir = try TemporaryDirectory()
        let model = try Model(keyStyle: .snakeCase) {
            Entity("Photographer", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("name", .string)
                Relationship("photos", to: "Photo", toMany: true, inverse: "whoTook", deleteRule: .cascade)
            }
            Entity("Photo", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("title", .string, max: 80)
                Attribute("uploadDate", .date, remoteKey: ["upload_date"], dateFormat: .iso8601)
                Attribute("views", .integer64, default: 0, min: 0)
                Relationship("whoTook", to: "Photographer", inverse: "photos", remoteKey: ["owner"])
            }
        }
        let container = try Container(model: model, url: dir.file("photos.trove"))
        let context = container.newBackgroundContext()

        let photo = try context.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try photo.setValue("Sunset", forKey: "title")
        try context.save()
        #expect(!photo.objectID.isTemporary)

        let photos = try context.fetch(FetchRequest(entityName: "Photo"))
        let views = try photos[0].value(forKey: "views", as: Int.self)
        #expect(views == 0)
    }

    static func sampleModel() throws -> Model {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Examples/Photos/model.json")
        return try Model(contentsOf: url.standardizedFileURL)
    }

    @Test func theSampleModelLoads() throws {
        let model = try Self.sampleModel()
        #expect(model.entities.map(\.name) == ["Photographer", "Photo", "Tag"])
        #expect(model.warnings.isEmpty)
    }

    @Test func theRelationshipAndFetchingExamplesRun() throws {
        let context = try Container(store: SQLiteStore(inMemoryWith: Self.sampleModel())).newBackgroundContext()
        let photo = try context.insert("Photo"), other = try context.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try other.setValue("p2", forKey: "id")
        try photo.setValue(150, forKey: "views")
        try photo.setValue("Café", forKey: "title")
        for name in ["sea", "sky", "sand"] {
            let tag = try context.insert("Tag")
            try tag.setValue(name, forKey: "name")
            try photo.addRelatedObject(tag, forKey: "tags")
        }

        let ann = try context.insert("Photographer")
        try ann.setValue("ann", forKey: "id")
        try ann.setValue("Ann", forKey: "name")
        try photo.setRelatedObject(ann, forKey: "whoTook")
        #expect(try ann.relatedObjects(forKey: "photos") == [photo])
        try ann.addRelatedObject(other, forKey: "photos")
        #expect(try other.relatedObject(forKey: "whoTook") === ann)
        try context.save()

        let popular = try context.fetch("Photo", where: "views > %d AND whoTook.name == %@", 100, "Ann", sortedBy: "-views,title:ci")
        #expect(popular == [photo])
        #expect(try context.fetchFirst("Photographer", whereKey: "id", equals: "ann") === ann)
        #expect(try context.fetchCount("Photo", where: "ANY tags.name IN %@", ["sea", "sky"]) == 1)
        #expect(try context.exists("Photo", where: "title CONTAINS[cd] %@", "cafe"))
        var request = FetchRequest(entityName: "Photo")
        request.predicate = try ObjectPredicate(format: "SUBQUERY(tags, $t, $t.name BEGINSWITH 's').@count > 1")
        request.sortDescriptors = [SortKey("uploadDate", ascending: false)]
        request.fetchLimit = 20
        request.fetchBatchSize = 500
        request.relationshipKeyPathsForPrefetching = ["whoTook"]
        #expect(try Array(context.fetch(request)) == [photo])
        #expect(try context.deleteAll("Photo", where: "views == 0") == 1)
        try context.delete(ann)
        #expect(photo.isDeleted, "cascade: her photos go too")
    }
}

@Suite struct ReadmeConcurrencyExampleTests {
    @MainActor @Test func theContextsAndThreadsExampleRuns() async throws {
        let dir = try TemporaryDirectory()
        let model = try SampleModels.photos()
        let url = dir.file("photos.trove")
        let setup = try Container(model: model, url: url).newBackgroundContext()
        for i in 0..<3 {
            let photo = try setup.insert("Photo")
            try photo.setValue("p\(i)", forKey: "id")
            try photo.setValue(Int64(i + 1), forKey: "views")
        }
        try setup.save()

        let container = try Container(model: model, url: url)
        let photos = try container.viewContext.fetch("Photo", sortedBy: "-views")
        let ids = photos.map(\.objectID)
        try await container.performBackgroundTask { context in
            for id in ids {
                let photo = try context.object(with: id)
                try photo.setValue(0, forKey: "views")
            }
            try context.save()
        }
        for _ in 0..<100 where try photos[0].value(forKey: "views") != 0 { await Task.yield() }
        #expect(try photos.map { try $0.value(forKey: "views") } == [0, 0, 0])

        let worker = BackgroundContext(container: container, mergingOtherSaves: true)
        let count = try await worker.perform { context in try context.fetchCount("Photo") }
        #expect(count == 3)
    }
}
