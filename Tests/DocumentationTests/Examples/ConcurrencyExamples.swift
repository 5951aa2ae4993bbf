import Foundation
import Testing
import Trove

/// The examples of the article "Contexts and Threads" (`Concurrency.md`).
@Suite struct ConcurrencyExamples {
    @MainActor @Test func contextsAndThreads() async throws {
        let fixture = try PhotosFixture()
        let model = fixture.model, url = fixture.storeURL
        let setup = try fixture.container().newBackgroundContext()
        for i in 0..<3 {
            let photo = try setup.insert(Photo.self)
            photo.id = "p\(i)"
            photo.views = Int64(i + 1)
        }
        try setup.save()

        let container = try Container(model: model, url: url, classes: [Photographer.self, Photo.self, Tag.self])

        // On the main actor: show photos.
        let photos = try container.viewContext.fetch(Photo.self, sortedBy: "-views")
        let ids = photos.map(\.objectID)                      // IDs cross threads, objects do not

        // In the background: change them and save; the view context merges the save by itself.
        try await container.performBackgroundTask { context in
            for id in ids {
                let photo = try context.object(with: id)       // the same row, this context's object (a Photo)
                try photo.setValue(0, forKey: "views")
            }
            try context.save()
        }

        // Long-lived background work: an actor that owns its context.
        let worker = BackgroundContext(container: container, mergingOtherSaves: true)
        let count = try await worker.perform { context in try context.fetchCount("Photo") }

        for _ in 0..<100 where photos.contains(where: { $0.views != 0 }) { await Task.yield() }
        #expect(photos.map(\.views) == [0, 0, 0])
        #expect(count == 3)
    }
}
