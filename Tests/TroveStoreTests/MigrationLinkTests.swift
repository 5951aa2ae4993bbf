import Foundation
import Testing
@testable import TroveStore
import TroveModel
import TroveTesting

/// Migrations that move links between kinds of storage: a one-to-one whose key changes side, an
/// ordered to-many, a many-to-many join table renamed with its entity, a renamed sub-entity.
@Suite struct MigrationLinkTests {
    static func model(person: String = "Person", renamed: Bool = false, ordered: Bool = false, film: String = "Video") throws -> Model {
        try Model {
            Entity(person, renamedFrom: renamed ? "Person" : nil) {
                Attribute("name", .string)
                Relationship("passport", to: "Passport", inverse: "holder")
                Relationship("clubs", to: "Club", toMany: true, inverse: "members")
            }
            Entity("Passport") {
                Attribute("number", .string)
                Relationship("holder", to: person, inverse: "passport")
            }
            Entity("Club") {
                Attribute("title", .string)
                Relationship("members", to: person, toMany: true, inverse: "clubs")
                Relationship("board", to: person, toMany: ordered, ordered: ordered)
            }
            Entity("Media") { Attribute("code", .string) }
            Entity(film, parent: "Media", renamedFrom: film == "Video" ? nil : "Video") { Attribute("minutes", .integer64) }
        }
    }

    /// Two people with passports, two clubs (many-to-many), a board member each, two videos.
    static func fixture() throws -> (MigrationFixture, Model) {
        let model = try model()
        let fixture = try MigrationFixture(model)
        let ann = try fixture.insert("Person", ["name": "Ann"], model: model)
        let bo = try fixture.insert("Person", ["name": "Bo"], model: model)
        try fixture.insert("Passport", ["number": "X1"], links: ["holder": ann], model: model)
        try fixture.insert("Passport", ["number": "X2"], links: ["holder": bo], model: model)
        let store = try SQLiteStore(url: fixture.url, model: model)
        let club = try #require(model.entity(named: "Club"))
        let chess = ObjectID.temporary(entity: club), golf = ObjectID.temporary(entity: club)
        let members = try #require(club.relationshipIndex(named: "members")), board = try #require(club.relationshipIndex(named: "board"))
        _ = try store.save(ChangeSet(inserts: [
            .init(objectID: chess, values: ["chess"], relationships: [.toMany(members, added: [ann, bo], removed: [], order: nil), .toOne(board, .object(bo))]),
            .init(objectID: golf, values: ["golf"], relationships: [.toMany(members, added: [ann], removed: [], order: nil), .toOne(board, .object(ann))]),
        ]))
        try fixture.insert("Video", ["code": "v1", "minutes": 90], model: model)
        try fixture.insert("Media", ["code": "m1"], model: model)
        return (fixture, model)
    }

    @Test func renamingAnEntityMovesItsOneToOneKeyAndItsJoinTable() throws {
        let (fixture, _) = try Self.fixture()
        // "Passport.holder" sorted before "Person.passport"; "Passport.holder" before "Zed.passport" too,
        // but the join table of Person.clubs is named after its owner and must follow the rename.
        let new = try Self.model(person: "Zed", renamed: true)
        let plan = try fixture.plan(to: new)
        #expect(plan.blockers.isEmpty)
        try fixture.migrate(to: new)
        #expect(try fixture.objects("Zed", model: new).map { $0["name"] } == ["Ann", "Bo"])
        #expect(try fixture.related("passport", of: "Zed", pk: 1, model: new) == [1])
        #expect(try fixture.related("holder", of: "Passport", pk: 2, model: new) == [2])
        #expect(try fixture.related("clubs", of: "Zed", pk: 1, model: new) == [1, 2])
        #expect(try fixture.related("members", of: "Club", pk: 1, model: new) == [1, 2])
        #expect(try fixture.related("board", of: "Club", pk: 1, model: new) == [2])
    }

    @Test func aOneToOneKeyChangingSidesKeepsEveryLink() throws {
        let (fixture, _) = try Self.fixture()
        // "Aaron.passport" sorts before "Passport.holder": the key moves to the person's table.
        let new = try Self.model(person: "Aaron", renamed: true)
        try fixture.migrate(to: new)
        #expect(try fixture.related("passport", of: "Aaron", pk: 1, model: new) == [1])
        #expect(try fixture.related("passport", of: "Aaron", pk: 2, model: new) == [2])
        #expect(try fixture.related("holder", of: "Passport", pk: 1, model: new) == [1])
        #expect(try fixture.objects("Passport", model: new).map { $0["number"] } == ["X1", "X2"])
    }

    @Test func aToOneBecomesAnOrderedToMany() throws {
        let (fixture, _) = try Self.fixture()
        let new = try Self.model(ordered: true)
        #expect(try fixture.plan(to: new).steps.map(\.summary).contains("Club.board: to-one → ordered to-many (links kept)"))
        try fixture.migrate(to: new)
        #expect(try fixture.related("board", of: "Club", pk: 1, model: new) == [2])
        #expect(try fixture.related("board", of: "Club", pk: 2, model: new) == [1])
    }

    @Test func renamingASubEntityRewritesTheEntityColumn() throws {
        let (fixture, _) = try Self.fixture()
        let new = try Self.model(film: "Film")
        #expect(try fixture.plan(to: new).steps.map(\.summary).contains("rename entity Video → Film"))
        try fixture.migrate(to: new)
        #expect(try fixture.objects("Film", model: new) == [["code": "v1", "minutes": 90]])
        #expect(try fixture.objects("Media", model: new) == [["code": "m1"]])
    }
}
