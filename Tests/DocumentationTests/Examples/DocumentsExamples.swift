import Foundation
import Testing
import Trove
import TroveTesting

/// The examples of the article "Documents" (`Documents.md`).
@MainActor
@Suite struct DocumentsExamples {
    @Test func aDocumentIsOpenedEditedSavedAndClosed() async throws {
        let fixture = try PhotosFixture()
        let folder = fixture.directory.url
        let model = fixture.model

        let document = try Document(url: folder.appending(path: "Photos.trove"), model: model,
                                    classes: [Photographer.self, Photo.self, Tag.self])
        try await document.openOrCreate()              // creates the package the first time
        let watcher = Task {
            for await change in document.states() {
                if change.state.contains(.savingError), let error = document.lastSaveError {
                    print("not saved:", error)         // the changes are still in the context
                }
            }
        }
        let context = try document.context             // on the main actor
        let ann = try context.insert(Photographer.self)
        ann.id = "ann"
        ann.name = "Ann"                               // autosave saves it once edits pause 2 s
        try await document.save()                      // or save now
        try await document.close()                     // saves what is left, then closes

        watcher.cancel()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.appending(path: "Photos.trove").path)
        #expect(Set(files).isSuperset(of: ["Document.json", "Store.sqlite"]))
        let reopened = try Document(url: folder.appending(path: "Photos.trove"), model: model,
                                    classes: PhotosFixture.classes)
        try await reopened.open()
        #expect(try reopened.context.fetchCount(Photographer.self) == 1)
        try await reopened.close()
    }

    @Test func aFailedSaveIsAState() async throws {
        let fixture = try PhotosFixture()
        let document = try Document(url: fixture.directory.url.appending(path: "Photos.trove"), model: fixture.model,
                                    classes: PhotosFixture.classes)
        try await document.create()
        let context = try document.context

        document.autosaveDelay = .seconds(5)           // or nil: no autosave
        let photo = try context.insert(Photo.self)     // its id is required: not set yet
        do {
            try await document.save()
        } catch let error as ValidationError {
            print(error.failures)                      // document.state == .savingError
        }

        #expect(document.state == .savingError)
        #expect(document.lastSaveError is ValidationError)
        photo.id = "p1"
        try await document.save()                      // document.state == .normal again

        #expect(document.state == .normal)
        #expect(document.lastSaveError == nil)
        try await document.close()
    }

    @Test func twoDocumentsOnOnePackageAndAConflict() async throws {
        let fixture = try PhotosFixture()
        let packageURL = fixture.directory.url.appending(path: "Photos.trove")
        let model = fixture.model
        let first = try Document(url: packageURL, model: model, classes: PhotosFixture.classes)
        try await first.create()
        let p1 = try first.context.insert(Photo.self)
        p1.id = "p1"
        p1.title = "Dunes"
        try await first.save()

        let document = try Document(url: packageURL, model: model, classes: PhotosFixture.classes)
        document.changeCheckInterval = .seconds(5)      // how often it looks for others' saves; nil: only before saving
        try await document.open()
        let photo = try #require(try document.context.fetchFirst(Photo.self, where: "id == %@", "p1"))
        p1.title = "Theirs"
        try await first.save()
        photo.title = "Mine"

        try document.checkForOtherSaves()               // look now, or wait for the next look
        if document.state.contains(.inConflict) {
            for conflict in document.conflicts {
                print(conflict.objectID, conflict.kind, conflict.keys, conflict.myValues, conflict.storedValues)
                try document.resolveConflict(of: conflict.objectID, by: .keepMine)   // or .takeTheirs
            }
            try await document.save()
        }

        #expect(document.state == .normal)
        try first.checkForOtherSaves()
        #expect(p1.title == "Mine", "the conflict was found, kept as mine and saved")
        try await first.close()
        try await document.close()
    }
}
