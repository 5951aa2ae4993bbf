import Foundation
import PhotosClasses
import Testing
import Trove
import TroveTesting

/// Batch deletes and updates: SQL without objects, reaching contexts as a save does.
@Suite struct BatchRequestTests {
    let dir: TemporaryDirectory
    let url: URL
    let container: Container

    /// Photographers ann (photos p0, p1, p2) and bob (p3), views 0, 10, 20, 30.
    init() throws {
        dir = try TemporaryDirectory()
        url = dir.file("photos.trove")
        container = try Container(model: SampleModels.photos(), url: url)
        let context = container.newBackgroundContext()
        let ann = try context.insert("Photographer")
        try ann.setValue("ann", forKey: "id")
        let bob = try context.insert("Photographer")
        try bob.setValue("bob", forKey: "id")
        for index in 0..<4 {
            let photo = try context.insert("Photo")
            try photo.setValue("p\(index)", forKey: "id")
            try photo.setValue(index * 10, forKey: "views")
            try photo.setRelatedObject(index < 3 ? ann : bob, forKey: "whoTook")
        }
        try context.save()
    }

    func contents() throws -> [String] {
        try StoreIntegrity.contents(ofStoreAt: url)
    }

    func ids(_ context: ObjectContext, _ entity: String, where format: String = "TRUEPREDICATE") throws -> [String] {
        try context.fetch(entity, where: format, sortedBy: "id").map { try $0.value(forKey: "id").text ?? "" }
    }

    // MARK: Deleting

    @Test func aBatchDeleteRunsInTheStoreAndCascades() throws {
        let context = container.newBackgroundContext()
        try context.refreshIfStoreChanged()
        let tokenBefore = try container.store.changeToken()
        let result = try context.execute(BatchDeleteRequest(entityName: "Photographer", where: "id == %@", "ann"))
        #expect(result.count == 1 && !result.usedObjects)
        #expect(result.cascadedObjectIDs.map(\.description) == ["Photo/1", "Photo/2", "Photo/3"])
        #expect(result.nullifiedObjectIDs.isEmpty, "the photos hold the link, and they are gone")
        #expect(try ids(context, "Photo") == ["p3"])
        #expect(try ids(context, "Photographer") == ["bob"])
        #expect(try container.store.changeToken() != tokenBefore, "the change token moved on")
        #expect(try !context.refreshIfStoreChanged(), "its own write is not someone else's")
        #expect(try StoreIntegrity.problems(ofStoreAt: url).isEmpty)
    }

    @Test func deleteAllIsABatchDelete() throws {
        let recorder = SQLRecorder()
        let store = try SQLiteStore(url: url, model: container.model, options: .init(statementObserver: recorder.observer))
        let context = try ObjectContext(store: store)
        #expect(try context.deleteAll("Photo", where: "views < %d", 15) == 2)
        #expect(try store.count(of: "Photo") == 2, "written at once, no save needed")
        #expect(!recorder.statements.contains { $0.hasPrefix("SELECT \"t\".\"_pk\", \"t\".\"_version\"") }, "no object was read")
    }

    @Test func aNullifiedObjectGetsANewVersionAndLeavesNoDanglingLink() throws {
        let context = container.newBackgroundContext()
        let ann = try #require(try context.fetchFirst("Photographer", where: "id == 'ann'"))
        let photos = try ann.relatedObjects(forKey: "photos")
        #expect(photos.count == 3)
        // Photo.whoTook nullifies: deleting photos leaves the photographer, whose link lives in
        // the photos' rows (so her version stays, as a save through objects leaves it).
        let result = try context.execute(BatchDeleteRequest(entityName: "Photo", where: "views >= %d", 10))
        #expect(result.count == 3 && result.nullifiedObjectIDs.isEmpty)
        #expect(try ann.relatedObjects(forKey: "photos").map { try $0.value(forKey: "id") } == ["p0"], "removed from the relationship in memory")
        #expect(photos.filter(\.isRemoved).count == 2)
    }

