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

/// The worked example of "Lists that stay current": photographers with their photo counts,
/// kept current batch by batch while an import runs in the background.
@MainActor final class PhotographerList: @MainActor FetchedResultsDelegate {
    let controller: FetchedResultsController<Photographer>
    private(set) var lines: [String] = []               // what the list view shows

    init(container: Container) throws {
        let request = FetchRequest(entityName: "Photographer", sortDescriptors: [SortKey("id")])
        controller = try FetchedResultsController(context: container.viewContext, request: request, as: Photographer.self)
        try controller.performFetch()
        lines = controller.sections.flatMap { $0.objects.map(Self.line) }
        controller.delegate = self
    }

    static func line(_ photographer: Photographer) -> String {
        "\(photographer.name ?? photographer.id): \(photographer.photos.count) photos"
    }

    func resultsDidChange(_ changes: ResultsChanges) {
        for path in (changes.deletions.map(\.indexPath) + changes.moves.map(\.from)).sorted(by: >) {
            lines.remove(at: path.item)
        }
        for path in (changes.insertions.map(\.indexPath) + changes.moves.map(\.to)).sorted() {
            lines.insert(Self.line(controller.object(at: path)), at: path.item)
        }
        for update in changes.updates {
            lines[update.to.item] = Self.line(controller.object(at: update.to))
        }
    }

    func resultsDidFail(_ error: any Error) {
        print("the list could not follow a change:", error)  // as before the change; performFetch() starts over
    }
}

extension LiveResultsExamples {
    @MainActor @Test func photographersWithTheirPhotoCountsWhileAnImportRuns() async throws {
        let fixture = try PhotosFixture()
        let container = try fixture.container(), url = fixture.sampleURL

        let list = try PhotographerList(container: container)
        let job = container.startImport(.file(url), into: "Photo", format: .json(root: "photos.photo"))
        let report = try await job.report()
        // Each saved chunk is merged into the view context as it lands, and `list.lines` follows:
        // a photographer appears when the import first names them, and their count grows with each chunk.

        // The merges of the last chunks run on the main actor after the report: let them.
        let fresh = container.newBackgroundContext()
        let stored = try fresh.fetch(Photographer.self, sortedBy: "id").map(PhotographerList.line)
        for _ in 0..<1_000 where list.lines != stored { await Task.yield() }
        #expect(report.recordsRead == 2040)
        #expect(stored.count == 66 && stored.allSatisfy { !$0.hasSuffix(" 0 photos") })
        #expect(list.lines == stored)
    }
}
