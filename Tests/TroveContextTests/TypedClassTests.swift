import Foundation
import MediaClasses
import PhotosClasses
import Testing
import Trove
import TroveTesting

/// The typed layer through generated classes (PhotosClasses, from Examples/Photos/model.json):
/// registration, typed insert and fetch, the classes of objects made every way, and failed changes.
@Suite struct TypedClassTests {
    let dir: TemporaryDirectory
    let model: Model

    init() throws {
        dir = try TemporaryDirectory()
        model = try SampleModelFile.model()
    }

    func container(_ name: String = "photos.trove") throws -> Container {
        try Container(model: model, url: dir.file(name), classes: ModelClasses.all)
    }

    // MARK: Registration

    @Test func theGeneratedListRegistersEveryClass() throws {
        #expect(ModelClasses.all.map { $0.entityName } == ["Photographer", "Photo", "Tag"])
        #expect(Photo.generatedSignature == model.entity(named: "Photo")?.classSignature)
        #expect(Photo.entityName == "Photo")
        _ = try container()
    }

    @Test func aClassOfAnEntityTheModelLacksIsRefused() throws {
        let error = try #require(throws: ObjectError.self) {
            try Container(model: SampleModels.graph(), url: dir.file("graph.trove"), classes: [Photo.self])
        }
        #expect(error.code == .unknownEntity)
        #expect(error.message.contains("class Photo is of entity 'Photo', which the model lacks"))
    }

    @Test func aClassGeneratedFromAnotherVersionOfItsEntityIsRefused() throws {
        // SampleModels.photos()'s Photo has fewer attributes than the model file's.
        let error = try #require(throws: ObjectError.self) {
            try Container(model: SampleModels.photos(), url: dir.file("old.trove"), classes: [Photo.self])
        }
        #expect(error.code == .typeMismatch)
        #expect(error.message.contains("class Photo was generated from another version of entity 'Photo'"))
        #expect(error.message.hasSuffix("run `trove generate` again"))
    }

    @Test func aSubEntitysClassMustSubclassItsParentsClass() throws {
        let error = try #require(throws: ObjectError.self) {
            try Container(model: SampleModels.media(), url: dir.file("media.trove"), classes: [Media.self, LoneImage.self])
        }
        #expect(error.code == .typeMismatch)
        #expect(error.message == "class LoneImage of entity 'Image' must subclass Media, the class of its parent entity 'Media'")
    }

    @Test func twoClassesForOneEntityAreRefused() throws {
        let error = try #require(throws: ObjectError.self) {
            try Container(model: model, url: dir.file("two.trove"), classes: ModelClasses.all + [SecondTag.self])
        }
        #expect(error.code == .unknownEntity)
        #expect(error.message == "two classes are registered for entity 'Tag': Tag and SecondTag")
    }

    @Test func aTypedInsertOfAClassNotRegisteredIsRefused() throws {
        let context = try Container(model: model, url: dir.file("plain.trove")).newBackgroundContext()
        let error = try #require(throws: ObjectError.self) { try context.insert(Photo.self) }
        #expect(error.code == .typeMismatch)
        #expect(try context.fetchCount(Photo.self) == 0, "nothing was inserted")
        #expect(!context.hasChanges)
    }

    // MARK: Typed insert and fetch

    @Test func typedInsertAndFetchesReturnInstancesOfTheClass() throws {
        let context = try container().newBackgroundContext()
        let ann = try context.insert(Photographer.self)
        ann.id = "ann"
        ann.name = "Ann"
        for (id, views) in [("p1", 50), ("p2", 150), ("p3", 300)] {
            let photo = try context.insert(Photo.self)
            photo.id = id
            photo.views = Int64(views)
            photo.whoTook = ann
        }
        try context.save()

        let popular = try context.fetch(Photo.self, where: "views > %d AND whoTook.name == %@", 100, "Ann", sortedBy: "-views")
        #expect(popular.map(\.id) == ["p3", "p2"])
        #expect(try context.fetchFirst(Photo.self, where: "views < %d", 100)?.id == "p1")
        #expect(try context.fetchFirst(Photo.self, where: "views > %d", 1000) == nil)
        #expect(try context.fetchCount(Photo.self, where: "whoTook.id == %@", "ann") == 3)
        #expect(try context.fetchCount(Photographer.self) == 1)

        let fresh = try container().newBackgroundContext()
        let read = try #require(try fresh.fetchFirst(Photographer.self, where: "id == %@", "ann"))
        #expect(read.name == "Ann")
        #expect(read.photos.map(\.id).sorted() == ["p1", "p2", "p3"])
        #expect(read.photos.allSatisfy { type(of: $0) == Photo.self })
    }

    @Test func keyPathsMapToModelKeys() {
        #expect(Photo.modelKeyPath(for: \Photo.title) == "title")
        #expect(Photo.modelKeyPath(for: \Photo.whoTook) == "whoTook")
        #expect(Photo.modelKeyPath(for: \Photo.whoTook?.name) == "whoTook.name")
        #expect(Photo.modelKeyPath(for: \Photo.tags) == "tags")
        #expect(Photo.modelKeyPath(for: \Photo.isFault) == nil)
        #expect(Photographer.modelKeyPath(for: \Photo.title) == nil, "another class's key path")
        #expect(Image.modelKeyPath(for: \Image.width) == "width")
        #expect(Image.modelKeyPath(for: \Image.caption) == "caption")
        #expect(Image.modelKeyPath(for: \Media.caption) == "caption", "the parent's key paths too")
        #expect(Image.modelKeyPath(for: \Image.shelf?.name) == "shelf.name")
        #expect(Media.modelKeyPath(for: \Media.`default`) == "default")
    }

    // MARK: Objects made every way

    @Test func faultsRelationshipsAndTheImporterMakeInstancesOfTheClasses() throws {
        let context = try container().newBackgroundContext()
        let data = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Examples/Photos/photos.json").standardizedFileURL)
        let report = try Importer(context: context).importJSON(data, into: "Photo", root: "photos.photo")
        #expect(report.recordsImported > 1000)
        #expect(try context.fetch(FetchRequest(entityName: "Photo")).allSatisfy { type(of: $0) == Photo.self })

        let fresh = try container().newBackgroundContext()
        let photos = try fresh.fetch(Photo.self, where: "whoTook != nil AND tags.@count > 0", sortedBy: "id")
        let photo = try #require(photos.first)
        let owner = try #require(photo.whoTook)
        #expect(type(of: owner) == Photographer.self, "a relationship's object")
        #expect(!owner.id.isEmpty)
        #expect(photo.tags.allSatisfy { type(of: $0) == Tag.self })
        #expect(owner.photos.contains(photo))

        let other = try container().newBackgroundContext()
        let byID = try other.object(with: photo.objectID)
        #expect(type(of: byID) == Photo.self, "a fault made from an object ID")
        #expect((byID as? Photo)?.title == photo.title)
    }

    // MARK: Failed changes

    @Test func aFailedTypedChangeMakesTheNextSaveThrowAndWriteNothing() throws {
        let container = try container()
        let context = container.newBackgroundContext(), other = container.newBackgroundContext()
        let stranger = try other.insert(Photographer.self)
        stranger.id = "stranger"
        let photo = try context.insert(Photo.self)
        photo.id = "p1"
        photo.whoTook = stranger  // an object of another context: not linked
        #expect(photo.whoTook == nil)
        let error = try #require(throws: ObjectError.self) { try context.save() }
        #expect(error.code == .notInContext)
        #expect(try container.newBackgroundContext().fetchCount(Photo.self) == 0, "nothing of the save was written")
    }

    @Test func aChangeToADeletedObjectMakesTheNextSaveThrow() throws {
        let container = try container()
        let context = container.newBackgroundContext()
        let photo = try context.insert(Photo.self)
        photo.id = "p1"
        try context.save()
        try context.delete(photo)
        photo.title = "After the delete"
        let tag = try context.insert(Tag.self)
        tag.name = "sea"
        let error = try #require(throws: ObjectError.self) { try context.save() }
        #expect(error.code == .objectDeleted)
        let fresh = container.newBackgroundContext()
        #expect(try fresh.fetchCount(Photo.self) == 1 && fresh.fetchCount(Tag.self) == 0, "the delete and the insert were not written")
    }
}

/// A class of entity 'Image' that does not subclass Media's class.
final class LoneImage: ManagedObject, EntityClass {
    static var entityName: String { "Image" }
    static var generatedSignature: String { Image.generatedSignature }
    static func modelKeyPath(for keyPath: AnyKeyPath) -> String? { nil }
}

/// A second class of entity 'Tag'.
final class SecondTag: ManagedObject, EntityClass {
    static var entityName: String { "Tag" }
    static var generatedSignature: String { Tag.generatedSignature }
    static func modelKeyPath(for keyPath: AnyKeyPath) -> String? { nil }
}
