import Foundation
import Testing
import Trove
@testable import TroveImport
import TrovePostgres
import TroveTesting

/// Saves staged while the one before runs (``BackgroundSavingStore``), and the importer that
/// makes its next batch ready during a save.
@Suite(.enabled(if: PostgresServer.isConfigured, PostgresServer.skipMessage))
struct PostgresStagedSaveTests {
    let database: TemporaryDatabase
    let store: PostgresStore
    let photo: Entity

    init() throws {
        database = try TemporaryDatabase()
        store = try PostgresStore(location: database.location, model: SampleModels.photos())
        photo = try #require(store.model.entity(named: "Photo"))
    }

    /// An insert of a photo with `id` and `title`, its other values empty.
    func insert(_ id: String, title: String? = nil) throws -> ChangeSet.Insert {
        var values = photo.attributes.map { _ in AttributeValue.null }
        values[try #require(photo.attributeIndex(named: "id"))] = .string(id)
        values[try #require(photo.attributeIndex(named: "views"))] = .integer(0)
        if let title { values[try #require(photo.attributeIndex(named: "title"))] = .string(title) }
        return ChangeSet.Insert(objectID: .temporary(entity: photo), values: values)
    }

    /// An update of `id`'s title, expecting `version`.
    func retitle(_ id: ObjectID, _ title: String, expecting version: Int64) throws -> ChangeSet.Update {
        ChangeSet.Update(objectID: id, expectedVersion: version, changes: [try #require(photo.attributeIndex(named: "title")): .string(title)])
    }

    @Test func aStagedSaveWritesNothingUntilStartedThenGivesWhatItSaid() throws {
        let first = try store.save(ChangeSet(inserts: [try insert("p1")]))
        let p1 = try #require(first.permanentIDs.values.first)
        let token = try store.changeToken()

        let staged = try store.stageSave(ChangeSet(inserts: [try insert("p2"), try insert("p3")],
                                                   updates: [try retitle(p1, "new", expecting: 1)], metadata: ["step": "2"]))
        #expect(staged.permanentIDs.count == 2)
        #expect(staged.versions == [p1: 2])
        #expect(try store.changeToken() == token, "staging writes nothing")
        #expect(try store.count(of: "Photo") == 1)

        let result = try staged.result()
        #expect(result.permanentIDs == staged.permanentIDs)
        #expect(result.versions == staged.versions)
        #expect(result.changeTokenBefore == token)
        #expect(try store.count(of: "Photo") == 3)
        #expect(try store.metadata()["step"] == "2")
        #expect(try store.row(for: p1)?.values.contains(.string("new")) == true)
    }

    @Test func aStagedSaveThatConflictsWritesNothing() throws {
        let first = try store.save(ChangeSet(inserts: [try insert("p1")]))
        let p1 = try #require(first.permanentIDs.values.first)
        let staged = try store.stageSave(ChangeSet(inserts: [try insert("p2")], updates: [try retitle(p1, "mine", expecting: 1)],
                                                   metadata: ["step": "2"]))
        // Another store changes the row after the save was staged, before it runs.
        let other = try PostgresStore(location: database.location, model: store.model)
        _ = try other.save(ChangeSet(updates: [try retitle(p1, "theirs", expecting: 1)]))
        let token = try store.changeToken()

        #expect(throws: ConflictError.self) { try staged.result() }
        #expect(try store.changeToken() == token)
        #expect(try store.count(of: "Photo") == 1)
        #expect(try store.metadata()["step"] == nil)
        #expect(try store.row(for: p1)?.values.contains(.string("theirs")) == true)
    }

    /// Staged while the one before runs, each save lands right after it: nothing lost, and the
    /// second's token before is the first's after.
    @Test func aSaveStagedWhileTheOneBeforeRunsLandsAfterIt() throws {
        let first = try store.stageSave(ChangeSet(inserts: try (0..<1_500).map { try insert("a\($0)", title: "first") }))
        first.start()
        let second = try store.stageSave(ChangeSet(inserts: try (0..<1_500).map { try insert("b\($0)", title: "second") }))
        let firstResult = try first.result()
        second.start()
        let secondResult = try second.result()
        #expect(secondResult.changeTokenBefore == firstResult.changeTokenAfter)
        #expect(Set(firstResult.permanentIDs.values).isDisjoint(with: secondResult.permanentIDs.values))
        #expect(try store.count(of: "Photo") == 3_000)
    }

    /// Another writer changes an owner that batches share while the import saves: the batch
    /// made ready on the rows it kept runs again, and the import's values land after the other
    /// writer's, as they would had it run after it.
    @Test func anImportMeetsAnotherWritersCommitBetweenItsSaves() throws {
        let context = try Container(store: store).newBackgroundContext()
        let importer = Importer(context: context, options: ImportOptions(batchSize: 1))
        let otherStore = try PostgresStore(location: database.location, model: store.model)
        var batches = 0
        importer.beforeBatchSave = {
            batches += 1
            guard batches == 2 else { return }
            // Made ready while the first batch saves: commits once that save has.
            let other = try Container(store: otherStore).newBackgroundContext()
            var found = try other.fetch("Photographer").first
            for _ in 0..<1_000 where found == nil {
                Thread.sleep(forTimeInterval: 0.01)
                found = try other.fetch("Photographer").first
            }
            let owner = try #require(found)
            try owner.setValue(AttributeValue.string("Someone else"), forKey: "name")
            try other.save()
        }
        let records = try (1...3).map { i in
            try JSONValue(parsing: #"{"id": "p\#(i)", "owner": {"id": "ann", "name": "Ann"}}"#)
        }
        let report = try importer.importRecords(records, into: "Photo")
        #expect(report.recordsImported == 3)
        // Three batches made ready, and the third once more: it was made ready on the owner's
        // row as the second batch would leave it, but the other writer had committed first.
        #expect(batches == 4)

        let check = try Container(store: otherStore).newBackgroundContext()
        let owners = try check.fetch("Photographer")
        #expect(owners.count == 1)
        #expect(try owners.first?.value(forKey: "name") == .string("Ann"))
        let photos = try check.fetch("Photo")
        #expect(photos.count == 3)
        for photo in photos {
            #expect(try photo.relatedObject(forKey: "whoTook")?.objectID == owners.first?.objectID)
        }
    }

    /// `trove import` killed with SIGKILL three times, each time just after a checkpoint, so
    /// that the kill lands while a batch is made ready or its save runs; run again each time,
    /// it resumes, and the database ends with every record once, as the input says.
    @Test func anImportKilledWhileItSavesResumesWithEveryRecordOnce() throws {
        let dir = try TemporaryDirectory()
        let url = database.url()
        let count = 3_000
        let input = dir.file("photos.ndjson")
        try Data((0..<count).map(PostgresWritersTests.record).joined(separator: "\n").utf8).write(to: input)
        let arguments = ["import", url, input.path, "--entity", "Photo", "--ndjson", "--batch-size", "30"]
        var kills = 0
        for target in [600, 1_500, 2_400] {
            let running = try CLIRunner.start(arguments)
            var reached = false
            while running.process.isRunning, !reached {
                reached = try ImportCheckpoint.all(in: store).contains { $0.records >= target }
                if !reached { usleep(2_000) }
            }
            if reached, running.process.isRunning {
                kill(running.process.processIdentifier, SIGKILL)
                kills += 1
            }
            let result = running.wait()
            #expect(result.signaled || result.status == 0, "\(result.stderr)")
        }
        #expect(kills > 0, "no import was killed: each finished first")
        let last = try CLIRunner.run(arguments)
        #expect(last.status == 0, "\(last.stderr)")

        try PostgresWritersTests.expectRecords(count, in: store)
        #expect(try ImportCheckpoint.all(in: store).isEmpty, "the last chunk removed the checkpoint")
    }
}
