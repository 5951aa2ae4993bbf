import Foundation
import Testing
import Trove
import TroveTesting

/// Two contexts change the same photo; the second save meets the first one's version.
@Suite struct MergePolicyTests {
    let dir: TemporaryDirectory
    let container: Container
    let id: ObjectID

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(model: SampleModels.photos(), url: dir.file("c.trove"))
        let setup = container.newBackgroundContext()
        let photo = try setup.insert("Photo")
        try photo.setValue("p", forKey: "id")
        try photo.setValue("original", forKey: "title")
        try photo.setValue(1, forKey: "views")
        try setup.save()
        id = photo.objectID
    }

    /// Context A changes title and views; context B (saved first) changes title and uploadDate.
    func conflict(_ policy: MergePolicy) throws -> (ObjectContext, ManagedObject) {
        let a = container.newBackgroundContext()
        a.mergePolicy = policy
        let mine = try a.object(with: id)
        let b = container.newBackgroundContext()
        let theirs = try b.object(with: id)
        try theirs.setValue("theirs", forKey: "title")
        try theirs.setValue(Date(timeIntervalSince1970: 100), forKey: "uploadDate")
        try b.save()
        try mine.setValue("mine", forKey: "title")
        try mine.setValue(2, forKey: "views")
        return (a, mine)
    }

    func stored() throws -> ManagedObject {
        try container.newBackgroundContext().object(with: id)
    }

    @Test func errorListsObjectKeysAndBothValues() throws {
        let (context, mine) = try conflict(.error)
        let error = try #require(throws: ConflictError.self) { try context.save() }
        let item = try #require(error.conflicts.first)
        #expect(item.objectID == id && item.expectedVersion == 1 && item.storeVersion == 2)
        #expect(Set(item.changedKeys) == ["title", "views"])
        #expect(item.storeValues?["title"] == "theirs" && item.contextValues["title"] == "mine")
        #expect(error.description.contains("title: this context has \"mine\", the store has \"theirs\""))
        #expect(mine.isUpdated, "the context keeps its changes")
        let fresh = try stored()
        #expect(try fresh.value(forKey: "title") == "theirs" && fresh.value(forKey: "views") == 1)
    }

    @Test func storeWinsPerProperty() throws {
        let (context, _) = try conflict(.storeWins)
        try context.save()
        let fresh = try stored()
        #expect(try fresh.value(forKey: "title") == "theirs")
        #expect(try fresh.value(forKey: "views") == 2, "the context's change to a key the store left alone is saved")
        #expect(try fresh.value(forKey: "uploadDate") == .date(Date(timeIntervalSince1970: 100)))
    }

    @Test func objectWinsPerProperty() throws {
        let (context, _) = try conflict(.objectWins)
        try context.save()
        let fresh = try stored()
        #expect(try fresh.value(forKey: "title") == "mine" && fresh.value(forKey: "views") == 2)
        #expect(try fresh.value(forKey: "uploadDate") == .date(Date(timeIntervalSince1970: 100)), "the store's other change stays")
    }

    @Test func overwriteWritesTheWholeObject() throws {
        let (context, _) = try conflict(.overwrite)
        try context.save()
        let fresh = try stored()
        #expect(try fresh.value(forKey: "title") == "mine" && fresh.value(forKey: "views") == 2)
        #expect(try fresh.value(forKey: "uploadDate") == .null, "the context's state replaces the store's")
    }

    @Test func rollbackDropsTheContextsChanges() throws {
        let (context, mine) = try conflict(.rollback)
        try context.save()
        #expect(try mine.value(forKey: "title") == "theirs" && !mine.hasChanges)
        let fresh = try stored()
        #expect(try fresh.value(forKey: "title") == "theirs" && fresh.value(forKey: "views") == 1)
    }

    @Test func aRowDeletedUnderneath() throws {
        let a = container.newBackgroundContext()
        a.mergePolicy = .storeWins
        let mine = try a.object(with: id)
        let b = container.newBackgroundContext()
        try b.delete(try b.object(with: id))
        try b.save()
        try mine.setValue("too late", forKey: "title")
        try a.save()
        #expect(mine.context == nil, "under storeWins a row deleted in the store stays deleted")

        let c = container.newBackgroundContext()
        c.mergePolicy = .objectWins
        let ghost = try c.insert("Photo")
        try ghost.setValue("g", forKey: "id")
        try c.save()
        let d = container.newBackgroundContext()
        try d.delete(try d.object(with: ghost.objectID))
        try d.save()
        try ghost.setValue("edited", forKey: "title")
        let error = try #require(throws: ConflictError.self) { try c.save() }
        #expect(error.conflicts.first?.storeVersion == nil)
    }
}

/// Two contexts insert an object with the same unique key; the second save meets the first.
@Suite struct UniquenessConflictTests {
    func race(_ policy: MergePolicy) throws -> (Container, ObjectContext, TemporaryDirectory) {
        let dir = try TemporaryDirectory()
        let container = try Container(model: SampleModels.photos(), url: dir.file("u.trove"))
        let first = container.newBackgroundContext()
        let stored = try first.insert("Photographer")
        try stored.setValue("ann", forKey: "id")
        try stored.setValue("Ann (stored)", forKey: "name")
        let second = container.newBackgroundContext()
        second.mergePolicy = policy
        let mine = try second.insert("Photographer")
        try mine.setValue("ann", forKey: "id")
        try mine.setValue("Ann (mine)", forKey: "name")
        let photo = try second.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try photo.setRelatedObject(mine, forKey: "whoTook")
        try first.save()
        return (container, second, dir)
    }

    @Test func errorReportsTheViolation() throws {
        let (container, context, dir) = try race(.error)
        defer { withExtendedLifetime(dir) {} }
        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.code == .constraintViolation)
        #expect(try container.store.count(of: "Photographer") == 1 && container.store.count(of: "Photo") == 0)
    }

    @Test func storeWinsFoldsTheInsertIntoTheStoredObject() throws {
        let (container, context, dir) = try race(.storeWins)
        defer { withExtendedLifetime(dir) {} }
        try context.save()
        let check = container.newBackgroundContext()
        #expect(try check.fetchCount("Photographer") == 1)
        let ann = try #require(try check.fetchFirst("Photographer"))
        #expect(try ann.value(forKey: "name") == "Ann (stored)")
        #expect(try ann.relatedObjects(forKey: "photos").map { try $0.value(forKey: "id") } == ["p1"], "the links move over")
    }

    @Test func objectWinsTakesTheInsertsValues() throws {
        let (container, context, dir) = try race(.objectWins)
        defer { withExtendedLifetime(dir) {} }
        try context.save()
        let check = container.newBackgroundContext()
        let ann = try #require(try check.fetchFirst("Photographer"))
        #expect(try ann.value(forKey: "name") == "Ann (mine)")
        #expect(try ann.relatedObjects(forKey: "photos").count == 1)
    }
}