    @Test func otherContextsMergeTheBatchLikeASave() throws {
        let other = container.newBackgroundContext()
        let p0 = try #require(try other.fetchFirst("Photo", where: "id == 'p0'"))
        let p3 = try #require(try other.fetchFirst("Photo", where: "id == 'p3'"))
        let bob = try #require(try p3.relatedObject(forKey: "whoTook"))
        let context = container.newBackgroundContext()
        let events = Locked<[ObjectChanges]>([])
        let writer = context.identifier
        // (Other tests save at the same time: only this context's events count.)
        let observer = NotificationCenter.default.addObserver(forName: ObjectContext.didSaveNotification, object: nil, queue: nil) { note in
            guard note.userInfo?[ObjectContext.contextKey] as? ContextID == writer,
                  let changes = note.userInfo?[ObjectContext.changesKey] as? ObjectChanges else { return }
            events.withLock { $0.append(changes) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        var update = try BatchUpdateRequest(entityName: "Photo", where: "views < %d", 5)
        update.values = ["title": "Zero"]
        #expect(try context.execute(update).objectIDs == [p0.objectID])
        try context.execute(BatchDeleteRequest(entityName: "Photo", where: "id == 'p3'"))
        let posted = events.withLock { $0 }
        #expect(posted.count == 2)
        for changes in posted { try other.mergeChanges(from: changes) }
        #expect(try p0.value(forKey: "title") == "Zero", "refreshed")
        #expect(posted.first?.changedKeys[p0.objectID] == ["title"])
        #expect(p3.isRemoved, "deleted")
        #expect(try bob.relatedObjects(forKey: "photos").isEmpty, "and removed from relationships in memory")
    }

    @Test func aContextHoldingAnOldVersionGetsItsConflict() throws {
        let stale = container.newBackgroundContext()
        let photo = try #require(try stale.fetchFirst("Photo", where: "id == 'p1'"))
        try container.newBackgroundContext().updateAll("Photo", where: "id == 'p1'", set: ["views": 99])
        try photo.setValue("Mine", forKey: "title")
        let conflict = try #require(throws: ConflictError.self) { try stale.save() }
        #expect(conflict.conflicts.map(\.objectID) == [photo.objectID])
        #expect(conflict.conflicts.first?.storeVersion == 2)
    }

    @Test func aBatchUpdateLeavesObjectsThatAlreadyHoldTheValues() throws {
        let context = container.newBackgroundContext()
        #expect(try context.updateAll("Photo", where: "views < %d", 25, set: ["views": 10]) == 2, "p1 holds 10 already")
        #expect(try context.updateAll("Photo", set: ["title": nil]) == 0)
        let versions = try container.store.fetch(StoreQuery(FetchRequest(entityName: "Photo"), model: container.model)).map(\.version)
        #expect(versions == [2, 1, 2, 1])
    }

    @Test func typedRequestsTakeFoundationPredicates() throws {
        let container = try Container(model: SampleModelFile.model(), url: dir.file("typed.trove"), classes: ModelClasses.all)
        let context = container.newBackgroundContext()
        for (index, views) in [5, 50, 500].enumerated() {
            let photo = try context.insert(Photo.self)
            photo.id = "p\(index)"
            photo.views = Int64(views)
        }
        try context.save()
        let request = try BatchUpdateRequest(Photo.self, where: #Predicate { $0.views > 10 }, values: ["title": "Popular"])
        #expect(try context.execute(request).count == 2)
        #expect(try context.execute(BatchDeleteRequest(Photo.self, where: #Predicate { $0.title == "Popular" })).count == 2)
        #expect(try context.fetch(Photo.self).map(\.id) == ["p0"])
    }

    @Test func subEntitiesAreIncludedAsInFetches() throws {
        let context = try ObjectContext(store: SQLiteStore(url: dir.file("media.trove"), model: SampleModels.media()))
        for (index, entity) in ["Image", "Video", "Thumbnail", "Image"].enumerated() {
            let media = try context.insert(entity)
            try media.setValue("m\(index)", forKey: "id")
        }
        try context.save()
        let updated = try context.execute(BatchUpdateRequest(entityName: "Media", values: ["caption": "all"]))
        #expect(updated.objectIDs.map(\.description).sorted() == ["Image/1", "Image/4", "Thumbnail/3", "Video/2"])
        #expect(try context.updateAll("Image", set: ["caption": "images"]) == 3, "an image, its thumbnail sub-entity, and the other image")
        var onlyImages = BatchDeleteRequest(entityName: "Image")
        onlyImages.includesSubentities = false
        #expect(try context.execute(onlyImages).objectIDs.map(\.description).sorted() == ["Image/1", "Image/4"])
        #expect(try context.fetch("Media", sortedBy: "id").map { try $0.value(forKey: "caption") } == ["all", "images"])
    }

    // MARK: Refusals

    @Test func denyRefusesTheWholeDeleteNamingTheFirstBlockingObject() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("graph.trove")
        let context = try ObjectContext(store: SQLiteStore(url: url, model: SampleModels.graph()))
        for name in ["a", "b", "c"] {
            let person = try context.insert("Person")
            try person.setValue(name, forKey: "name")
            guard name != "a" else { continue }
            let passport = try context.insert("Passport")
            try passport.setValue("n-\(name)", forKey: "number")
            try person.setRelatedObject(passport, forKey: "passport")
        }
        try context.save()
        let before = try StoreIntegrity.contents(ofStoreAt: url)
        let error = try #require(throws: ValidationError.self) { try context.deleteAll("Person") }
        #expect(error.failures.map(\.description) == [
            "Person/2.passport: cannot delete: passport still holds Passport/1 and its delete rule is deny; remove them first, or narrow the predicate",
        ])
        #expect(try StoreIntegrity.contents(ofStoreAt: url) == before, "nothing was deleted")
        // Deleting the passports first satisfies the rule.
        #expect(try context.deleteAll("Passport") == 2)
        #expect(try context.deleteAll("Person") == 3)
    }

