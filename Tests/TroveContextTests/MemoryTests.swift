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
