import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct RelationshipTests {
    let dir: TemporaryDirectory
    let container: Container
    let context: ObjectContext

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(model: SampleModels.graph(), url: dir.file("graph.trove"))
        context = container.newBackgroundContext()
    }

    func make(_ entity: String, _ key: String = "name", _ value: String) throws -> ManagedObject {
        let object = try context.insert(entity)
        try object.setValue(value, forKey: key)
        return object
    }

    func names(_ objects: [ManagedObject], _ key: String = "name") throws -> [String] {
        try objects.map { try $0.value(forKey: key, as: String.self) ?? "nil" }
    }

    @Test func settingAToOneUpdatesBothSidesAtOnce() throws {
        let ann = try make("Person", "name", "Ann"), bob = try make("Person", "name", "Bob")
        let album = try make("Album", "title", "Blue")
        try album.setRelatedObject(ann, forKey: "owner")
        #expect(try ann.relatedObjects(forKey: "albums") == [album])
        try album.setRelatedObject(bob, forKey: "owner")
        #expect(try ann.relatedObjects(forKey: "albums").isEmpty)
        #expect(try bob.relatedObjects(forKey: "albums") == [album])
        try bob.removeRelatedObject(album, forKey: "albums")
        #expect(try album.relatedObject(forKey: "owner") == nil)
    }

    @Test func relationshipsSurviveASaveAndAFreshContext() throws {
        let ann = try make("Person", "name", "Ann"), bob = try make("Person", "name", "Bob")
        let red = try make("Tag", "name", "red"), blue = try make("Tag", "name", "blue")
        let album = try make("Album", "title", "Blue")
        try ann.addRelatedObject(album, forKey: "albums")
        try ann.setRelatedObjects([red, blue], forKey: "tags")
        try bob.addRelatedObject(blue, forKey: "tags")
        try ann.addRelatedObject(bob, forKey: "friends")
        try ann.setRelatedObject(bob, forKey: "spouse")
        try context.save()

        let fresh = container.newBackgroundContext()
        let people = try fresh.fetch(FetchRequest(entityName: "Person"))
        let (ann2, bob2) = (people[0], people[1])
        #expect(try names(ann2.relatedObjects(forKey: "albums"), "title") == ["Blue"])
        #expect(try Set(names(ann2.relatedObjects(forKey: "tags"))) == ["red", "blue"])
        #expect(try names(bob2.relatedObjects(forKey: "tags")) == ["blue"])
        #expect(try names(blue.relatedObjects(forKey: "people")).sorted() == ["Ann", "Bob"])
        #expect(try bob2.relatedObjects(forKey: "friends") == [ann2], "a self-inverse relationship holds both ways")
        #expect(try bob2.relatedObject(forKey: "spouse") === ann2)
        #expect(try ann2.relatedObject(forKey: "spouse") === bob2)
        let album2 = try fresh.object(with: album.objectID)
        #expect(try album2.relatedObject(forKey: "owner") === ann2)
    }

    @Test func manyToManyAddRemoveReplace() throws {
        let ann = try make("Person", "name", "Ann")
        let tags = try ["a", "b", "c", "d"].map { try make("Tag", "name", $0) }
        try ann.setRelatedObjects(Array(tags[0...2]), forKey: "tags")
        try context.save()
        try ann.removeRelatedObject(tags[0], forKey: "tags")
        try ann.addRelatedObject(tags[3], forKey: "tags")
        #expect(try tags[0].relatedObjects(forKey: "people").isEmpty)
        #expect(try tags[3].relatedObjects(forKey: "people") == [ann])
        try context.save()
        try ann.setRelatedObjects([tags[0], tags[1]], forKey: "tags")
        try context.save()
        let fresh = container.newBackgroundContext()
        #expect(try names(fresh.object(with: ann.objectID).relatedObjects(forKey: "tags")) == ["a", "b"])
        #expect(try fresh.object(with: tags[3].objectID).relatedObjects(forKey: "people").isEmpty)
    }

    @Test func orderedRelationshipsKeepTheirOrder() throws {
        let ann = try make("Person", "name", "Ann")
        let albums = try ["one", "two", "three"].map { try make("Album", "title", $0) }
        for album in albums { try ann.addRelatedObject(album, forKey: "playlist") }
        try context.save()
        try ann.insertRelatedObject(albums[2], at: 0, forKey: "playlist")
        #expect(try names(ann.relatedObjects(forKey: "playlist"), "title") == ["three", "one", "two"])
        #expect(try albums[2].relatedObject(forKey: "listedBy") === ann)
        try context.save()
        let fresh = container.newBackgroundContext()
        let playlist = try fresh.object(with: ann.objectID).relatedObjects(forKey: "playlist")
        #expect(try names(playlist, "title") == ["three", "one", "two"])
        #expect(try playlist[0].relatedObject(forKey: "listedBy")?.objectID == ann.objectID)
        #expect(throws: ObjectError.self) { try ann.insertRelatedObject(albums[0], at: 9, forKey: "playlist") }
        #expect(throws: ObjectError.self) { try ann.insertRelatedObject(albums[0], at: 0, forKey: "albums") }
    }

    @Test func oneToOneMovesThePartner() throws {
        let ann = try make("Person", "name", "Ann"), bob = try make("Person", "name", "Bob"), cy = try make("Person", "name", "Cy")
        try ann.setRelatedObject(bob, forKey: "spouse")
        try cy.setRelatedObject(bob, forKey: "spouse")
        #expect(try ann.relatedObject(forKey: "spouse") == nil)
        #expect(try bob.relatedObject(forKey: "spouse") === cy)
    }

    @Test func rollbackRestoresBothSides() throws {
        let ann = try make("Person", "name", "Ann"), bob = try make("Person", "name", "Bob")
        let album = try make("Album", "title", "Blue")
        try album.setRelatedObject(ann, forKey: "owner")
        try context.save()
        try album.setRelatedObject(bob, forKey: "owner")
        let extra = try make("Album", "title", "Extra")
        try bob.addRelatedObject(extra, forKey: "albums")
        context.rollback()
        #expect(try album.relatedObject(forKey: "owner") === ann)
        #expect(try ann.relatedObjects(forKey: "albums") == [album])
        #expect(try bob.relatedObjects(forKey: "albums").isEmpty)
        #expect(!context.hasChanges)
    }

    @Test func cascadeFollowsChainsAndCyclesNullifyCleansTheOtherSide() throws {
        let ann = try make("Person", "name", "Ann")
        let tag = try make("Tag", "name", "t")
        let album = try make("Album", "title", "A")
        let tracks = try (1...3).map { try make("Track", "title", "t\($0)") }
        try ann.addRelatedObject(album, forKey: "albums")
        try ann.addRelatedObject(tag, forKey: "tags")
        try album.setRelatedObjects(tracks, forKey: "tracks")
        try context.save()

        // Person → albums (cascade) → tracks (cascade) → album (cascade, a cycle).
        try context.delete(ann)
        #expect(album.isDeleted && tracks.allSatisfy(\.isDeleted))
        #expect(try tag.relatedObjects(forKey: "people").isEmpty, "nullify took Ann out of the tag")
        try context.save()
        let fresh = container.newBackgroundContext()
        #expect(try fresh.fetch(FetchRequest(entityName: "Track")).isEmpty)
        #expect(try fresh.fetch(FetchRequest(entityName: "Album")).isEmpty)
        #expect(try fresh.object(with: tag.objectID).relatedObjects(forKey: "people").isEmpty)
    }

    @Test func nullifyOnTheToOneSide() throws {
        let ann = try make("Person", "name", "Ann")
        let album = try make("Album", "title", "A")
        try album.setRelatedObject(ann, forKey: "owner")
        try context.save()
        try context.delete(album)
        #expect(try ann.relatedObjects(forKey: "albums").isEmpty)
        try context.save()
        let fresh = container.newBackgroundContext()
        #expect(try fresh.object(with: ann.objectID).relatedObjects(forKey: "albums").isEmpty)
    }

    @Test func denyBlocksTheSaveWithAClearError() throws {
        let ann = try make("Person", "name", "Ann")
        let passport = try make("Passport", "number", "X1")
        try ann.setRelatedObject(passport, forKey: "passport")
        try context.save()
        try context.delete(ann)
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(error.failures.map(\.rule) == [.deny])
        #expect(error.failures[0].key == "passport")
        #expect(error.failures[0].message.contains("delete rule is deny"))
        #expect(try container.store.count(of: "Person") == 1)
        try context.delete(passport)
        try context.save()
        #expect(try container.store.count(of: "Person") == 0)
    }

    @Test func misuseIsAnErrorNotACrash() throws {
        let ann = try make("Person", "name", "Ann")
        let tag = try make("Tag", "name", "t")
        #expect(throws: ObjectError.self) { try ann.setRelatedObject(tag, forKey: "spouse") }
        #expect(throws: ObjectError.self) { try ann.relatedObject(forKey: "albums") }
        #expect(throws: ObjectError.self) { try ann.relatedObjects(forKey: "spouse") }
        #expect(throws: ObjectError.self) { try ann.relatedObjects(forKey: "nope") }
        let other = try container.newBackgroundContext().insert("Tag")
        #expect(throws: ObjectError.self) { try ann.addRelatedObject(other, forKey: "tags") }
    }

    @Test func requiredAndCountedRelationshipsAreValidated() throws {
        let model = try Model {
            Entity("Team") {
                Attribute("name", .string)
                Relationship("members", to: "Member", toMany: true, inverse: "team", optional: false, minCount: 2, maxCount: 3)
            }
            Entity("Member") {
                Attribute("name", .string)
                Relationship("team", to: "Team", inverse: "members", optional: false)
            }
        }
        let context = try Container(store: SQLiteStore(inMemoryWith: model)).newBackgroundContext()
        let team = try context.insert("Team")
        let loner = try context.insert("Member")
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(Set(error.failures.map { "\($0.key ?? "-").\($0.rule.rawValue)" }) == ["members.required", "team.required"])
        try team.addRelatedObject(loner, forKey: "members")
        let few = try #require(throws: ValidationError.self) { try context.save() }
        #expect(few.failures.map(\.rule) == [.minimum])
        for _ in 0..<3 { try team.addRelatedObject(try context.insert("Member"), forKey: "members") }
        let many = try #require(throws: ValidationError.self) { try context.save() }
        #expect(many.failures.map(\.message) == ["members holds 4 objects, more than the maximum 3"])
    }
}
