import Foundation
import Testing
import Trove

/// The examples of the article "Relationships" (`Relationships.md`).
@Suite struct RelationshipExamples {
    @Test func generatedProperties() throws {
        let fixture = try PhotosFixture()
        let context = try fixture.container().newBackgroundContext()
        let photo = try context.insert(Photo.self), other = try context.insert(Photo.self)
        photo.id = "p1"
        other.id = "p2"

        let ann = try context.insert(Photographer.self)
        ann.id = "ann"
        photo.whoTook = ann                                // ann.photos now holds photo, at once
        ann.addToPhotos(other)                             // other.whoTook is now ann
        let sea = try context.insert(Tag.self)
        sea.name = "sea"
        photo.addToTags(sea)                               // sea.photos holds photo
        try context.delete(ann)                            // cascade: her photos go too

        // Both photos were reached through ann.photos, each linked from one side.
        #expect(photo.isDeleted && other.isDeleted)
        #expect(!sea.isDeleted)
        try context.save()
        #expect(try context.fetchCount(Photo.self) == 0)
        #expect(try context.fetchCount(Tag.self) == 1)
    }

    @Test func theInversesFollow() throws {
        let fixture = try PhotosFixture()
        let context = try fixture.container().newBackgroundContext()
        let photo = try context.insert(Photo.self), other = try context.insert(Photo.self)
        let ann = try context.insert(Photographer.self), sea = try context.insert(Tag.self)
        photo.whoTook = ann
        ann.addToPhotos(other)
        photo.addToTags(sea)
        #expect(ann.photos == [photo, other])
        #expect(other.whoTook == ann)
        #expect(sea.photos == [photo])
    }

    @Test func theDynamicAPI() throws {
        let context = try Container(store: SQLiteStore(inMemoryWith: PhotosFixture().model)).newBackgroundContext()
        let photo = try context.insert("Photo"), other = try context.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try other.setValue("p2", forKey: "id")
        let music = try Model {
            Entity("Album") {
                Attribute("title", .string)
                Relationship("tracks", to: "Track", toMany: true, ordered: true, inverse: "album")
            }
            Entity("Track") {
                Attribute("title", .string)
                Relationship("album", to: "Album", inverse: "tracks")
            }
        }
        let albums = try Container(store: SQLiteStore(inMemoryWith: music)).newBackgroundContext()
        let album = try albums.insert("Album"), track = try albums.insert("Track"), first = try albums.insert("Track")
        try album.addRelatedObject(first, forKey: "tracks")

        let ann = try context.insert("Photographer")
        try ann.setValue("ann", forKey: "id")
        try photo.setRelatedObject(ann, forKey: "whoTook")     // ann's "photos" now holds photo, at once
        let annsPhotos = try ann.relatedObjects(forKey: "photos")   // [photo]
        try ann.addRelatedObject(other, forKey: "photos")        // other.whoTook is now ann
        try album.insertRelatedObject(track, at: 0, forKey: "tracks")   // ordered to-many
        try context.delete(ann)                                  // cascade: her photos go too

        #expect(annsPhotos == [photo])
        #expect(try album.relatedObjects(forKey: "tracks") == [track, first])
        #expect(try track.relatedObject(forKey: "album") === album)
        #expect(photo.isDeleted && other.isDeleted, "other was linked through ann's photos")
    }
}
