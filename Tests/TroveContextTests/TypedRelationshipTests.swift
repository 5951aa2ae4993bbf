import Foundation
import GraphClasses
import Testing
import Trove
import TroveTesting

/// Relationship properties and mutators of generated classes keep inverses as the dynamic API
/// does (GraphClasses, from SampleModels.graph()).
@Suite struct TypedRelationshipTests {
    let dir: TemporaryDirectory
    let container: Container
    let context: ObjectContext

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(model: SampleModels.graph(), url: dir.file("graph.trove"), classes: GraphModelClasses.all)
        context = container.newBackgroundContext()
    }

    func person(_ name: String) throws -> Person {
        let person = try context.insert(Person.self)
        person.name = name
        return person
    }

    func album(_ title: String) throws -> Album {
        let album = try context.insert(Album.self)
        album.title = title
        return album
    }

    @Test func toOneSettersKeepTheInverse() throws {
        let ann = try person("Ann"), bob = try person("Bob")
        let album = try album("Summer")
        album.owner = ann
        #expect(ann.albums == [album])
        album.owner = bob
        #expect(ann.albums.isEmpty && bob.albums == [album])
        album.owner = nil
        #expect(bob.albums.isEmpty)

        ann.spouse = bob  // one-to-one, reflexive
        #expect(bob.spouse === ann)
        let passport = try context.insert(Passport.self)
        passport.holder = ann
        #expect(ann.passport === passport)
        try context.save()

        let fresh = container.newBackgroundContext()
        let read = try #require(try fresh.fetchFirst(Person.self, where: "name == %@", "Bob"))
        #expect(read.spouse?.name == "Ann")
        #expect(read.spouse?.passport?.holder === read.spouse)
    }

    @Test func toManySettersAndMutatorsKeepTheInverses() throws {
        let ann = try person("Ann"), bob = try person("Bob")
        let a = try album("A"), b = try album("B"), c = try album("C")
        ann.albums = [a, b]
        #expect(a.owner === ann && b.owner === ann)
        ann.addToAlbums(c)
        #expect(c.owner === ann && ann.albums == [a, b, c])
        ann.removeFromAlbums(a)
        #expect(a.owner == nil && ann.albums == [b, c])
        ann.albums = [a]
        #expect(a.owner === ann && b.owner == nil && c.owner == nil, "objects left out are unlinked")
        bob.addToAlbums(a)
        #expect(ann.albums.isEmpty && a.owner === bob, "moved to the other owner")

        ann.friends = [bob]  // many-to-many, reflexive
        #expect(bob.friends == [ann])
        let sea = try context.insert(Tag.self)
        sea.name = "sea"
        sea.addToPeople(ann)
        #expect(ann.tags == [sea])
        try context.save()

        let fresh = container.newBackgroundContext()
        let readBob = try #require(try fresh.fetchFirst(Person.self, where: "name == %@", "Bob"))
        #expect(readBob.albums.map(\.title) == ["A"])
        #expect(readBob.friends.map(\.name) == ["Ann"])
        #expect(try fresh.fetchFirst(Tag.self)?.people.map(\.name) == ["Ann"])
        #expect(try fresh.fetchCount(Album.self, where: "owner == nil") == 2)
    }

    @Test func orderedToManyKeepsItsOrderAndTheInverses() throws {
        let ann = try person("Ann")
        let a = try album("A"), b = try album("B"), c = try album("C"), d = try album("D")
        ann.playlist = [b, a]
        #expect(ann.playlist == [b, a] && a.listedBy === ann)
        ann.addToPlaylist(c)
        ann.insertIntoPlaylist(d, at: 0)
        #expect(ann.playlist == [d, b, a, c])
        ann.insertIntoPlaylist(c, at: 1)
        #expect(ann.playlist == [d, c, b, a], "inserting an object it holds moves it")
        ann.removeFromPlaylist(at: 2)
        #expect(ann.playlist == [d, c, a] && b.listedBy == nil)
        ann.removeFromPlaylist(d)
        #expect(ann.playlist == [c, a] && d.listedBy == nil)
        try context.save()
        let fresh = container.newBackgroundContext()
        let read = try #require(try fresh.fetchFirst(Person.self))
        #expect(read.playlist.map(\.title) == ["C", "A"])
    }

    @Test func aPositionOutOfRangeChangesNothingAndTheSaveThrows() throws {
        let ann = try person("Ann")
        let a = try album("A"), b = try album("B")
        ann.playlist = [a]
        try context.save()

        ann.insertIntoPlaylist(b, at: 5)
        #expect(ann.playlist == [a] && b.listedBy == nil)
        ann.removeFromPlaylist(at: -1)
        #expect(ann.playlist == [a])
        ann.name = "Anna"
        let error = try #require(throws: ObjectError.self) { try context.save() }
        #expect(error.code == .typeMismatch)
        #expect(error.message.hasSuffix("position 5 is outside Person.playlist, which holds 1 objects"))
        #expect(try container.newBackgroundContext().fetchCount(Person.self, where: "name == %@", "Anna") == 0, "nothing written")
    }

    @Test func anObjectOfTheWrongEntityIsNotLinkedAndTheSaveThrows() throws {
        // Typed properties only take the right class; a dynamic link of the wrong entity is the
        // way to the failure a typed setter defers.
        let ann = try person("Ann")
        let track = try context.insert(Track.self)
        ann.setRelatedObjects([track], at: 0)
        #expect(ann.albums.isEmpty)
        #expect(throws: ObjectError.self) { try context.save() }
    }
}
