import Foundation
import Testing
import Trove

/// The examples of the article "Lists that stay current" (`LiveResults.md`).
@Suite struct LiveResultsExamples {
    @Test func aControllerInSections() async throws {
        let graph = try SmallGraph()
        let context = graph.context

        let request = FetchRequest(entityName: "Photo", predicate: try ObjectPredicate(format: "views > %d", 100),
                                   sortDescriptors: [SortKey("whoTook.name"), SortKey("views", ascending: false)])
        let photos = try FetchedResultsController(context: context, request: request,
                                                  sectionKeyPath: "whoTook.name", as: Photo.self)
        try photos.performFetch()
        for section in photos.sections {
            print(section.name, section.count)             // one section per photographer
        }
        let first = photos.object(at: ResultIndexPath(item: 0, section: 0))

        let changes = photos.changes()                      // an AsyncStream, Sendable
        let follower = Task {
            for await batch in changes {
                // Apply `batch` to the list view (see below), or reload it when batch.missedChanges > 0.
                print(batch.insertions.count, "new,", batch.deletions.count, "gone")
            }
        }

        #expect(first === graph.photo)
        #expect(photos.sections.map(\.name) == ["Ann"])
        graph.other.views = 500
        context.processPendingChanges()
        #expect(photos.sections.map(\.count) == [1, 1], "p2 has no photographer: a section named \"\" first")
        #expect(photos.sections.map(\.name) == ["", "Ann"])
        follower.cancel()
    }
}
