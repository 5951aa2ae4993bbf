import Foundation
import Testing
import Trove
import TroveTesting

/// Several documents on one package — two in this process, or one here and the `trove` command
/// in another process — each seeing the other's saves, merging them, or in conflict.
@MainActor
@Suite struct DocumentConflictTests {
    let dir: TemporaryDirectory
    let url: URL
    let model: Model
    let clock = ManualClock()

    init() throws {
        dir = try TemporaryDirectory()
        url = dir.url.appending(path: "Photos.trove")
        model = try SampleModels.photos()
    }

    /// A document on the package that looks for other saves only when asked (or before saving),
    /// unless `every` is given, and saves only when told.
    func document(lookingEvery interval: Duration? = nil) throws -> Document {
        let document = try Document(url: url, model: model, clock: clock)
        document.changeCheckInterval = interval
        document.autosaveDelay = nil
        return document
    }

    /// Two open documents on one package holding photo `p1` (title "Dunes", 10 views, by `ann`),
    /// each with the photo fetched.
    func twoDocuments() async throws -> (Document, ManagedObject, Document, ManagedObject) {
        let mine = try document()
        try await mine.create()
        let context = try mine.context
        let ann = try context.insert("Photographer")
        try ann.setValue("ann", forKey: "id")
        let photo = try context.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try photo.setValue("Dunes", forKey: "title")
        try photo.setValue(10, forKey: "views")
        try photo.setRelatedObject(ann, forKey: "whoTook")
        try await mine.save()
        let theirs = try document()
        try await theirs.open()
        let theirPhoto = try #require(try theirs.context.fetchFirst("Photo", where: "id == %@", "p1"))
        return (mine, photo, theirs, theirPhoto)
    }

    /// The photo `p1` as stored, read by a context of its own.
    func stored(_ document: Document) throws -> ManagedObject? {
        try document.newBackgroundContext().fetchFirst("Photo", where: "id == %@", "p1")
    }

    /// The `id` of the stored photo `p1`'s photographer.
    func storedOwner(_ document: Document) throws -> String? {
        let context = try document.newBackgroundContext()
        return try context.fetchFirst("Photo", where: "id == %@", "p1")?.relatedObject(forKey: "whoTook")?.value(forKey: "id").text
    }

    // MARK: Two documents in one process

    @Test func aSaveElsewhereReachesAnUnchangedObjectAndAChangedOneWhereItDoesNotClash() async throws {
        let (mine, photo, theirs, theirPhoto) = try await twoDocuments()
        try theirPhoto.setValue("Dunes at dawn", forKey: "title")
        try await theirs.save()
        #expect(try photo.value(forKey: "title") == "Dunes", "nothing changes until the document looks")

        try photo.setValue(11, forKey: "views")
        #expect(try mine.checkForOtherSaves())
        #expect(try photo.value(forKey: "title") == "Dunes at dawn", "their change to a key left alone here")
        #expect(try photo.value(forKey: "views") == 11, "the unsaved change stays on top")
        #expect(mine.state == .normal && mine.conflicts.isEmpty)
        #expect(try !mine.checkForOtherSaves(), "nothing new since")

        try await mine.save()
        let saved = try #require(try stored(mine))
        #expect(try saved.value(forKey: "title") == "Dunes at dawn" && saved.value(forKey: "views") == 11)
        // And the other way round: the first document's save reaches the second.
        #expect(try theirs.checkForOtherSaves())
        #expect(try theirPhoto.value(forKey: "views") == 11)
        try await mine.close()
        try await theirs.close()
    }

    @Test func theSameKeyChangedOnBothSidesIsAConflictAndNothingIsSavedUntilItIsResolved() async throws {
        let (mine, photo, theirs, theirPhoto) = try await twoDocuments()
        var states = mine.states().makeAsyncIterator()
        try theirPhoto.setValue("Theirs", forKey: "title")
        try theirPhoto.setValue(20, forKey: "views")
        try await theirs.save()
        try photo.setValue("Mine", forKey: "title")

        try mine.checkForOtherSaves()
        #expect(mine.state == .inConflict)
        #expect(await states.next()?.state == .inConflict)
        let conflict = try #require(mine.conflicts.first)
        #expect(mine.conflicts.count == 1)
        #expect(conflict.objectID == photo.objectID && conflict.kind == .changedOnBothSides)
        #expect(conflict.keys == ["title"])
        #expect(conflict.myValues == ["title": "Mine"] && conflict.storedValues == ["title": "Theirs"])
        #expect(try photo.value(forKey: "title") == "Mine" && photo.value(forKey: "views") == 10,
                "an object in conflict is left as it was")

