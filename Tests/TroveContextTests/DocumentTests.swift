import Foundation
import Testing
import Trove
import MediaClasses
import TroveTesting

/// Documents on real packages in temporary folders; autosave on a clock the tests move.
@MainActor
@Suite struct DocumentTests {
    let dir: TemporaryDirectory
    let url: URL
    let model: Model
    let clock = ManualClock()

    init() throws {
        dir = try TemporaryDirectory()
        url = dir.url.appending(path: "Photos.trove")
        model = try SampleModels.photos()
    }

    /// A document whose only sleeper on the clock is its autosave (it looks for other writers'
    /// saves only before saving; DocumentConflictTests test the timed look).
    func document(options: SQLiteStore.Options = SQLiteStore.Options()) throws -> Document {
        let document = try Document(url: url, model: model, options: options, clock: clock)
        document.changeCheckInterval = nil
        return document
    }

    /// What the store holds, read by a context of its own.
    func storedNames(_ document: Document) throws -> [String] {
        try document.newBackgroundContext().fetch(FetchRequest(entityName: "Photographer"))
            .sorted { try $0.value(forKey: "id").text ?? "" < $1.value(forKey: "id").text ?? "" }
            .map { try $0.value(forKey: "name").text ?? "-" }
    }

    /// The files and folders under `url`, as relative paths.
    func listing(_ url: URL) -> [String] {
        (FileManager.default.enumerator(atPath: url.path)?.allObjects as? [String] ?? []).sorted()
    }

