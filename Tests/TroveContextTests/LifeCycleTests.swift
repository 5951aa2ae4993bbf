import Foundation
import Testing
import Trove
import TroveTesting

// Classes in the generated shape for `SampleModels.photos()`, with life-cycle overrides that
// record each call.

class _LPhotographer: ManagedObject, EntityClass {
    class var entityName: String { "Photographer" }
    class var generatedSignature: String { "id:string name:string? | photos:{Photo}" }
    class func modelKeyPath(for keyPath: AnyKeyPath) -> String? { nil }
    var id: String { get { attribute(at: 0) ?? "" } set { setAttribute(newValue, at: 0) } }
    var name: String? { get { attribute(at: 1) } set { setAttribute(newValue, at: 1) } }
    var photos: Set<LPhoto> { get { Set(relatedObjects(at: 0) as [LPhoto]) } set { setRelatedObjects(newValue, at: 0) } }
}

final class LPhotographer: _LPhotographer {
    var calls: [String] = []
    var photoCountBeforeDeletion: Int?

    override func prepareForDeletion() {
        calls.append("prepareForDeletion")
        photoCountBeforeDeletion = photos.count
    }
}

class _LPhoto: ManagedObject, EntityClass {
    class var entityName: String { "Photo" }
    class var generatedSignature: String { "id:string title:string? uploadDate:date? views:integer64 | whoTook:Photographer?" }
    class func modelKeyPath(for keyPath: AnyKeyPath) -> String? { nil }
    var id: String { get { attribute(at: 0) ?? "" } set { setAttribute(newValue, at: 0) } }
    var title: String? { get { attribute(at: 1) } set { setAttribute(newValue, at: 1) } }
    var views: Int64 { get { attribute(at: 3) ?? 0 } set { setAttribute(newValue, at: 3) } }
    var whoTook: LPhotographer? { get { relatedObject(at: 0) } set { setRelatedObject(newValue, at: 0) } }
}

final class LPhoto: _LPhoto {
    var calls: [String] = []
    /// Transient state set on fetch: the title in capitals.
    var shout = ""

    override func awakeFromInsert() {
        calls.append("awakeFromInsert")
        title = "untitled"
    }
    override func awakeFromFetch() {
        calls.append("awakeFromFetch")
        shout = title?.uppercased() ?? ""
    }
    override func willSave() {
        calls.append("willSave")
        if !isDeleted, views < 0 { views = 0 }
    }
    override func didSave() { calls.append("didSave") }
    override func validateForInsert() throws {
        calls.append("validateForInsert")
        if title == "bad" { throw ObjectHooks.Rejection("a title cannot be 'bad'", key: "title") }
    }
    override func validateForUpdate() throws {
        calls.append("validateForUpdate")
        if title == "bad" { throw ObjectHooks.Rejection("a title cannot be 'bad'", key: "title") }
    }
    override func validateForDelete() throws {
        calls.append("validateForDelete")
        if title == "keep" { throw ObjectHooks.Rejection("photos titled 'keep' stay") }
    }
}

@Suite struct LifeCycleTests {
    let dir: TemporaryDirectory
    let container: Container

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(model: SampleModels.photos(), url: dir.file("s.trove"), classes: [LPhotographer.self, LPhoto.self])
    }

    @Test func insertWakesOnceAndItsValuesAreSaved() throws {
        let context = container.newBackgroundContext()
        let photo = try context.insert(LPhoto.self)
        photo.id = "p1"
        #expect(photo.calls == ["awakeFromInsert"])
        #expect(photo.title == "untitled")
        try context.save()
        #expect(photo.calls == ["awakeFromInsert", "willSave", "validateForInsert", "didSave"])

        let fetched = try #require(try container.newBackgroundContext().fetchFirst(LPhoto.self))
        #expect(fetched.title == "untitled" && fetched.shout == "UNTITLED")
        #expect(fetched.calls == ["awakeFromFetch"], "a fetch does not insert")
    }

    @Test func aChildContextsSaveDoesNotWakeTheInsertAgainInTheParent() throws {
        let parent = container.newBackgroundContext()
        let child = parent.newChildContext()
        let photo = try child.insert(LPhoto.self)
        photo.id = "p1"
        photo.title = "from the child"
        try child.save()
        let inParent = try #require(parent.insertedObjects.first as? LPhoto)
        #expect(inParent.calls.isEmpty, "the insert was woken in the child")
        #expect(inParent.title == "from the child")
    }

    @Test func faultsRefreshesAndMergesWakeFromFetch() throws {
        let writer = container.newBackgroundContext()
        let photo = try writer.insert(LPhoto.self)
        photo.id = "p1"
        photo.title = "one"
        try writer.save()

        let reader = container.newBackgroundContext()
        var request = FetchRequest(entityName: "Photo")
        request.returnsObjectsAsFaults = true
        let fault = try #require(try reader.fetch(request, as: LPhoto.self).first)
        #expect(fault.isFault && fault.calls.isEmpty)
        #expect(fault.title == "one")
        #expect(fault.calls == ["awakeFromFetch"] && fault.shout == "ONE")

        photo.title = "two"
        try writer.save()
        try reader.refresh(fault, mergeChanges: true)
        #expect(fault.calls == ["awakeFromFetch", "awakeFromFetch"] && fault.shout == "TWO")
    }

    @Test func willSaveChangesAreValidatedAndSaved() throws {
        let context = container.newBackgroundContext()
        let photo = try context.insert(LPhoto.self)
        photo.id = "p1"
        try context.save()
        photo.views = -5
        photo.title = "renamed"
        photo.calls = []
        try context.save()
        #expect(photo.calls == ["willSave", "validateForUpdate", "didSave"])
        let stored = try #require(try container.newBackgroundContext().fetchFirst(LPhoto.self))
        #expect(stored.views == 0 && stored.title == "renamed")
    }

    @Test func aValidateOverrideRefusesTheSaveAndNothingIsWritten() throws {
        let context = container.newBackgroundContext()
        let photo = try context.insert(LPhoto.self)
        photo.id = "p1"
        photo.title = "bad"
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(error.failures.map(\.rule) == [.custom] && error.failures.first?.key == "title")
        #expect(error.description.contains("a title cannot be 'bad'"))
        #expect(try container.newBackgroundContext().fetchCount(LPhoto.self) == 0)
        #expect(photo.isInserted, "the context's changes are kept")

        photo.title = "keep"
        try context.save()
        try context.delete(photo)
        #expect(throws: ValidationError.self) { try context.save() }
        #expect(try container.newBackgroundContext().fetchCount(LPhoto.self) == 1)
    }

    @Test func prepareForDeletionSeesRelationshipsBeforeTheDeleteRules() throws {
        let context = container.newBackgroundContext()
        let ann = try context.insert(LPhotographer.self)
        ann.id = "ann"
        let photo = try context.insert(LPhoto.self)
        photo.id = "p1"
        photo.whoTook = ann
        try context.save()
        try context.delete(ann)
        #expect(ann.calls == ["prepareForDeletion"] && ann.photoCountBeforeDeletion == 1)
        #expect(photo.isDeleted, "cascade")
    }
}