    @Test func badValuesAreTypedErrorsNamingTheKeyAndWriteNothing() throws {
        let context = container.newBackgroundContext()
        let before = try contents()
        func update(_ values: [String: AttributeValue], where format: String = "TRUEPREDICATE") throws {
            try context.execute(BatchUpdateRequest(entityName: "Photo", predicate: ObjectPredicate(format: format), values: values))
        }
        let unknown = try #require(throws: ObjectError.self) { try update(["titel": "x"]) }
        #expect(unknown.code == .unknownKey && unknown.message.contains("'titel'"))
        let wrongType = try #require(throws: ObjectError.self) { try update(["views": "many"]) }
        #expect(wrongType.code == .typeMismatch && wrongType.message.contains("Photo.views"))
        let required = try #require(throws: ValidationError.self) { try update(["id": nil]) }
        #expect(required.failures.map(\.key) == ["id"] && required.failures.first?.rule == .required)
        let tooLow = try #require(throws: ValidationError.self) { try update(["views": -1]) }
        #expect(tooLow.failures.first?.rule == .minimum && tooLow.failures.first?.objectID.description == "Photo/1")
        let clash = try #require(throws: StoreError.self) { try update(["id": "same"]) }
        #expect(clash.code == .constraintViolation && clash.message.contains("unique key (id)"))
        let none = try #require(throws: ObjectError.self) { try update([:]) }
        #expect(none.code == .unknownKey)
        #expect(throws: ObjectPredicateError.self) { try update(["title": "x"], where: "nope > 1") }
        let child = try #require(throws: ObjectError.self) { try context.newChildContext().deleteAll("Photo") }
        #expect(child.code == .notOnStore)
        #expect(try contents() == before, "nothing was written")
        // A unique key set on one object only is fine.
        #expect(try context.updateAll("Photo", where: "id == 'p0'", set: ["id": "first"]) == 1)
    }

    // MARK: Falling back to objects

    @Test func aDeletionHookMakesTheDeleteGoThroughObjects() throws {
        let deleted = Locked<[String]>([])
        var hooks = ObjectHooks()
        hooks.prepareForDeletion(of: "Photo") { photo in
            let id = try photo.value(forKey: "id").text ?? ""
            deleted.withLock { $0.append(id) }
        }
        let container = try Container(store: self.container.store, hooks: hooks)
        let context = container.newBackgroundContext()
        let result = try context.execute(BatchDeleteRequest(entityName: "Photographer", where: "id == 'ann'"))
        #expect(result.usedObjects, "the cascade reaches photos, whose hook needs the objects")
        #expect(result.count == 1 && result.cascadedObjectIDs.count == 3)
        #expect(deleted.withLock { $0 }.sorted() == ["p0", "p1", "p2"])
        #expect(try ids(context, "Photo") == ["p3"])
    }

    @Test func aValidatorMakesTheUpdateGoThroughObjects() throws {
        var hooks = ObjectHooks()
        hooks.validate("Photo") { photo in
            if try photo.value(forKey: "title") == "Bad" { throw ObjectHooks.Rejection("no Bad titles", key: "title") }
        }
        let context = try Container(store: container.store, hooks: hooks).newBackgroundContext()
        let result = try context.execute(BatchUpdateRequest(entityName: "Photo", predicate: ObjectPredicate(format: "views > 5"), values: ["title": "Good"]))
        #expect(result.usedObjects && result.count == 3)
        let before = try contents()
        #expect(throws: ValidationError.self) { try context.updateAll("Photo", set: ["title": "Bad"]) }
        #expect(try contents() == before)
    }
}

/// A document sees a batch request made elsewhere as any other writer's save.
@MainActor
@Suite struct BatchDocumentTests {
    @Test func aDocumentSeesABatchMadeElsewhere() async throws {
        let dir = try TemporaryDirectory()
        let url = dir.url.appending(path: "Photos.trove")
        let model = try SampleModels.photos()
        let document = try Document(url: url, model: model, clock: ManualClock())
        document.changeCheckInterval = nil
        document.autosaveDelay = nil
        try await document.create()
        for id in ["p1", "p2"] {
            let photo = try document.context.insert("Photo")
            try photo.setValue(id, forKey: "id")
        }
        try await document.save()
        let p1 = try #require(try document.context.fetchFirst("Photo", where: "id == 'p1'"))
        let p2 = try #require(try document.context.fetchFirst("Photo", where: "id == 'p2'"))

        let elsewhere = try ObjectContext(store: SQLiteStore(url: url.appending(path: "Store.sqlite"), model: model))
        #expect(try elsewhere.updateAll("Photo", where: "id == 'p1'", set: ["title": "Renamed"]) == 1)
        #expect(try elsewhere.deleteAll("Photo", where: "id == 'p2'") == 1)
        #expect(try document.checkForOtherSaves())
        #expect(try p1.value(forKey: "title") == "Renamed")
        #expect(p2.isRemoved)
        try await document.close()
    }
}
