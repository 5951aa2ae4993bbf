import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct UndoTests {
    let dir: TemporaryDirectory
    let context: ObjectContext
    let ann: ManagedObject
    let bob: ManagedObject
    let album: ManagedObject

    init() throws {
        dir = try TemporaryDirectory()
        context = try Container(model: SampleModels.graph(), url: dir.file("u.trove")).newBackgroundContext()
        ann = try context.insert("Person")
        try ann.setValue("Ann", forKey: "name")
        bob = try context.insert("Person")
        try bob.setValue("Bob", forKey: "name")
        album = try context.insert("Album")
        try album.setValue("Blue", forKey: "title")
        try album.setRelatedObject(ann, forKey: "owner")
        try context.save()
        context.undoManager = ContextUndoManager()
    }

    func owners() throws -> (String?, Int, Int) {
        (try album.relatedObject(forKey: "owner")?.value(forKey: "name", as: String.self),
         try ann.relatedObjects(forKey: "albums").count, try bob.relatedObjects(forKey: "albums").count)
    }

    @Test func valuesAndRelationshipsBothSides() throws {
        let undo = try #require(context.undoManager)
        try album.setValue("Red", forKey: "title")
        context.processPendingChanges()
        try album.setRelatedObject(bob, forKey: "owner")
        context.processPendingChanges()
        #expect(try owners() == ("Bob", 0, 1))

        undo.undo()
        #expect(try owners() == ("Ann", 1, 0), "the inverse sides are restored too")
        #expect(try album.value(forKey: "title") == "Red")
        undo.undo()
        #expect(try album.value(forKey: "title") == "Blue")
        #expect(!context.hasChanges && !undo.canUndo && undo.canRedo)

        undo.redo()
        undo.redo()
        #expect(try album.value(forKey: "title") == "Red" && owners() == ("Bob", 0, 1))
        try context.save()
        #expect(!undo.canUndo && !undo.canRedo, "a save clears the stacks")
    }

    @Test func aRedoneInsertTakesItsPlaceBackAndIsFoundByItsID() throws {
        let undo = try #require(context.undoManager)
        let first = try context.insert("Person")
        try first.setValue("First", forKey: "name")
        context.processPendingChanges()
        let second = try context.insert("Person")
        try second.setValue("Second", forKey: "name")
        context.processPendingChanges()
        let third = try context.insert("Person")
        try third.setValue("Third", forKey: "name")
        context.processPendingChanges()
        undo.undo()
        undo.undo()
        #expect(context.registeredObject(for: second.objectID) == nil)
        undo.redo()
        #expect(context.registeredObject(for: second.objectID) === second)
        #expect(context.registeredObject(for: third.objectID) == nil)
        undo.redo()
        #expect(context.insertedObjects == [first, second, third])
        try context.save()
        let people = try context.fetch("Person")
        #expect(try people.map { try $0.value(forKey: "name", as: String.self) } == ["Ann", "Bob", "First", "Second", "Third"],
                "rows are written in the order of insertion")
    }

    @Test func insertsAndCascadingDeletes() throws {
        let undo = try #require(context.undoManager)
        let track = try context.insert("Track")
        try track.setValue("One", forKey: "title")
        try album.addRelatedObject(track, forKey: "tracks")
        context.processPendingChanges()
        undo.undo()
        #expect(track.context == nil && !context.hasChanges)
        #expect(try album.relatedObjects(forKey: "tracks").isEmpty)
        undo.redo()
        #expect(track.context === context && track.isInserted)
        #expect(try album.relatedObjects(forKey: "tracks") == [track])

        try context.delete(ann)    // albums cascade: Blue goes, and its tracks
        context.processPendingChanges()
        #expect(album.isDeleted && track.context == nil)
        undo.undo()
        #expect(!ann.isDeleted && !album.isDeleted)
        #expect(try owners() == ("Ann", 1, 0))
        #expect(try album.relatedObjects(forKey: "tracks") == [track] && track.isInserted)
    }

    @Test func explicitGroupsAndNewChangesClearRedo() throws {
        let undo = try #require(context.undoManager)
        undo.beginGroup()
        try ann.setValue("Anne", forKey: "name")
        context.processPendingChanges()
        try bob.setValue("Robert", forKey: "name")
        undo.endGroup()
        undo.undo()
        #expect(try ann.value(forKey: "name") == "Ann" && bob.value(forKey: "name") == "Bob")
        try bob.setValue("Bobby", forKey: "name")
        #expect(!undo.canRedo, "a new change clears what could be redone")
        context.rollback()
        #expect(!undo.canUndo)
    }
}
