import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct ContextTests {
    let dir: TemporaryDirectory
    let container: Container
    let context: ObjectContext

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(model: SampleModels.photos(), url: dir.file("photos.trove"))
        context = container.newBackgroundContext()
    }

    func photo(_ id: String, title: String? = nil) throws -> ManagedObject {
        let photo = try context.insert("Photo")
        try photo.setValue(id, forKey: "id")
        try photo.setValue(title, forKey: "title")
        return photo
    }

    @Test func insertAppliesDefaultsAndSaveGivesPermanentIDs() throws {
        let p = try photo("a")
        #expect(p.objectID.isTemporary)
        #expect(try p.value(forKey: "views") == 0)
        #expect(try p.value(forKey: "title") == .null)
        #expect(p.isInserted && p.hasChanges && context.hasChanges)
        #expect(context.insertedObjects == [p])
        try context.save()
        #expect(!p.objectID.isTemporary)
        #expect(p.objectID.primaryKey == 1)
        #expect(!p.isInserted && !p.hasChanges && !context.hasChanges)
        #expect(try context.object(with: p.objectID) === p)
    }

    @Test func oneInstancePerRowPerContext() throws {
        _ = try photo("a")
        _ = try photo("b")
        try context.save()
        let other = container.newBackgroundContext()
        let first = try other.fetch(FetchRequest(entityName: "Photo"))
        let second = try other.fetch(FetchRequest(entityName: "Photo"))
        #expect(first.count == 2)
        #expect(zip(first, second).allSatisfy { $0 === $1 })
        #expect(try other.object(with: first[0].objectID) === first[0])
        #expect(first[0] !== context.registeredObject(for: first[0].objectID))
    }

    @Test func updatesTrackCommittedAndChangedValues() throws {
        let p = try photo("a", title: "old")
        try context.save()
        try p.setValue("new", forKey: "title")
        #expect(p.isUpdated && context.updatedObjects == [p])
        #expect(p.committedValues()["title"] == "old")
        #expect(p.changedValues() == ["title": "new"])
        try p.setValue("old", forKey: "title")
        #expect(!p.isUpdated && !context.hasChanges, "setting the committed value back is no change")
        try p.setValue("new", forKey: "title")
        try context.save()
        let fresh = container.newBackgroundContext()
        #expect(try fresh.object(with: p.objectID).value(forKey: "title") == "new")
        #expect(p.committedValues()["title"] == "new")
    }

    @Test func deleteAndFetchSeePendingChanges() throws {
        let a = try photo("a")
        let b = try photo("b")
        try context.save()
        try context.delete(a)
        #expect(a.isDeleted && context.deletedObjects == [a])
        let c = try photo("c")
        let fetched = try context.fetch(FetchRequest(entityName: "Photo"))
        #expect(Array(fetched) == [b, c])
        try context.save()
        #expect(a.context == nil && !a.isDeleted)
        #expect(try container.newBackgroundContext().fetch(FetchRequest(entityName: "Photo")).count == 2)
        #expect(throws: ObjectError.self) { try context.object(with: a.objectID) }
    }

    @Test func deletingAnUnsavedInsertJustDropsIt() throws {
        let a = try photo("a")
        try context.delete(a)
        #expect(!context.hasChanges && a.context == nil)
        try context.save()
        #expect(try container.store.count(of: "Photo") == 0)
    }

    @Test func unsavedInsertsAreFoundByTheirTemporaryIDsWhateverWasDeleted() throws {
        let photos = try (0..<40).map { try photo("p\($0)") }
        // Most are deleted again (the context then sweeps what it keeps of them).
        for (index, photo) in photos.enumerated() where index % 4 != 0 { try context.delete(photo) }
        let kept = photos.enumerated().filter { $0.offset % 4 == 0 }.map(\.element)
        for photo in kept { #expect(try context.object(with: photo.objectID) === photo) }
        #expect(context.registeredObject(for: photos[1].objectID) == nil)
        #expect(throws: ObjectError.self) { try context.object(with: photos[1].objectID) }
        #expect(context.insertedObjects == Set(kept) && context.registeredObjectCount == kept.count)
        try context.save()
        #expect(try Array(context.fetch(FetchRequest(entityName: "Photo"))) == kept, "saved in the order inserted")
        for photo in kept { #expect(try context.object(with: photo.objectID) === photo) }
    }

    @Test func resetDetachesUnsavedInserts() throws {
        let a = try photo("a")
        let b = try photo("b")
        try context.delete(b)
        context.reset()
        #expect(a.context == nil && !a.isInserted && context.registeredObjectCount == 0)
        #expect(context.registeredObject(for: a.objectID) == nil)
        try context.save()
        #expect(try container.store.count(of: "Photo") == 0)
    }

    @Test func objectsThatOutliveTheirContextRefuseChanges() throws {
        // Unsaved inserts, a saved object and an undo-recording context's insert, all held
        // after their context is gone.
        var (inserted, saved, recorded): (ManagedObject?, ManagedObject?, ManagedObject?)
        do {
            let gone = container.newBackgroundContext()
            saved = try gone.insert("Photo")
            try saved?.setValue("s", forKey: "id")
            try gone.save()
            inserted = try gone.insert("Photo")
            let undoing = container.newBackgroundContext()
            undoing.undoManager = ContextUndoManager()
            recorded = try undoing.insert("Photo")
        }
        for object in [inserted, saved, recorded].compactMap({ $0 }) {
            #expect(object.context == nil)
            let error = try #require(throws: ObjectError.self) { try object.setValue("x", forKey: "title") }
            #expect(error.code == .notInContext)
            #expect(try object.value(forKey: "title") == .null, "nothing was set")
        }
    }

    @Test func rollbackRestoresEverything() throws {
        let a = try photo("a", title: "kept")
        let b = try photo("b")
        try context.save()
        try a.setValue("changed", forKey: "title")
        try context.delete(b)
        let c = try photo("c")
        context.rollback()
        #expect(!context.hasChanges)
        #expect(try a.value(forKey: "title") == "kept")
        #expect(!b.isDeleted && b.context === context)
        #expect(c.context == nil && !c.isInserted)
        #expect(try Array(context.fetch(FetchRequest(entityName: "Photo"))) == [a, b])
    }

    @Test func resetForgetsEverything() throws {
        let a = try photo("a")
        try context.save()
        try a.setValue("unsaved", forKey: "title")
        context.reset()
        #expect(!context.hasChanges && a.context == nil)
        #expect(throws: ObjectError.self) { try a.setValue("x", forKey: "title") }
        let again = try context.object(with: a.objectID)
        #expect(again !== a)
        #expect(try again.value(forKey: "title") == .null)
    }

    @Test func wrongTypesAndUnknownKeysAreThrownNotCrashed() throws {
        let p = try photo("a")
        let unknown = try #require(throws: ObjectError.self) { try p.setValue("x", forKey: "colour") }
        #expect(unknown.code == .unknownKey)
        #expect(unknown.message == "entity 'Photo' has no attribute 'colour'; its attributes are: id, title, uploadDate, views")
        let wrong = try #require(throws: ObjectError.self) { try p.setValue("lots", forKey: "views") }
        #expect(wrong.code == .typeMismatch)
        #expect(wrong.message.contains("expected a value of type integer64, got string"))
        #expect(throws: ObjectError.self) { try p.value(forKey: "nope") }
        try p.setValue("a title", forKey: "title")
        #expect(throws: ObjectError.self) { try p.value(forKey: "title", as: Int.self) }
        #expect(throws: ObjectError.self) { try context.insert("Nothing") }
        #expect(try p.value(forKey: "views") == 0, "a refused value leaves the old one")
    }

    @Test func integerRangesAreChecked() throws {
        let model = try Model { Entity("Small") { Attribute("n", .integer16); Attribute("c", .character) } }
        let context = try Container(store: SQLiteStore(inMemoryWith: model)).newBackgroundContext()
        let small = try context.insert("Small")
        try small.setValue(32767, forKey: "n")
        let error = try #require(throws: ObjectError.self) { try small.setValue(70000, forKey: "n") }
        #expect(error.message.contains("70000 is out of range for integer16"))
        try small.setValue("é", forKey: "c")
        #expect(try small.value(forKey: "c") == .character("é"))
        #expect(throws: ObjectError.self) { try small.setValue("ab", forKey: "c") }
    }

    @Test func objectsOfAnotherContextAreRefused() throws {
        let p = try photo("a")
        let other = container.newBackgroundContext()
        let error = try #require(throws: ObjectError.self) { try other.delete(p) }
        #expect(error.code == .notInContext)
    }

    @Test func unchangedObjectsAreNotKeptAlive() throws {
        for i in 0..<50 { _ = try photo("p\(i)") }
        try context.save()
        let reader = container.newBackgroundContext()
        do {
            let objects = try reader.fetch(FetchRequest(entityName: "Photo"))
            #expect(reader.registeredObjectCount == 50)
            try objects[0].setValue("held by the context", forKey: "title")
        }
        #expect(reader.registeredObjectCount == 1, "only the changed object stays")
    }

    @MainActor @Test func viewContextIsOneContextOnTheMainActor() throws {
        let view = container.viewContext
        #expect(view === container.viewContext)
        #expect(try view.fetch(FetchRequest(entityName: "Photo")).isEmpty)
    }
}
