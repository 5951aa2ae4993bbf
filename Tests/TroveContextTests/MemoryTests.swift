import Foundation
import Testing
@testable import TroveContext
import Trove
import TroveTesting

@Suite struct MemoryTests {
    @Test func fetchingAndDroppingManyObjectsKeepsNothingAlive() throws {
        let dir = try TemporaryDirectory()
        let container = try Container(model: SampleModels.photos(), url: dir.file("m.trove"),
                                      options: .init(durability: .normal))
        let writer = container.newBackgroundContext()
        for i in 0..<20_000 {
            let photo = try writer.insert("Photo")
            try photo.setValue("p\(i)", forKey: "id")
        }
        try writer.save()
        writer.reset()

        // 100k objects fetched and dropped, in five rounds of 20k.
        let context = container.newBackgroundContext()
        var largestRegistry = 0
        for _ in 0..<5 {
            do {
                let photos = try context.fetch(FetchRequest(entityName: "Photo"))
                #expect(photos.count == 20_000)
                #expect(context.registeredObjectCount == 20_000)
            }
            #expect(context.registeredObjectCount == 0, "unchanged objects nobody holds are gone")
            largestRegistry = max(largestRegistry, context.registrySize)
        }
        #expect(largestRegistry <= 40_000, "the registry sweeps entries of dead objects")
    }

    @Test func objectsOutlivingTheirContextLeaveIt() throws {
        let dir = try TemporaryDirectory()
        let container = try Container(model: SampleModels.photos(), url: dir.file("o.trove"))
        let setup = container.newBackgroundContext()
        for i in 0..<3 {
            let photo = try setup.insert("Photo")
            try photo.setValue("p\(i)", forKey: "id")
        }
        try setup.save()

        var context: ObjectContext? = container.newBackgroundContext()
        weak let gone = context
        var request = FetchRequest(entityName: "Photo")
        request.sortDescriptors = [SortKey("id")]
        request.fetchLimit = 2
        let loaded = Array(try context?.fetch(request) ?? FetchedResults(objects: []))
        request.fetchLimit = 0
        request.returnsObjectsAsFaults = true
        let fault = try #require(try context?.fetch(request).last)
        let inserted = try #require(try context?.insert("Photo"))
        #expect(loaded.count == 2 && loaded[0].context === context && fault.isFault)
        context = nil

        #expect(gone == nil, "objects do not keep their context alive")
        #expect([loaded[0], fault, inserted].allSatisfy { $0.context == nil })
        #expect(try loaded[0].value(forKey: "id") == "p0", "values read before stay readable")
        #expect(throws: ObjectError.self) { try fault.value(forKey: "id") }
        #expect(throws: ObjectError.self) { try loaded[1].setValue("x", forKey: "title") }
    }

    @Test func aFaultOfAResetContextThrowsInsteadOfTrapping() throws {
        let dir = try TemporaryDirectory()
        let container = try Container(model: SampleModels.photos(), url: dir.file("f.trove"))
        let setup = container.newBackgroundContext()
        let ann = try setup.insert("Photographer")
        try ann.setValue("ann", forKey: "id")
        for i in 0..<3 {
            let photo = try setup.insert("Photo")
            try photo.setValue("p\(i)", forKey: "id")
            try photo.setRelatedObject(ann, forKey: "whoTook")
        }
        try setup.save()

        let context = container.newBackgroundContext()
        var request = FetchRequest(entityName: "Photo")
        request.returnsObjectsAsFaults = true
        let photos = Array(try context.fetch(request))
        let photographer = try #require(try context.fetchFirst("Photographer"))
        context.reset()
        #expect(photos[0].isFault)
        let error = try #require(throws: ObjectError.self) { try photos[0].value(forKey: "id") }
        #expect(error.code == .notInContext)
        #expect(throws: ObjectError.self) { try photographer.relatedObjects(forKey: "photos") }
        #expect(try photographer.value(forKey: "id") == "ann", "values read before the reset stay readable")
    }
}