/// An object whose row is gone has one state: removed.
@Suite struct RemovedObjectTests {
    let dir: TemporaryDirectory
    let container: Container

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(model: SampleModels.photos(), url: dir.file("s.trove"), classes: [LPhotographer.self, LPhoto.self])
    }

    private func savedPhoto(in context: ObjectContext) throws -> LPhoto {
        let photo = try context.insert(LPhoto.self)
        photo.id = "p1"
        photo.title = "Sunset"
        try context.save()
        return photo
    }

    @Test func anObjectDeletedByAMergedSaveIsRemoved() async throws {
        let mine = container.newBackgroundContext()
        let photo = try savedPhoto(in: mine)
        photo.title = "unsaved edit"

        let theirs = container.newBackgroundContext()
        try theirs.delete(try theirs.object(with: photo.objectID))
        var saves = theirs.didSave.makeAsyncIterator()
        try theirs.save()
        let saved = try #require(await saves.next())
        try mine.mergeChanges(from: saved.changes)

        #expect(photo.isRemoved && photo.context == nil && !photo.isDeleted && !photo.hasChanges)
        #expect(photo.title == "unsaved edit", "it keeps the values it last had")
        #expect(!mine.hasChanges)
        let error = try #require(throws: ObjectError.self) { try photo.setValue("again", forKey: "title") }
        #expect(error.code == .notInContext && error.message.contains("removed"))
        photo.title = "typed"
        #expect(photo.faultError?.code == .notInContext)
        #expect(photo.title == "unsaved edit", "a removed object refuses every change")
    }

    @Test func aFaultWhoseRowIsGoneReadsNilAndIsRemoved() throws {
        let writer = container.newBackgroundContext()
        let photo = try savedPhoto(in: writer)
        let reader = container.newBackgroundContext()
        var request = FetchRequest(entityName: "Photo")
        request.returnsObjectsAsFaults = true
        let fault = try #require(try reader.fetch(request, as: LPhoto.self).first)

        try writer.delete(photo)
        try writer.save()
        #expect(photo.isRemoved && photo.context == nil, "its own delete, saved")

        #expect(fault.title == nil, "no crash, no trap: a fault with no row reads nil")
        #expect(fault.faultError?.code == .objectNotFound)
        #expect(fault.isRemoved && fault.context == nil)
        let error = try #require(throws: ObjectError.self) { _ = try fault.value(forKey: "title") }
        #expect(error.code == .notInContext)
    }

    @Test func anUnsavedInsertWhoseContextIsGoneRefusesTypedChanges() throws {
        var photo: LPhoto?
        do {
            let gone = container.newBackgroundContext()
            photo = try gone.insert(LPhoto.self)
            photo?.title = "before"
        }
        let orphan = try #require(photo)
        #expect(orphan.context == nil && orphan.faultError == nil)
        orphan.title = "after"
        #expect(orphan.faultError?.code == .notInContext)
        #expect(orphan.title == "before", "the change was not made")
    }

    @Test func aResetObjectIsDetachedNotRemoved() throws {
        let context = container.newBackgroundContext()
        let photo = try savedPhoto(in: context)
        context.reset()
        #expect(photo.context == nil && !photo.isRemoved)
    }

    @Test func aTypedChangeThatCannotBeMadeFailsTheNextSaveWhichWritesNothing() throws {
        let context = container.newBackgroundContext()
        let photo = try savedPhoto(in: context)
        let other = container.newBackgroundContext()
        let stranger = try other.insert(LPhotographer.self)
        stranger.id = "zed"
        photo.title = "changed"
        photo.whoTook = stranger
        let error = try #require(throws: ObjectError.self) { try context.save() }
        #expect(error.code == .notInContext && error.message.contains("nothing was saved"))
        #expect(try container.newBackgroundContext().fetchFirst(LPhoto.self)?.title == "Sunset")
        try context.save()
        #expect(try container.newBackgroundContext().fetchFirst(LPhoto.self)?.title == "changed", "the next save goes on")
    }
}
