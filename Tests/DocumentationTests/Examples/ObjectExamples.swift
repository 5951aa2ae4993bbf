import Foundation
import Observation
import Synchronization
import Testing
import Trove
import TroveTesting

// The examples of the article "Objects" (`Objects.md`).

extension Photo {
    var isPopular: Bool { views > 1000 }
}

@Suite struct ObjectExamples {
    @Test func generatedClasses() throws {
        let fixture = try PhotosFixture()
        let modelURL = fixture.modelURL, storeURL = fixture.storeURL

        let container = try Container(model: Model(contentsOf: modelURL), url: storeURL,
                                      classes: [Photographer.self, Photo.self, Tag.self])
        let context = container.newBackgroundContext()

        let photo = try context.insert(Photo.self)         // defaults applied: views = 0
        photo.id = "p1"
        photo.title = "Sunset"
        try context.save()                                 // one transaction; photo.objectID is now permanent

        let photos = try context.fetch(Photo.self, sortedBy: "title")
        let views = photos[0].views                        // 0

        #expect(!photo.objectID.isTemporary)
        #expect(photos == [photo])
        #expect(views == 0)
        #expect(!photo.isPopular)
        #expect(Photo.entityName == "Photo")
        #expect(try context.fetch(FetchRequest(entityName: Photo.entityName), as: Photo.self).map(\.title) == ["Sunset"])
    }

    @Test func aClassThatIsNotRegisteredIsRefused() throws {
        let fixture = try PhotosFixture()
        let context = try Container(model: fixture.model, url: fixture.storeURL).newBackgroundContext()
        #expect(throws: ObjectError.self) { try context.insert(Photo.self) }
        #expect(try context.fetchCount("Photo") == 0)
    }

    @Test func theDynamicAPI() throws {
        let fixture = try PhotosFixture()
        let context = try Container(model: fixture.model, url: fixture.storeURL).newBackgroundContext()

        let photo = try context.insert("Photo")           // defaults applied: views = 0
        try photo.setValue("p1", forKey: "id")
        try photo.setValue("Sunset", forKey: "title")
        try context.save()                                 // one transaction; photo.objectID is now permanent

        let photos = try context.fetch(FetchRequest(entityName: "Photo"))
        let views = try photos[0].value(forKey: "views", as: Int.self)   // 0

        #expect(!photo.objectID.isTemporary)
        #expect(views == 0)
        #expect(throws: ObjectError.self) { try photo.setValue("many", forKey: "views") }
        #expect(throws: ObjectError.self) { try photo.setValue("x", forKey: "veiws") }
    }

    @Test func hooks() throws {
        let fixture = try PhotosFixture()
        let model = fixture.model, url = fixture.storeURL

        var hooks = ObjectHooks()
        hooks.prepareForDeletion(of: "Photo") { photo in /* runs before delete rules tear links down */ }
        hooks.validate("Photo") { photo in
            if try photo.value(forKey: "title") == "" { throw ObjectHooks.Rejection("a title cannot be empty", key: "title") }
        }
        let container = try Container(model: model, url: url, hooks: hooks)

        let context = container.newBackgroundContext()
        let photo = try context.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try photo.setValue("", forKey: "title")
        #expect(throws: ValidationError.self) { try context.save() }
        try photo.setValue("Sunset", forKey: "title")
        try context.save()
        #expect(try context.fetchCount("Photo") == 1)
    }

    @Test func observation() throws {
        let fixture = try PhotosFixture()
        let context = try fixture.container().newBackgroundContext()

        context.isObservationEnabled = true                // on for the viewContext; opt in elsewhere
        let photo = try context.insert(Photo.self)
        withObservationTracking {
            _ = photo.title
        } onChange: {
            print("the title changed")           // once, at the next change
        }

        let changes = ChangeCount()
        withObservationTracking { _ = photo.title } onChange: { changes.record() }
        photo.views = 7
        #expect(changes.value == 0, "views is not what was read")
        photo.title = "Sunrise"
        photo.title = "Sunset"
        #expect(changes.value == 1, "told once, at the next change")
    }

    @Test func awakeFromInsert() throws {
        let fixture = try PhotosFixture()
        let context = try fixture.container().newBackgroundContext()
        let before = Date()
        let photo = try context.insert(Photo.self)
        #expect(try #require(photo.uploadDate) >= before)
        photo.id = "p1"
        try context.save()
        context.reset()
        let fetched = try #require(try context.fetchFirst(Photo.self))
        #expect(fetched.uploadDate == photo.uploadDate, "set once, at insert, and saved with it")
    }

    @Test func anObjectWhoseRowIsGoneIsRemoved() async throws {
        let fixture = try PhotosFixture()
        let container = try fixture.container()
        let context = container.newBackgroundContext(), other = container.newBackgroundContext()
        let photo = try context.insert(Photo.self)
        photo.id = "p1"
        photo.title = "Sunset"
        try context.save()
        try other.delete(try other.object(with: photo.objectID))
        var saves = other.didSave.makeAsyncIterator()
        try other.save()
        let saved = try #require(await saves.next())

        try context.mergeChanges(from: saved.changes)
        #expect(photo.isRemoved && photo.context == nil && !photo.isDeleted)
        #expect(photo.title == "Sunset", "it keeps the values it last had")
        photo.title = "Sunrise"
        #expect(photo.title == "Sunset" && photo.faultError != nil, "and refuses every change")
    }
}

/// Counts the changes Observation reports.
private final class ChangeCount: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func record() { count.add(1, ordering: .relaxed) }
}

@Suite struct TransientAndDerivedExamples {
    @Test func transientAndDerivedAttributes() throws {
        let model = try Model {
            Entity("Photographer", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("photoCount", .integer64, derivation: "photos.@count")
                Relationship("photos", to: "Photo", toMany: true, inverse: "whoTook")
            }
            Entity("Photo", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("isSelected", .boolean, transient: true)
                Relationship("whoTook", to: "Photographer", inverse: "photos")
            }
        }
        let directory = try TemporaryDirectory()
        let context = try Container(model: model, url: directory.file("derived.trove")).newBackgroundContext()
        for (name, photos) in [("ann", 2), ("bob", 1)] {
            let photographer = try context.insert("Photographer")
            try photographer.setValue(name, forKey: "id")
            for number in 0..<photos {
                let photo = try context.insert("Photo")
                try photo.setValue("\(name)\(number)", forKey: "id")
                try photo.setValue(true, forKey: "isSelected")
                try photo.setRelatedObject(photographer, forKey: "whoTook")
            }
        }
        try context.save()
        context.reset()

        let busy = try context.fetch("Photographer", where: "photoCount >= %d", 2, sortedBy: "-photoCount")
        let count = try busy[0].value(forKey: "photoCount", as: Int.self)      // 2, computed when read

        #expect(try busy.map { try $0.value(forKey: "id", as: String.self) } == ["ann"])
        #expect(count == 2)
        #expect(throws: ObjectError.self, "a derived attribute is read-only") { try busy[0].setValue(5, forKey: "photoCount") }
        let photo = try #require(try context.fetchFirst("Photo", whereKey: "id", equals: "ann0"))
        #expect(try photo.value(forKey: "isSelected", as: Bool.self) != true, "a transient value is never stored")
    }
}
