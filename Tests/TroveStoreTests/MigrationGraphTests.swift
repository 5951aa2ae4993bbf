import Foundation
import GRDB
import Testing
@testable import TroveStore
import TroveModel
import TrovePredicate
import TroveTesting

/// Migrations of entities, relationships and hierarchies; safety: failures, other stores, backups.
@Suite struct MigrationGraphTests {
    // MARK: Entities

    @Test func addingAndRemovingEntities() throws {
        let (fixture, _) = try Library.fixture()
        let new = try Library.model { entities in
            entities.removeAll { $0.name == "Book" }
            entities[0].relationships = []
            entities.append(Entity("Shelf") { Attribute("label", .string) })
        }
        let plan = try fixture.plan(to: new)
        #expect(plan.blockers.isEmpty)
        #expect(plan.steps.map(\.summary).contains("add entity Shelf"))
        #expect(plan.steps.map(\.summary).contains("remove entity Book: 4 objects deleted"))
        #expect(plan.steps.map(\.summary).contains("remove relationship Author.books: its links are dropped"))
        try fixture.migrate(to: new)
        #expect(try fixture.objects("Author", model: new) == Library.expectedAuthors())
        try fixture.insert("Shelf", ["label": "top"], model: new)
        #expect(try fixture.objects("Shelf", model: new) == [["label": "top"]])
        #expect(try StoreIntegrity.problems(ofStoreAt: fixture.url).isEmpty)
    }

    @Test func renamingAnEntityKeepsItsObjectsAndTheLinksToThem() throws {
        let (fixture, _) = try Library.fixture()
        let new = try Library.model { entities in
            entities[0] = Entity("Writer", uniqueBy: [["id"]], renamedFrom: "Author",
                                 attributes: entities[0].attributes, relationships: entities[0].relationships)
            entities[1].relationships[0] = Relationship("author", to: "Writer", inverse: "books")
        }
        let plan = try fixture.plan(to: new)
        #expect(plan.blockers.isEmpty)
        #expect(plan.steps.map(\.summary).contains("rename entity Author → Writer"))
        try fixture.migrate(to: new)
        #expect(try fixture.objects("Writer", model: new) == Library.expectedAuthors())
        #expect(try fixture.related("books", of: "Writer", pk: 1, model: new) == [1, 2])
        #expect(try fixture.related("author", of: "Book", pk: 3, model: new) == [2])
        // The new table's sequence goes on from the old one: a new writer gets _pk 4.
        let id = try fixture.insert("Writer", ["id": "a4"], model: new)
        #expect(id.primaryKey == 4)
    }

    @Test func aSubEntityRemovedLosesItsRowsAndASubEntityAddedGetsAnEntityColumn() throws {
        let (fixture, _) = try Library.fixture()
        let new = try Library.model { entities in
            entities.removeAll { $0.name == "Audio" }
            entities.append(Entity("Tape", parent: "Item") { Attribute("length", .integer64) })
            entities.append(Entity("Book2", parent: "Book", renamedFrom: nil) { Attribute("isbn", .string) })
        }
        let plan = try fixture.plan(to: new)
        #expect(plan.blockers.isEmpty)
        try fixture.migrate(to: new)
        #expect(try fixture.objects("Item", model: new) == [["code": "i1"]])
        #expect(try fixture.objects("Video", model: new) == [["code": "v1", "minutes": 90], ["code": "v2", "minutes": .null]])
        #expect(try fixture.objects("Book", model: new).map { $0["title"] } == ["One", "Two", "Three", "Orphan"])
        #expect(try fixture.related("books", of: "Author", pk: 1, model: new) == [1, 2])
        try fixture.insert("Book2", ["title": "New", "isbn": "x"], model: new)
        #expect(try fixture.objects("Book2", model: new).map { $0["isbn"] } == ["x"])
    }

    @Test func movingAnAttributeWithinAHierarchy() throws {
        let (fixture, _) = try Library.fixture()
        // Up: minutes moves from Video to Item; Item and Audio rows have none.
        let up = try Library.model { entities in
            entities[2].attributes.append(Attribute("minutes", .integer32))
            entities[3].attributes = []
        }
        let plan = try fixture.plan(to: up)
        #expect(plan.steps.map(\.summary) == ["move attribute minutes from Video to Item"])
        #expect(plan.rowsRewritten == 0)
        try fixture.migrate(to: up)
        #expect(try fixture.objects("Video", model: up).map { $0["minutes"] } == [90, .null])
        #expect(try fixture.objects("Item", model: up).map { $0["minutes"] } == [.null])
        // Down again, into Audio: the video values are cleared.
        let down = try Library.model { entities in
            entities[3].attributes = []
            entities[4].attributes.append(Attribute("minutes", .integer32))
        }
        let back = try fixture.plan(to: down)
        #expect(back.steps.map(\.summary).contains("clear minutes of Item, Video, which no longer have it"))
        try fixture.migrate(to: down)
        #expect(try fixture.objects("Audio", model: down).map { $0["minutes"] } == [.null])
        #expect(try fixture.objects("Audio", model: down).map { $0["bitrate"] } == [320])
    }

