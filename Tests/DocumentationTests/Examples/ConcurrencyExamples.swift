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

    /// Following another process's commits: the view context refreshes when the store's change
    /// token moves.
    @MainActor @Test(.timeLimit(.minutes(1))) func followingOtherProcessesCommits() async throws {
        let fixture = try PhotosFixture()
        let setup = try fixture.container().newBackgroundContext()
        let inserted = try setup.insert(Photo.self)
        inserted.id = "p1"
        try setup.save()
        let container = try Container(model: fixture.model, url: fixture.storeURL, classes: [Photographer.self, Photo.self, Tag.self])
        let photo = try #require(try container.viewContext.fetch(Photo.self, sortedBy: "id").first)

        try container.viewContext.refreshIfStoreChanged()       // takes note of where the store is
        let following = Task { @MainActor in
            for try await _ in container.store.changeTokens(pollingEvery: .seconds(1)) {
                try container.viewContext.refreshIfStoreChanged()   // lists following it fetch again
            }
        }
        // Another process (another container on the file) saves.
        let other = try fixture.container().newBackgroundContext()
        try other.object(with: photo.objectID).setValue(42, forKey: "views")
        try other.save()
        while photo.views != 42 { try await Task.sleep(for: .milliseconds(10)) }
        following.cancel()
        #expect(photo.views == 42)
        try await following.value   // cancelled: the stream ended without an error
    }
}