    /// A folder at the document's URL holding only `notes.txt`.
    func makeFolderOfNotes() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: url.appending(path: "notes.txt"))
    }

    // MARK: Life cycle and autosave

    @Test func autosaveWaitsForAQuietSpellThenCloseSavesAndReopeningSeesTheData() async throws {
        let document = try document()
        #expect(document.state == .closed)
        try await document.create()
        #expect(document.state == .normal)
        #expect(listing(url).contains("Document.json") && listing(url).contains("Store.sqlite"))
        let metadata = try JSONSerialization.jsonObject(with: Data(contentsOf: url.appending(path: "Document.json"))) as? [String: Any]
        #expect(metadata?["formatVersion"] as? Int == 1)
        #expect(metadata?["modelVersionHash"] as? String == model.versionHash)
        #expect(metadata?["created"] is String)

        var states = document.states().makeAsyncIterator()
        let photographer = try document.context.insert("Photographer")
        try photographer.setValue("p1", forKey: "id")
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(1999))
        #expect(clock.sleeperCount == 1, "autosave still waits just before its delay")
        #expect(try storedNames(document).isEmpty)

        // A change starts the wait again.
        try photographer.setValue("Ansel", forKey: "name")
        #expect(clock.sleeperCount == 0, "the earlier wait is cancelled at once")
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(1999))
        #expect(clock.sleeperCount == 1)
        #expect(try storedNames(document).isEmpty, "not saved before the delay after the last change")
        clock.advance(by: .milliseconds(1))
        #expect(await states.next()?.state == .editingDisabled)
        #expect(await states.next()?.state == .normal)
        #expect(try storedNames(document) == ["Ansel"])
        #expect(try document.context.hasChanges == false)

        // Close saves what is left, without waiting for autosave.
        try photographer.setValue("Ansel Adams", forKey: "name")
        try await document.close()
        #expect(await states.next()?.state == .editingDisabled)
        #expect(await states.next()?.state == .normal)
        #expect(await states.next()?.state == .closed)
        #expect(document.state == .closed)
        #expect(throws: DocumentError.self) { try document.context }

        let reopened = try self.document()
        try await reopened.open()
        #expect(try storedNames(reopened) == ["Ansel Adams"])
        #expect(try reopened.context.fetchCount("Photographer") == 1)
        try await reopened.close()
    }

    @Test func anExplicitSaveTakesOverAWaitingAutosave() async throws {
        let document = try document()
        try await document.create()
        try document.context.insert("Photographer").setValue("p1", forKey: "id")
        await clock.waitForSleepers(1)
        try await document.save()
        #expect(clock.sleeperCount == 0, "the waiting autosave is cancelled")
        #expect(try storedNames(document) == ["-"])
        document.autosaveDelay = nil
        try document.context.insert("Photographer").setValue("p2", forKey: "id")
        #expect(clock.sleeperCount == 0, "no autosave when it is off")
        try await document.close()
    }

    @Test func openOrCreateCreatesOnceThenOpens() async throws {
        let first = try document()
        try await first.openOrCreate()
        try first.context.insert("Photographer").setValue("p1", forKey: "id")
        try await first.close()
        let second = try document()
        try await second.openOrCreate()
        #expect(try second.context.fetchCount("Photographer") == 1)
        await #expect(throws: DocumentError.self) { try await second.open() }
        try await second.close()
        try await second.close() // closing a closed document does nothing
    }

    // MARK: Bad inputs: typed errors, nothing changed on disk

    @Test func openingAMissingDocumentSaysCreateItAndMakesNothing() async throws {
        let error = await #expect(throws: DocumentError.self) { try await document().open() }
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("create()") == true)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func creatingOverSomethingThatExistsFailsAndLeavesIt() async throws {
        try makeFolderOfNotes()
        let error = await #expect(throws: DocumentError.self) { try await document().create() }
        #expect(error?.code == .alreadyExists)
        #expect(error?.message.contains("open()") == true)
        #expect(listing(url) == ["notes.txt"])
        #expect(try Data(contentsOf: url.appending(path: "notes.txt")) == Data("mine".utf8))
    }

    @Test func openingAFolderOrFileThatIsNotADocumentFailsAndLeavesIt() async throws {
        try makeFolderOfNotes()
        let folder = await #expect(throws: DocumentError.self) { try await document().open() }
        #expect(folder?.code == .notADocument)
        #expect(folder?.message.contains("Document.json") == true)
        #expect(listing(url) == ["notes.txt"])

        try Data("{\"formatVersion\": \"one\"}".utf8).write(to: url.appending(path: "Document.json"))
        let garbled = await #expect(throws: DocumentError.self) { try await document().open() }
        #expect(garbled?.code == .notADocument)

        let metadata = #"{"formatVersion": 1, "modelVersionHash": "x", "created": "2026-01-01T00:00:00Z"}"#
        try Data(metadata.utf8).write(to: url.appending(path: "Document.json"))
        let storeless = await #expect(throws: DocumentError.self) { try await document().open() }
        #expect(storeless?.code == .notADocument)
        #expect(storeless?.message.contains("Store.sqlite") == true)
        #expect(listing(url) == ["Document.json", "notes.txt"])

        let file = dir.url.appending(path: "Plain.trove")
        try Data("not a package".utf8).write(to: file)
        let plain = await #expect(throws: DocumentError.self) { try await Document(url: file, model: model).open() }
        #expect(plain?.code == .notADocument)
        #expect(try Data(contentsOf: file) == Data("not a package".utf8))
    }

    @Test func aPackageFromANewerTroveIsRefused() async throws {
        try await document().create()
        let metadata = #"{"formatVersion": 2, "modelVersionHash": "x", "created": "2026-01-01T00:00:00Z"}"#
        try Data(metadata.utf8).write(to: url.appending(path: "Document.json"))
        let error = await #expect(throws: DocumentError.self) { try await document().open() }
        #expect(error?.code == .unsupportedFormat)
    }

    @Test func aClosedDocumentHasNoContext() async throws {
        let document = try document()
        #expect(throws: DocumentError.self) { try document.context }
        let error = await #expect(throws: DocumentError.self) { try await document.save() }
        #expect(error?.code == .notOpen)
        await #expect(throws: DocumentError.self) { try await document.revert() }
    }

    // MARK: Saving errors, editing disabled, revert

    @Test func aFailedSaveSetsSavingErrorUntilAGoodSaveClearsIt() async throws {
        let document = try document()
        try await document.create()
        var states = document.states().makeAsyncIterator()
        let photographer = try document.context.insert("Photographer") // id is required
        await #expect(throws: ValidationError.self) { try await document.save() }
        #expect(await states.next()?.state == .editingDisabled)
        #expect(await states.next()?.state == .savingError)
        #expect(document.lastSaveError is ValidationError)
        #expect(try document.context.hasChanges, "the changes stay, to be fixed")

        try photographer.setValue("p1", forKey: "id")
        try await document.save()
        #expect(await states.next()?.state == [.savingError, .editingDisabled])
        #expect(await states.next()?.state == .normal)
        #expect(document.lastSaveError == nil)
        #expect(try storedNames(document) == ["-"])
        try await document.close()
    }

    @Test func aFailedAutosaveSetsSavingErrorToo() async throws {
        let document = try document()
        try await document.create()
        var states = document.states().makeAsyncIterator()
        try document.context.insert("Photo").setValue("ph1", forKey: "id")
        try document.context.insert("Photo").setValue(-1, forKey: "views") // no id, views < 0
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        #expect(await states.next()?.state == .editingDisabled)
        #expect(await states.next()?.state == .savingError)
        let error = try #require(document.lastSaveError as? ValidationError)
        #expect(error.failures.count == 2)
        #expect(try document.newBackgroundContext().fetchCount("Photo") == 0)
    }

    @Test(.enabled(if: FileLockHolder.isAvailable, "needs util-linux flock"))
    func theContextRefusesChangesWhileASaveWritesAndABusyStoreIsASavingError() async throws {
        let lockFile = url.appending(path: "Store.sqlite-lock")
        // A store that gives up at once while another process writes.
        let busy = try document(options: SQLiteStore.Options(busyTimeout: 0.2, clock: ManualClock().timeSource))
        try await busy.create()
        let photographer = try busy.context.insert("Photographer")
        try photographer.setValue("p1", forKey: "id")
        var holder = try FileLockHolder(file: lockFile)
        let error = await #expect(throws: StoreError.self) { try await busy.save() }
        #expect(error?.code == .busy)
        #expect(busy.state == .savingError)
        holder.release()
        try await busy.close()
        #expect(busy.state == .closed)

        // A store that waits for the lock: the save's write stays under way until it is freed.
        let waiting = try document(options: SQLiteStore.Options(busyTimeout: 300))
        try await waiting.open()
        var states = waiting.states().makeAsyncIterator()
        let object = try #require(try waiting.context.fetchFirst("Photographer"))
        try object.setValue("Ansel", forKey: "name")
        holder = try FileLockHolder(file: lockFile)
        let save = Task { try await waiting.save() }
        #expect(await states.next()?.state == .editingDisabled)
        let refused = #expect(throws: ObjectError.self) { try object.setValue("Other", forKey: "name") }
        #expect(refused?.code == .editingDisabled)
        #expect(throws: ObjectError.self) { try waiting.context.insert("Photographer") }
        #expect(throws: ObjectError.self) { try waiting.context.delete(object) }
        holder.release()
        try await save.value
        #expect(await states.next()?.state == .normal)
        #expect(try storedNames(waiting) == ["Ansel"])
        try object.setValue("Other", forKey: "name")
        try await waiting.close()
    }

    @Test(.enabled(if: FileLockHolder.isAvailable, "needs util-linux flock"))
    func aTypedChangeRefusedWhileASaveWritesFailsTheNextSave() async throws {
        let document = try Document(url: url, model: SampleModels.media(), classes: MediaModelClasses.all,
                                    options: SQLiteStore.Options(busyTimeout: 300), clock: clock)
        try await document.create()
        let image = try document.context.insert(Image.self)
        image.id = "i1"
        var states = document.states().makeAsyncIterator()
        let holder = try FileLockHolder(file: url.appending(path: "Store.sqlite-lock"))
        let save = Task { try await document.save() }
        #expect(await states.next()?.state == .editingDisabled)
        image.caption = "refused" // a typed property cannot throw: the next save does
        holder.release()
        try await save.value
        #expect(await states.next()?.state == .normal)
        #expect(image.caption == nil)
        let error = await #expect(throws: ObjectError.self) { try await document.save() }
        #expect(error?.code == .editingDisabled)
        #expect(error?.message.contains("is saving") == true)
        image.caption = "accepted"
        try await document.close()
        try await document.open()
        #expect(try document.context.fetchFirst(Image.self)?.caption == "accepted")
        try await document.close()
    }

    @Test func revertDropsUnsavedChangesAndClearsSavingError() async throws {
        let document = try document()
        try await document.create()
        let photographer = try document.context.insert("Photographer")
        try photographer.setValue("p1", forKey: "id")
        try photographer.setValue("Ansel", forKey: "name")
        try await document.save()

        var states = document.states().makeAsyncIterator()
        try photographer.setValue("Changed", forKey: "name")
        try document.context.insert("Photographer") // no id: the save fails
        await #expect(throws: ValidationError.self) { try await document.save() }
        #expect(await states.next()?.state == .editingDisabled)
        #expect(await states.next()?.state == .savingError)

        try await document.revert()
        #expect(await states.next()?.state == [.savingError, .editingDisabled])
        #expect(await states.next()?.state == .normal)
        #expect(document.lastSaveError == nil)
        #expect(try photographer.value(forKey: "name").text == "Ansel")
        #expect(try document.context.hasChanges == false)
        #expect(try document.context.fetchCount("Photographer") == 1)
        try await document.close()
    }

    @Test func closingWithAChangeThatCannotBeSavedKeepsTheDocumentOpen() async throws {
        let document = try document()
        try await document.create()
        try document.context.insert("Photographer") // no id
        await #expect(throws: ValidationError.self) { try await document.close() }
        #expect(document.state == .savingError)
        #expect(try document.context.hasChanges, "the change is still there to fix")
        try await document.revert()
        try await document.close()
        #expect(document.state == .closed)
        try await document.open()
        #expect(try document.context.fetchCount("Photographer") == 0)
        try await document.close()
    }

    @Test func stateChangesArePostedAsNotifications() async throws {
        let document = try document()
        let seen = Locked<[Document.State]>([])
        let observer = NotificationCenter.default.addObserver(forName: Document.stateDidChange, object: document, queue: nil) { note in
            if let state = note.userInfo?[Document.stateKey] as? Document.State { seen.withLock { $0.append(state) } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try await document.create()
        try document.context.insert("Photographer").setValue("p1", forKey: "id")
        try await document.close()
        #expect(seen.withLock { $0 } == [.normal, .editingDisabled, .normal, .closed])
    }

    @Test func backgroundSavesReachTheDocumentsContext() async throws {
        let document = try document()
        try await document.create()
        let background = try document.newBackgroundContext()
        try background.insert("Photographer").setValue("p1", forKey: "id")
        try background.save()
        #expect(try document.context.fetchCount("Photographer") == 1)
        #expect(document.state == .normal)
        try await document.close()
    }
}