    @Test func changingAnEntityParentIsBlocked() throws {
        let (fixture, _) = try Library.fixture()
        let new = try Library.model { $0[4].parent = nil }
        #expect(try fixture.plan(to: new).blockers.map(\.path) == ["entities[4].parent"])
    }

    // MARK: Relationships

    @Test func toOneBecomesToManyKeepingItsLinks() throws {
        let (fixture, _) = try Library.fixture()
        let new = try Library.model { $0[1].relationships[0] = Relationship("author", to: "Author", toMany: true, inverse: "books") }
        let plan = try fixture.plan(to: new)
        #expect(plan.blockers.isEmpty)
        #expect(plan.steps.map(\.summary).contains("Book.author: to-one → to-many (links kept)"))
        #expect(plan.steps.contains { $0.summary == "move the links into a join table" && $0.rowsRewritten == 3 })
        try fixture.migrate(to: new)
        #expect(try fixture.related("author", of: "Book", pk: 1, model: new) == [1])
        #expect(try fixture.related("author", of: "Book", pk: 3, model: new) == [2])
        #expect(try fixture.related("author", of: "Book", pk: 4, model: new) == [])
        #expect(try fixture.related("books", of: "Author", pk: 1, model: new) == [1, 2])
        #expect(try fixture.objects("Book", model: new).map { $0["title"] } == ["One", "Two", "Three", "Orphan"])
    }

    @Test func addingRemovingAndRenamingRelationships() throws {
        let (fixture, _) = try Library.fixture()
        let new = try Library.model { entities in
            entities[0].relationships[0] = Relationship("works", to: "Book", toMany: true, inverse: "writer", deleteRule: .cascade, renamedFrom: "books")
            entities[1].relationships[0] = Relationship("writer", to: "Author", inverse: "works", renamedFrom: "author")
            entities[1].relationships.append(Relationship("sequel", to: "Book"))
        }
        let plan = try fixture.plan(to: new)
        #expect(plan.blockers.isEmpty)
        #expect(plan.steps.map(\.summary).contains("rename relationship Book.author → writer"))
        #expect(plan.steps.map(\.summary).contains("add relationship Book.sequel → Book"))
        try fixture.migrate(to: new)
        #expect(try fixture.related("works", of: "Author", pk: 1, model: new) == [1, 2])
        #expect(try fixture.related("writer", of: "Book", pk: 3, model: new) == [2])
        let removed = try Library.model { entities in
            entities[0].relationships = []
            entities[1].relationships = [Relationship("sequel", to: "Book")]
        }
        try fixture.migrate(to: removed)
        #expect(try fixture.objects("Book", model: removed).map { $0["title"] } == ["One", "Two", "Three", "Orphan"])
    }

    @Test func toManyToToOneIsBlocked() throws {
        let (fixture, _) = try Library.fixture()
        let new = try Library.model { $0[0].relationships[0] = Relationship("books", to: "Book", inverse: "author") }
        #expect(try fixture.plan(to: new).blockers.map(\.path).contains("entities[0].relationships[0].toMany"))
    }

    // MARK: Safety

