import Foundation
import Testing
import Trove
import TroveTesting

/// Two `trove import` runs of one input file never share its checkpoint: the second waits while
/// the first runs (it holds a lock on the file), then reads the checkpoint as the first left
/// it — none when the first finished (it imports the whole input, and says nothing of
/// resuming), the first's when it was killed (it resumes, and says so).
@Suite struct SharedCheckpointTests {
    let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory()
        let photos = (0..<40).map { i in #"{"id": "p\#(i)", "title": "T\#(i)", "owner": {"nsid": "o\#(i % 5)", "username": "U\#(i % 5)"}}"# }
        try Data(("[" + photos.joined(separator: ",\n") + "]").utf8).write(to: dir.file("photos.json"))
        let created = try CLIRunner.run(["init", "photos.trove", "--model", ImportCommandTests.sampleModel.path], in: dir.url)
        try #require(created.status == 0, "\(created.stderr)")
    }

    static let arguments = ["import", "photos.trove", "photos.json", "--entity", "Photo", "--batch-size", "10"]

    /// A run killed after its second batch's commit leaves its checkpoint (20 records); then
    /// the lock holder stands for an import of the file running, and a second import starts:
    /// returned once it said it waits (`waited`), or ended without saying so.
    func secondImportWhileOneRuns() throws -> (running: FileLockHolder, second: CLIRunner.Running, waited: Bool) {
        let killed = try CLIRunner.run(Self.arguments, in: dir.url, environment: ["TROVE_TEST_KILL_AT": "save.after-commit#2"])
        try #require(killed.signaled, "the first import was killed: \(killed.stderr)")
        let store = try SQLiteStore(url: dir.file("photos.trove"))
        try #require(try ImportCheckpoint.all(in: store).map(\.records) == [20])
        let running = try FileLockHolder(file: dir.file("photos.json"))
        let second = try CLIRunner.start(Self.arguments, in: dir.url)
        return (running, second, second.waitForStandardError(containing: "waiting for another import of photos.json to finish"))
    }

    /// An import of the file runs (the lock holder stands for it, its checkpoint at record 20)
    /// and finishes while the second waits: the second imports all 40 records, not the 20
    /// after a checkpoint that was never an interrupted import's.
    @Test(.enabled(if: FileLockHolder.isAvailable))
    func aSecondImportWaitsForTheFirstAndCountsTheWholeInput() throws {
        let (running, second, waited) = try secondImportWhileOneRuns()
        // The first import finishes: its last chunk removes the checkpoint.
        let context = try Container(store: SQLiteStore(url: dir.file("photos.trove"))).newBackgroundContext()
        context.setStoreMetadata(nil, forKey: ImportCheckpoint.metadataKey(for: "Photo"))
        try context.save()
        running.release()
        let result = second.wait()
        #expect(waited, "the second import said it waits: \(result.stderr)")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("resum"), "\(result.stderr)")
        #expect(result.stderr.contains("40 records read, 40 imported"), "\(result.stderr)")
        #expect(try context.fetchCount("Photo") == 40)
    }

    /// The import holding the file is killed while the second waits: the second resumes after
    /// its checkpoint, and says so.
    @Test(.enabled(if: FileLockHolder.isAvailable))
    func aSecondImportResumesWhenTheFirstWasKilled() throws {
        let (running, second, waited) = try secondImportWhileOneRuns()
        running.kill()
        let result = second.wait()
        #expect(waited, "\(result.stderr)")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("resuming an interrupted import after record 20"), "\(result.stderr)")
        let context = try Container(store: SQLiteStore(url: dir.file("photos.trove"))).newBackgroundContext()
        #expect(try context.fetchCount("Photo") == 40)
        #expect(try ImportCheckpoint.all(in: context.store).isEmpty)
    }

    /// Two real runs of one file at once both finish, whole: neither takes the other's
    /// checkpoint for an interrupted import's.
    @Test func twoRunsOfOneFileAtOnceEachImportTheWholeInput() throws {
        let runs = try (0..<2).map { _ in try CLIRunner.start(Self.arguments, in: dir.url) }
        for result in runs.map({ $0.wait() }) {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("resum"), "\(result.stderr)")
            #expect(result.stderr.contains("40 records read, 40 imported"), "\(result.stderr)")
        }
    }
}
