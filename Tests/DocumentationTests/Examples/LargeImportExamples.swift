import Foundation
import Testing
import Trove

/// The examples of the article "Large Imports" (`LargeImports.md`).
@Suite struct LargeImportExamples {
    @Test func aBackgroundImport() async throws {
        let fixture = try PhotosFixture()
        let container = try fixture.container(), url = fixture.sampleURL
        let userTappedStop = ProcessInfo.processInfo.environment["TROVE_STOP_THE_EXAMPLE"] != nil   // nobody taps Stop in a test

        let job = container.startImport(.file(url), into: "Photo", format: .json(root: "photos.photo"))
        for await progress in job.progress {                 // after each saved chunk (first, if resuming, where: isResumePoint)
            print(progress.recordsRead, progress.fractionCompleted ?? 0, progress.estimatedTimeRemaining ?? .zero)
            if userTappedStop { job.cancel() }               // stops at the next chunk boundary, checkpoint kept
        }
        let report = try await job.report()                  // throws ImportError .cancelled after cancel()
        let resumedAt = report.resumedAt                     // where it picked up an interrupted import, if it did

        #expect(resumedAt == nil)
        #expect(report.recordsRead == 2040)
        #expect(try ImportCheckpoint.all(in: container.store).isEmpty, "the last chunk removes the checkpoint")
    }

    @Test func aStreamedImportOnAContext() throws {
        let fixture = try PhotosFixture()
        let context = try fixture.container().newBackgroundContext()
        let ndjsonURL = fixture.directory.file("photos.ndjson")
        try Data(#"""
            {"id": "p1", "title": "Sunset", "views": "12"}
            {"id": "p2", "title": "Boat", "owner": {"nsid": "ann", "username": "Ann"}}
            """#.utf8).write(to: ndjsonURL)
        var recordsRead: [Int] = []

        let report = try Importer(context: context).importStream(.file(ndjsonURL), into: "Photo", format: .ndjson,
                                                                  resume: .restart, progress: { print($0.recordsRead) })

        _ = try Importer(context: context).importStream(.file(ndjsonURL), into: "Photo", format: .ndjson,
                                                        resume: .restart, progress: { recordsRead.append($0.recordsRead) })
        #expect(report.entities["Photo"]?.inserted == 2)
        #expect(recordsRead.last == 2)
        #expect(try context.fetchFirst(Photo.self, where: "id == %@", "p2")?.whoTook?.name == "Ann")
    }
}