    @Test func aFailureHalfWayLeavesTheStoreAsItWas() throws {
        let (fixture, model) = try Library.fixture()
        let new = try Library.model { entities in
            entities[0].attributes.removeAll { $0.name == "avatar" }
            entities[1].relationships[0] = Relationship("author", to: "Author", toMany: true, inverse: "books")
        }
        let before = try fixture.snapshot()
        for limit in [0, 1, 3, 6] {
            let error = try #require(throws: StoreError.self) {
                try MigrationExecutor.$failingAfterStatements.withValue(limit) { try fixture.migrate(to: new) }
            }
            #expect(error.message.contains("stopped by a test"))
            #expect(try fixture.snapshot() == before, "after \(limit) statements")
        }
        #expect(try fixture.objects("Author", model: model) == Library.expectedAuthors())
        try fixture.migrate(to: new)
        #expect(try fixture.objects("Author", model: new) == Library.expectedAuthors(leaving: ["avatar"]))
    }

    @Test func openingMigratesOnlyWhenAsked() throws {
        let (fixture, _) = try Library.fixture()
        let new = try Library.model { $0[0].attributes.append(Attribute("bio", .string)) }
        let refused = try #require(throws: StoreError.self) { try SQLiteStore(url: fixture.url, model: new) }
        #expect(refused.code == .modelMismatch)
        #expect(refused.message.contains("trove migrate"))
        let store = try SQLiteStore(url: fixture.url, model: new, options: .init(migration: .inferred(keepingBackup: false)))
        #expect(try store.count(of: "Author") == 3)
        #expect(try store.modelHistory().map(\.version) == [try Library.model().versionHash, new.versionHash])
        #expect(!FileManager.default.fileExists(atPath: fixture.url.path + ".backup-\(try Library.model().versionHash)"))
    }

    @Test func aStoreOpenWithTheOldModelMeetsModelMismatchNamingTheNewVersion() throws {
        let (fixture, model) = try Library.fixture()
        let old = try SQLiteStore(url: fixture.url, model: model)
        let new = try Library.model { $0[0].attributes.removeAll { $0.name == "avatar" } }
        try fixture.migrate(to: new)
        let id = ObjectID.temporary(entity: try #require(model.entity(named: "Book")))
        let saving = try #require(throws: StoreError.self) {
            try old.save(ChangeSet(inserts: [.init(objectID: id, values: [.string("x"), .null])]))
        }
        #expect(saving.code == .modelMismatch)
        #expect(saving.message.contains("was migrated to model version \(new.versionHash)"))
        let reading = try #require(throws: StoreError.self) { try old.fetch(StoreQuery(FetchRequest(entityName: "Author"), model: model)) }
        #expect(reading.code == .modelMismatch)
    }

    /// A damaged model history is an error naming it, not a history that silently starts over
    /// (a migration would otherwise write the short one over it); the store itself still opens.
    @Test func aDamagedHistoryIsReportedNotReplaced() throws {
        let (fixture, _) = try Library.fixture()
        let v2 = try Library.model { $0[0].attributes.append(Attribute("bio", .string)) }
        try fixture.migrate(to: v2)
        try StoreIntegrity.execute("UPDATE _trove_metadata SET value = '[{\"version\": ' WHERE key = 'trove.modelHistory'", onStoreAt: fixture.url)
        let store = try SQLiteStore(url: fixture.url, model: v2)
        let error = try #require(throws: StoreError.self) { try store.modelHistory() }
        #expect(error.code == .corruptValue)
        #expect(error.message.contains("the model history in _trove_metadata (trove.modelHistory) is damaged"))
        #expect(try store.count(of: "Author") == 3)
        let v3 = try Library.model { $0[0].attributes.append(Attribute("bio", .string)); $0[2].attributes.append(Attribute("shelf", .string)) }
        let refused = try #require(throws: StoreError.self) { try fixture.migrate(to: v3) }
        #expect(refused.code == .corruptValue)
    }

    @Test func theBackupOpensWithTheOldModelAndTheHistoryGrows() throws {
        let (fixture, model) = try Library.fixture()
        let v2 = try Library.model { $0[0].attributes.append(Attribute("bio", .string)) }
        let outcome = try fixture.migrate(to: v2, keepingBackup: true)
        let backup = try #require(outcome.backupURL)
        #expect(backup.path == fixture.url.path + ".backup-\(model.versionHash)")
        let copy = MigrationFixture(directory: fixture.directory, url: backup)
        #expect(try copy.objects("Author", model: model) == Library.expectedAuthors())
        let v3 = try Library.model { $0[0].attributes.append(Attribute("bio", .string, renamedFrom: "x")); $0[2].attributes.append(Attribute("shelf", .string)) }
        let second = try fixture.migrate(to: v3, keepingBackup: true)
        #expect(second.backupURL?.path == fixture.url.path + ".backup-\(v2.versionHash)")
        let history = try SQLiteStore(url: fixture.url, model: v3).modelHistory()
        #expect(history.map(\.version) == [model.versionHash, v2.versionHash, v3.versionHash])
        #expect(history.map(\.steps) == [nil, 1, 1])
        // Migrating to the model the store has does nothing.
        #expect(try fixture.migrate(to: v3).migration.steps.isEmpty)
    }

    @Test func renamedFromIsWrittenAndReadByModelFiles() throws {
        let model = try Model {
            Entity("Writer", renamedFrom: "Author") {
                Attribute("fullName", .string, renamedFrom: "name")
                Relationship("works", to: "Writer", toMany: true, renamedFrom: "books")
            }
        }
        let text = String(decoding: model.fileData(), as: UTF8.self)
        #expect(text.contains("\"renamedFrom\" : \"Author\"") || text.contains("\"renamedFrom\": \"Author\""))
        #expect(try Model(fileData: model.fileData()) == model)
        let bad = try #require(throws: ModelError.self) {
            try Model { Entity("A") { Attribute("b", .string, renamedFrom: "9x") } }
        }
        #expect(bad.issues.map(\.path) == ["entities[0].attributes[0].renamedFrom"])
    }
}
