import Foundation
import TroveModel
import Testing
import Trove
@testable import TroveImport
import TroveTesting

/// Find-or-create when another writer commits between a batch's reads and its save: the batch
/// runs again holding the write lock, and the store ends as if the import had run after.
@Suite struct CollidingWritersTests {
    let dir: TemporaryDirectory
    /// The importer's store, and another store on the same file: the other writer.
    let mine: Container
    let other: Container

    static func model() throws -> Model {
        try Model {
            Entity("Owner", uniqueBy: [["nsid"]]) {
                Attribute("nsid", .string, optional: false)
                Attribute("name", .string)
                Relationship("photos", to: "Photo", toMany: true, inverse: "owner")
            }
            Entity("Photo", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("title", .string)
                Relationship("owner", to: "Owner", inverse: "photos")
                Relationship("tags", to: "Tag", toMany: true, inverse: "photos")
            }
            Entity("Tag", uniqueBy: [["name"]]) {
                Attribute("name", .string, optional: false)
                Relationship("photos", to: "Photo", toMany: true, inverse: "tags")
            }
        }
    }

    init() throws {
        dir = try TemporaryDirectory()
        let model = try Self.model()
        mine = try Container(store: SQLiteStore(url: dir.file("photos.trove"), model: model))
        other = try Container(store: SQLiteStore(url: dir.file("photos.trove"), model: model))
    }

    /// Records naming owners and a tag the other writer inserts too; with tags, the batch goes
    /// through objects, without, as rows.
    func records(tagged: Bool) throws -> [JSONValue] {
        let tags = tagged ? #", "tags": ["sea"]"# : ""
        let text = """
            [{"id": "p1", "title": "One", "owner": {"nsid": "ann", "name": "Ann"}\(tags)},
             {"id": "p2", "title": "Two", "owner": {"nsid": "bob", "name": "Bob"}\(tags)},
             {"id": "p3", "title": "Three", "owner": "ann"}]
            """
        guard case .array(let records) = try JSONValue(parsing: text) else { throw ImportError(.invalidJSON, "not an array") }
        return records
    }

    /// Commits, from the other store, an owner and a photo the batch read as missing (and a tag).
    func commitCollidingObjects() throws {
        let context = other.newBackgroundContext()
        let ann = try context.insert("Owner")
        try ann.setValue("ann", forKey: "nsid")
        try ann.setValue("Someone else", forKey: "name")
        let photo = try context.insert("Photo")
        try photo.setValue("p2", forKey: "id")
        try photo.setValue("Theirs", forKey: "title")
        let tag = try context.insert("Tag")
        try tag.setValue("sea", forKey: "name")
        try context.save()
    }

    @Test(arguments: [false, true])
    func aBatchThatCollidesWithAnotherWritersCommitRunsAgainAndLandsAsIfAfterIt(tagged: Bool) throws {
        let context = mine.newBackgroundContext()
        let importer = Importer(context: context, options: ImportOptions(batchSize: 10))
        var saves = 0
        importer.beforeBatchSave = {
            saves += 1
            if saves == 1 { try commitCollidingObjects() }
        }
        let report = try importer.importRecords(try records(tagged: tagged), into: "Photo")
        // The first save collided; the batch ran once more, and no more.
        #expect(saves == 2)
        #expect(report.rejected.isEmpty && report.recordsImported == 3)
        #expect((report.appliedAsObjects != nil) == tagged)
        #expect(report.entities["Photo"]?.inserted == 2 && report.entities["Photo"]?.updated == 1)
        #expect(report.entities["Owner"]?.inserted == 1 && report.entities["Owner"]?.updated == 1)

        let check = try Container(store: mine.store).newBackgroundContext()
        #expect(try check.fetchCount("Owner") == 2)
        #expect(try check.fetchCount("Photo") == 3)
        #expect(try check.fetchCount("Tag") == 1)
        // The import's values win: it ran after the other writer.
        let ann = try #require(try check.fetchFirst("Owner", whereKey: "nsid", equals: "ann"))
        #expect(try ann.value(forKey: "name") == .string("Ann"))
        let two = try #require(try check.fetchFirst("Photo", whereKey: "id", equals: "p2"))
        #expect(try two.value(forKey: "title") == .string("Two"))
        for id in ["p1", "p3"] {
            let photo = try #require(try check.fetchFirst("Photo", whereKey: "id", equals: id))
            #expect(try photo.relatedObject(forKey: "owner")?.objectID == ann.objectID)
        }
    }

    @Test func theRunAgainHoldsTheWriteLockSoNoOtherWriterCommitsBetweenItsReadsAndItsSave() throws {
        let model = try Self.model()
        let impatient = try Container(store: SQLiteStore(url: dir.file("photos.trove"), model: model,
                                                         options: SQLiteStore.Options(busyTimeout: 0.05)))
        let importer = Importer(context: mine.newBackgroundContext(), options: ImportOptions(batchSize: 10))
        var saves = 0
        var secondWriter: String?
        importer.beforeBatchSave = {
            saves += 1
            if saves == 1 { try commitCollidingObjects() }
            if saves == 2 {
                // The batch runs again under the lock: another store cannot save now.
                let context = impatient.newBackgroundContext()
                try context.insert("Tag").setValue("late", forKey: "name")
                do {
                    try context.save()
                    secondWriter = "saved"
                } catch let error as StoreError {
                    secondWriter = "\(error.code)"
                }
            }
        }
        _ = try importer.importRecords(try records(tagged: false), into: "Photo")
        #expect(saves == 2)
        #expect(secondWriter == "busy")
    }

    @Test func aBatchNoOtherWriterCollidesWithSavesOnce() throws {
        let importer = Importer(context: mine.newBackgroundContext(), options: ImportOptions(batchSize: 10))
        var saves = 0
        importer.beforeBatchSave = { saves += 1 }
        _ = try importer.importRecords(try records(tagged: false), into: "Photo")
        #expect(saves == 1)
    }

    /// Four contexts of one store (a file, then memory) importing overlapping records on four
    /// threads at once, round after round: every import succeeds, with exact counts.
    @Test(arguments: [false, true])
    func severalContextsOfOneStoreImportingAtOnceAllLand(inMemory: Bool) throws {
        let container = inMemory ? try Container(store: SQLiteStore(inMemoryWith: try Self.model())) : mine
        let rounds = 10, photos = 60, owners = 6
        for round in 0..<rounds {
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                let records = (0..<photos).map { i in
                    let tags = worker == 3 ? #", "tags": ["t\#(round)", "common"]"# : ""
                    return #"{"id": "p\#(round)-\#(worker % 2)-\#(i)", "title": "T", "owner": {"nsid": "o\#(round)-\#((i + worker) % owners)", "name": "N"}\#(tags)}"#
                }
                do {
                    _ = try Importer(context: container.newBackgroundContext(), options: ImportOptions(batchSize: 3))
                        .importJSON(Data(("[" + records.joined(separator: ",") + "]").utf8), into: "Photo")
                } catch {
                    failures.withLock { $0.append("worker \(worker): \(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "round \(round): \(failures.withLock { $0 })")
            let check = container.newBackgroundContext()
            #expect(try check.fetchCount("Owner") == (round + 1) * owners)
            #expect(try check.fetchCount("Photo") == (round + 1) * photos * 2)
            #expect(try check.fetchCount("Tag") == (round + 1) + 1)
            #expect(try check.fetchCount("Photo", where: "owner == nil") == 0)
        }
    }
}