        let refused = await #expect(throws: DocumentError.self) { try await mine.save() }
        #expect(refused?.code == .inConflict)
        #expect(mine.state == .inConflict, "a refused save is not a saving error")
        #expect(try stored(mine)?.value(forKey: "title") == "Theirs", "nothing was written")

        let kept = try mine.resolveConflict(of: photo.objectID, by: .keepMine)
        #expect(kept === photo)
        #expect(mine.state == .normal && mine.conflicts.isEmpty)
        #expect(try photo.value(forKey: "views") == 20, "their change to the key without conflict is taken")
        try await mine.save()
        let saved = try #require(try stored(mine))
        #expect(try saved.value(forKey: "title") == "Mine" && saved.value(forKey: "views") == 20)
        try await mine.close()
        try await theirs.close()
    }

    @Test func takingTheirsKeepsMyOtherChangesToTheObject() async throws {
        let (mine, photo, theirs, theirPhoto) = try await twoDocuments()
        try theirPhoto.setValue("Theirs", forKey: "title")
        try await theirs.save()
        try photo.setValue("Mine", forKey: "title")
        try photo.setValue(99, forKey: "views")
        try mine.checkForOtherSaves()
        #expect(mine.conflicts.map(\.keys) == [["title"]])

        try mine.resolveAllConflicts(by: .takeTheirs)
        #expect(mine.state == .normal)
        #expect(try photo.value(forKey: "title") == "Theirs" && photo.value(forKey: "views") == 99)
        try await mine.save()
        let saved = try #require(try stored(mine))
        #expect(try saved.value(forKey: "title") == "Theirs" && saved.value(forKey: "views") == 99)
        try await mine.close()
        try await theirs.close()
    }

    @Test func aToOneRelationshipChangedOnBothSidesIsAConflict() async throws {
        let (mine, photo, theirs, theirPhoto) = try await twoDocuments()
        let bob = try theirs.context.insert("Photographer")
        try bob.setValue("bob", forKey: "id")
        try theirPhoto.setRelatedObject(bob, forKey: "whoTook")
        try await theirs.save()
        let cy = try mine.context.insert("Photographer")
        try cy.setValue("cy", forKey: "id")
        try photo.setRelatedObject(cy, forKey: "whoTook")
        try mine.checkForOtherSaves()
        #expect(mine.conflicts.map(\.keys) == [["whoTook"]])

        try mine.resolveAllConflicts(by: .takeTheirs)
        #expect(try photo.relatedObject(forKey: "whoTook")?.value(forKey: "id") == "bob")
        #expect(try cy.relatedObjects(forKey: "photos").isEmpty, "the inverse follows")
        try await mine.save()
        #expect(try storedOwner(mine) == "bob")
        try await mine.close()
        try await theirs.close()
    }

    @Test func anObjectDeletedElsewhereThatIChangedCanBeKeptAsANewObjectOrLetGo() async throws {
        let (mine, photo, theirs, theirPhoto) = try await twoDocuments()
        try theirs.context.delete(theirPhoto)
        try await theirs.save()
        try photo.setValue("Mine", forKey: "title")
        try mine.checkForOtherSaves()
        let conflict = try #require(mine.conflicts.first)
        #expect(conflict.kind == .deletedElsewhere && conflict.keys == ["title"] && conflict.storedValues.isEmpty)

        let copy = try #require(try mine.resolveConflict(of: photo.objectID, by: .keepMine))
        #expect(copy !== photo && copy.isInserted)
        #expect(photo.isRemoved)
        #expect(try copy.value(forKey: "title") == "Mine" && copy.value(forKey: "views") == 10)
        #expect(try copy.relatedObject(forKey: "whoTook")?.value(forKey: "id") == "ann")
        try await mine.save()
        let saved = try #require(try stored(mine))
        #expect(try saved.value(forKey: "title") == "Mine")
        #expect(try storedOwner(mine) == "ann")

        // Deleted again elsewhere, changed here again: this time let it go.
        #expect(try theirs.checkForOtherSaves())
        let theirCopy = try #require(try theirs.context.fetchFirst("Photo", where: "id == %@", "p1"))
        try theirs.context.delete(theirCopy)
        try await theirs.save()
        try copy.setValue("Mine again", forKey: "title")
        try mine.checkForOtherSaves()
        #expect(try mine.resolveConflict(of: copy.objectID, by: .takeTheirs) == nil)
        #expect(copy.isRemoved)
        try await mine.save()
        #expect(try stored(mine) == nil)
        try await mine.close()
        try await theirs.close()
    }

    @Test func anObjectDeletedHereThatOthersChangedStaysDeletedOrComesBack() async throws {
        let (mine, photo, theirs, theirPhoto) = try await twoDocuments()
        try theirPhoto.setValue(30, forKey: "views")
        try await theirs.save()
        try mine.context.delete(photo)
        try mine.checkForOtherSaves()
        let conflict = try #require(mine.conflicts.first)
        #expect(conflict.kind == .deletedHere && conflict.keys == ["views"] && conflict.storedValues == ["views": 30])

        try mine.resolveConflict(of: photo.objectID, by: .takeTheirs)
        #expect(!photo.isDeleted && !photo.hasChanges)
        #expect(try photo.value(forKey: "views") == 30)

        try theirPhoto.setValue(31, forKey: "views")
        try await theirs.save()
        try mine.context.delete(photo)
        try mine.checkForOtherSaves()
        try mine.resolveConflict(of: photo.objectID, by: .keepMine)
        try await mine.save()
        #expect(try stored(mine) == nil, "the delete is saved over their change")
        try await mine.close()
        try await theirs.close()
    }

    @Test func bothSidesDeletingAnObjectIsNoConflict() async throws {
        let (mine, photo, theirs, theirPhoto) = try await twoDocuments()
        try theirs.context.delete(theirPhoto)
        try await theirs.save()
        try mine.context.delete(photo)
        try mine.checkForOtherSaves()
        #expect(mine.conflicts.isEmpty && photo.isRemoved)
        try await mine.save()
        #expect(try mine.context.fetchCount("Photo") == 0)
        try await mine.close()
        try await theirs.close()
    }

    @Test func aSaveFindsTheConflictByItselfAndRevertClearsIt() async throws {
        let (mine, photo, theirs, theirPhoto) = try await twoDocuments()
        try theirPhoto.setValue("Theirs", forKey: "title")
        try await theirs.save()
        try photo.setValue("Mine", forKey: "title")
        let refused = await #expect(throws: DocumentError.self) { try await mine.save() }
        #expect(refused?.code == .inConflict && mine.state == .inConflict)

        try await mine.revert()
        #expect(mine.state == .normal && mine.conflicts.isEmpty)
        #expect(try photo.value(forKey: "title") == "Theirs", "revert goes back to what is stored now")
        try await mine.save()
        try await mine.close()
        try await theirs.close()
    }

    @Test func aListOnTheDocumentsContextFollowsAnotherDocumentsInserts() async throws {
        let (mine, _, theirs, _) = try await twoDocuments()
        let list = try FetchedResultsController(context: mine.context, request: FetchRequest(
            entityName: "Photo", sortDescriptors: [SortKey("id")]))
        try list.performFetch()
        var changes = list.changes().makeAsyncIterator()
        let p2 = try theirs.context.insert("Photo")
        try p2.setValue("p2", forKey: "id")
        try await theirs.save()
        try mine.checkForOtherSaves()
        let batch = try #require(await changes.next())
        #expect(batch.insertions.map(\.indexPath) == [ResultIndexPath(item: 1, section: 0)], "\(batch)")
        #expect(try list.fetchedObjects.map { try $0.value(forKey: "id").text } == ["p1", "p2"])
        try await mine.close()
        try await theirs.close()
    }

    @Test func resolvingAnObjectWithoutAConflictIsRefused() async throws {
        let (mine, photo, theirs, _) = try await twoDocuments()
        let error = #expect(throws: DocumentError.self) { try mine.resolveConflict(of: photo.objectID, by: .keepMine) }
        #expect(error?.code == .notInConflict)
        try await mine.close()
        try await theirs.close()
    }

    @Test func theDocumentLooksByItselfEveryInterval() async throws {
        let (mine, _, theirs, theirPhoto) = try await twoDocuments()
        try await mine.close()
        let looking = try document(lookingEvery: .seconds(1))
        try await looking.open()
        let own = try #require(try looking.context.fetchFirst("Photo", where: "id == %@", "p1"))
        try theirPhoto.setValue("Seen", forKey: "title")
        try await theirs.save()
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(999))
        #expect(try own.value(forKey: "title") == "Dunes")
        clock.advance(by: .milliseconds(1))
        await clock.waitForSleepers(1) // the look ran and the next wait began
        #expect(try own.value(forKey: "title") == "Seen")
        try await looking.close()
        #expect(clock.sleeperCount == 0, "closing stops the looks")
        try await theirs.close()
    }

    @Test func aBackgroundContextsSaveThatClashesIsAConflictToo() async throws {
        let (mine, photo, theirs, _) = try await twoDocuments()
        try await theirs.close()
        let background = try mine.newBackgroundContext()
        let other = try #require(try background.fetchFirst("Photo", where: "id == %@", "p1"))
        try other.setValue("Background", forKey: "title")
        try photo.setValue("Mine", forKey: "title")
        var states = mine.states().makeAsyncIterator()
        try background.save()
        // The save is taken in as soon as the main actor runs the document's follower.
        #expect(await states.next()?.state == .inConflict)
        #expect(mine.conflicts.map(\.keys) == [["title"]])
        try mine.resolveAllConflicts(by: .keepMine)
        try await mine.save()
        #expect(try stored(mine)?.value(forKey: "title") == "Mine")
        try await mine.close()
    }

    // MARK: Another process

    @Test func anotherProcessesSavesAreMergedOrInConflictAndOursReachIt() async throws {
        let (mine, photo, theirs, _) = try await twoDocuments()
        try await theirs.close()
        let ann = try #require(try photo.relatedObject(forKey: "whoTook"))
        try ann.setValue("Ann Unsaved", forKey: "name")
        try photo.setValue("Mine", forKey: "title")

        // The trove command, in a process of its own, updates both objects through an import
        // into the package (it opens the package's store).
        let store = url.path
        #expect(Document.storeURL(for: url) == url.appending(path: "Store.sqlite"))
        #expect(Document.storeURL(for: dir.file("ann.json")) == dir.file("ann.json"), "not a package: itself")
        try Data(#"[{"id": "ann", "name": "Ann"}]"#.utf8).write(to: dir.file("ann.json"))
        try Data(#"[{"id": "p1", "title": "Theirs", "views": 50}]"#.utf8).write(to: dir.file("p1.json"))
        for (file, entity) in [("ann.json", "Photographer"), ("p1.json", "Photo")] {
            let result = try CLIRunner.run(["import", store, dir.file(file).path, "--entity", entity, "--quiet"])
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(try mine.checkForOtherSaves())
        #expect(Set(mine.conflicts.map(\.objectID)) == [photo.objectID, ann.objectID])
        #expect(try photo.value(forKey: "views") == 10, "an object in conflict waits for its resolution")
        try mine.resolveConflict(of: ann.objectID, by: .takeTheirs)
        try mine.resolveConflict(of: photo.objectID, by: .keepMine)
        #expect(try ann.value(forKey: "name") == "Ann" && photo.value(forKey: "views") == 50)
        try await mine.save()

        // The other process reads what this one saved.
        let query = try CLIRunner.run(["query", store, "Photo", "--where", "id == 'p1'", "--format", "json"])
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.stdout.contains("\"Mine\"") && query.stdout.contains("50"), "\(query.stdout)")
        try await mine.close()
    }
}
