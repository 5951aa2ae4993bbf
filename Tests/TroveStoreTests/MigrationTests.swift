import Foundation
import Testing
@testable import TroveStore
import TroveModel
import TroveTesting

/// A library model every test edits one way, and a store of it with objects of every type.
enum Library {
    static func entities() -> [Entity] {
        [
            Entity("Author", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("name", .string)
                Attribute("born", .integer16)
                Attribute("rank", .integer32)
                Attribute("score", .double)
                Attribute("joined", .date)
                Attribute("avatar", .binary)
                Attribute("key", .uuid)
                Attribute("site", .uri)
                Attribute("grade", .character)
                Attribute("extra", .json)
                Attribute("price", .decimal)
                Attribute("active", .boolean)
                Relationship("books", to: "Book", toMany: true, inverse: "author", deleteRule: .cascade)
            },
            Entity("Book") {
                Attribute("title", .string)
                Attribute("pages", .integer64)
                Relationship("author", to: "Author", inverse: "books")
            },
            Entity("Item") { Attribute("code", .string) },
            Entity("Video", parent: "Item") { Attribute("minutes", .integer32) },
            Entity("Audio", parent: "Item") { Attribute("bitrate", .integer32) },
        ]
    }

    static func model(_ edit: (inout [Entity]) -> Void = { _ in }) throws -> Model {
        var entities = entities()
        edit(&entities)
        return try Model(entities: entities)
    }

    static let authors: [[String: AttributeValue]] = [
        ["id": "a1", "name": "Ann", "born": 1970, "rank": 3, "score": 4.5, "joined": .date(Date(timeIntervalSince1970: 1_000_000)),
         "avatar": .binary(Data([1, 2, 3])), "key": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
         "site": .uri(URL(string: "https://ann.example")!), "grade": .character("A"), "extra": .json(.array([1, "x"])),
         "price": .decimal(Decimal(string: "12.34")!), "active": true],
        ["id": "a2", "name": nil, "born": -5, "rank": 70000, "score": nil, "active": false],
        ["id": "a3", "name": "Cy", "born": nil, "rank": nil, "price": .decimal(Decimal(string: "0.1")!)],
    ]

    /// A store of the base model: three authors, four books (three linked), an item, two videos, an audio.
    static func fixture() throws -> (MigrationFixture, Model) {
        let model = try model()
        let fixture = try MigrationFixture(model)
        var ids: [ObjectID] = []
        for author in authors { ids.append(try fixture.insert("Author", author, model: model)) }
        try fixture.insert("Book", ["title": "One", "pages": 100], links: ["author": ids[0]], model: model)
        try fixture.insert("Book", ["title": "Two", "pages": 200], links: ["author": ids[0]], model: model)
        try fixture.insert("Book", ["title": "Three", "pages": nil], links: ["author": ids[1]], model: model)
        try fixture.insert("Book", ["title": "Orphan"], model: model)
        try fixture.insert("Item", ["code": "i1"], model: model)
        try fixture.insert("Video", ["code": "v1", "minutes": 90], model: model)
        try fixture.insert("Video", ["code": "v2", "minutes": nil], model: model)
        try fixture.insert("Audio", ["code": "s1", "bitrate": 320], model: model)
        return (fixture, model)
    }

    /// The authors as `model` reads them, without the attributes in `leaving`.
    static func expectedAuthors(leaving: Set<String> = [], adding extra: [String: AttributeValue] = [:]) -> [[String: AttributeValue]] {
        let names = ["id", "name", "born", "rank", "score", "joined", "avatar", "key", "site", "grade", "extra", "price", "active"]
        return authors.map { author in
            var row = Dictionary(uniqueKeysWithValues: names.filter { !leaving.contains($0) }.map { ($0, author[$0] ?? .null) })
            row.merge(extra) { _, new in new }
            return row
        }
    }
}

@Suite struct MigrationTests {
    // MARK: Attributes

    @Test func addingAttributesAltersTheTableAndFillsDefaults() throws {
        let (fixture, _) = try Library.fixture()
        let new = try Library.model { $0[0].attributes += [Attribute("bio", .string), Attribute("level", .integer64, optional: false, default: 5)] }
        let plan = try fixture.plan(to: new)
        #expect(!plan.isBlocked)
        #expect(plan.steps.map(\.path) == ["entities[0].attributes[13]", "entities[0].attributes[14]"])
        #expect(plan.steps[0].summary == "add attribute Author.bio (string)" && plan.steps[0].rowsRewritten == 0)
        #expect(plan.steps[1].rowsRewritten == 3)
        #expect(plan.rowsRewritten == 3, "the optional column is added in place; only the default is written")
        try fixture.migrate(to: new)
        #expect(try fixture.objects("Author", model: new) == Library.expectedAuthors(adding: ["bio": .null, "level": 5]))
        #expect(try fixture.related("books", of: "Author", pk: 1, model: new) == [1, 2])
    }

    @Test func removingAnAttributeRebuildsTheTableKeepingEveryOtherValue() throws {
        let (fixture, _) = try Library.fixture()
        let new = try Library.model { $0[0].attributes.removeAll { $0.name == "avatar" } }
        let plan = try fixture.plan(to: new)
        #expect(plan.steps.map(\.summary).contains("remove attribute Author.avatar: its values are dropped"))
        #expect(plan.steps.contains { $0.path == "table Author" && $0.rowsRewritten == 3 })
        try fixture.migrate(to: new)
        #expect(try fixture.objects("Author", model: new) == Library.expectedAuthors(leaving: ["avatar"]))
        #expect(try fixture.related("books", of: "Author", pk: 1, model: new) == [1, 2])
        #expect(try fixture.related("author", of: "Book", pk: 3, model: new) == [2])
        #expect(try StoreIntegrity.problems(ofStoreAt: fixture.url).isEmpty)
    }

    @Test func renamingAnAttributeKeepsItsValuesWithoutRewritingRows() throws {
        let (fixture, _) = try Library.fixture()
        let new = try Library.model { $0[0].attributes[1] = Attribute("fullName", .string, renamedFrom: "name") }
        let plan = try fixture.plan(to: new)
        #expect(plan.steps.map(\.description) == ["entities[0].attributes[1]: rename attribute Author.name → fullName [inferred, no rows rewritten]"])
        try fixture.migrate(to: new)
        let expected = Library.expectedAuthors(leaving: ["name"]).enumerated().map { i, row in
            row.merging(["fullName": Library.authors[i]["name"] ?? .null]) { a, _ in a }
        }
        #expect(try fixture.objects("Author", model: new) == expected)
    }

    @Test func aRenamingIdentifierKeptInLaterVersionsNeverTakesANewItemOfTheOldName() throws {
        let (fixture, _) = try Library.fixture()
        let renamed = Attribute("fullName", .string, renamedFrom: "name")
        let v2 = try Library.model { $0[0].attributes[1] = renamed }
        let v3 = try Library.model { $0[0].attributes[1] = renamed; $0[0].attributes.append(Attribute("name", .string)) }
        let v4 = try Library.model {
            $0[0].attributes[1] = renamed
            $0[0].attributes += [Attribute("name", .string), Attribute("bio", .string)]
        }
        for model in [v2, v3, v4] { try fixture.migrate(to: model) }
        #expect(try fixture.objects("Author", model: v4).map { $0["fullName"] } == ["Ann", .null, "Cy"])
        #expect(try fixture.objects("Author", model: v4).map { $0["name"] } == [.null, .null, .null])
    }

    @Test func optionalToRequiredIsBlockedByNilValuesAndTheStoreStaysAsItWas() throws {
        let (fixture, _) = try Library.fixture()
        let new = try Library.model { $0[0].attributes[3] = Attribute("rank", .integer32, optional: false) }
        let before = try fixture.snapshot()
        let plan = try fixture.plan(to: new)
        #expect(plan.blockers == [MigrationBlocker(path: "entities[0].attributes[3]", reason: "optional → required, 1 row is nil; give a default")])
        let error = try #require(throws: StoreError.self) { try fixture.migrate(to: new) }
        #expect(error.code == .migrationBlocked)
        #expect(error.message.contains("entities[0].attributes[3]: optional → required, 1 row is nil; give a default"))
        #expect(try fixture.snapshot() == before)
        // Opening with the model is refused too: the data stands in its way.
        let opening = try #require(throws: StoreError.self) { try SQLiteStore(url: fixture.url, model: new) }
        #expect(opening.code == .migrationBlocked)
        #expect(try fixture.snapshot() == before)
    }

    @Test func optionalToRequiredWithADefaultFillsTheNilValues() throws {
        let (fixture, _) = try Library.fixture()
        let new = try Library.model { $0[0].attributes[1] = Attribute("name", .string, optional: false, default: "anonymous") }
        let plan = try fixture.plan(to: new)
        #expect(plan.steps.map(\.summary) == ["Author.name: optional → required, 1 nil value set to the default \"anonymous\"",
                                               "Author.name: default nil → \"anonymous\" (for new objects)"])
        // The version hash is the same, but the nil values need filling: opening refuses without the policy.
        let refused = try #require(throws: StoreError.self) { try SQLiteStore(url: fixture.url, model: new) }
        #expect(refused.code == .modelMismatch && refused.message.contains("needs a migration"))
        try fixture.migrate(to: new)
        #expect(try fixture.objects("Author", model: new).map { $0["name"] } == ["Ann", "anonymous", "Cy"])
    }

    @Test func optionalToRequiredWithoutNilValuesAndBack() throws {
        let (fixture, _) = try Library.fixture()
        let required = try Library.model { $0[0].attributes[12] = Attribute("active", .boolean, optional: false, default: false) }
        #expect(try fixture.plan(to: required).blockers.map(\.reason) == [])
        try fixture.migrate(to: required)
        #expect(try fixture.objects("Author", model: required).map { $0["active"] } == [true, false, false])
        let optional = try Library.model()
        #expect(try fixture.plan(to: optional).steps.map(\.summary) == [
            "Author.active: required → optional", "Author.active: default false → nil (for new objects)"])
        try fixture.migrate(to: optional)
        #expect(try fixture.objects("Author", model: optional).map { $0["active"] } == [true, false, false])
    }

    @Test func integersWidenNarrowWhenEveryValueFitsAndBecomeDoublesOrDecimals() throws {
        let (fixture, _) = try Library.fixture()
        let narrow = try Library.model { $0[0].attributes[3] = Attribute("rank", .integer16) }
        #expect(try fixture.plan(to: narrow).blockers.map(\.description) == [
            "entities[0].attributes[3]: integer32 → integer16, 1 stored value does not fit -32768...32767; change those values first, or keep integer32"])
        let changed = try Library.model { entities in
            entities[0].attributes[2] = Attribute("born", .integer64)
            entities[0].attributes[3] = Attribute("rank", .double)
            entities[1].attributes[1] = Attribute("pages", .decimal)
            entities[3].attributes[0] = Attribute("minutes", .integer16)
        }
        let plan = try fixture.plan(to: changed)
        #expect(plan.blockers.isEmpty)
        #expect(plan.steps.map(\.summary).contains("Author.born: integer16 → integer64 (wider; no value changes)"))
        #expect(plan.steps.map(\.summary).contains("Video.minutes: integer32 → integer16 (narrower; every stored value fits)"))
        try fixture.migrate(to: changed)
        #expect(try fixture.objects("Author", model: changed).map { $0["rank"] } == [.double(3), .double(70000), .null])
        #expect(try fixture.objects("Author", model: changed).map { $0["born"] } == [1970, -5, .null])
        #expect(try fixture.objects("Book", model: changed).map { $0["pages"] } == [.decimal(100), .decimal(200), .null, .null])
        #expect(try fixture.objects("Video", model: changed).map { $0["minutes"] } == [90, .null])
    }

    @Test func aTypeChangeThatIsNotInferredIsBlocked() throws {
        let (fixture, _) = try Library.fixture()
        let new = try Library.model { $0[0].attributes[1] = Attribute("name", .integer64) }
        #expect(try fixture.plan(to: new).blockers.map(\.description) == [
            "entities[0].attributes[1]: type string → integer64 is not inferred (only an integer may become a wider integer,"
                + " a double, a float or a decimal); keep the type, or add an attribute of the new type beside it"])
    }

    @Test func rulesHintsAndDefaultsChangeNoData() throws {
        let (fixture, _) = try Library.fixture()
        let before = try fixture.snapshot()
        let new = try Library.model { entities in
            entities[0].attributes[1] = Attribute("name", .string, max: 2, remoteKey: ["full_name"])
            entities[0].relationships[0].deleteRule = .deny
            entities[1].remoteName = "volume"
        }
        let plan = try fixture.plan(to: new)
        #expect(plan.rowsRewritten == 0 && plan.blockers.isEmpty)
        #expect(plan.steps.count == 4)
        #expect(plan.steps.map(\.summary).contains("Author.books: delete rule cascade → deny"))
        // The version hash ignores rules and hints: the store opens as it is and keeps the new model.
        #expect(plan.fromVersion == plan.toVersion)
        _ = try SQLiteStore(url: fixture.url, model: new)
        #expect(try fixture.objects("Author", model: new) == Library.expectedAuthors())
        #expect(before.count == (try fixture.snapshot()).count)
    }

    // MARK: Unique keys

    @Test func aUniqueKeyTheDataRepeatsIsBlockedListingTheDuplicates() throws {
        let (fixture, model) = try Library.fixture()
        try fixture.insert("Book", ["title": "One", "pages": 5], model: model)
        let new = try Library.model { $0[1].uniqueBy = [["title"]] }
        let before = try fixture.snapshot()
        #expect(try fixture.plan(to: new).blockers.map(\.description) == [
            "entities[1].uniqueBy: new unique key (title): the stored objects repeat it: (\"One\") × 2; remove the duplicates first, or leave the key out"])
        #expect(throws: StoreError.self) { try fixture.migrate(to: new) }
        #expect(try fixture.snapshot() == before)
    }

    @Test func addingAndRemovingAUniqueKey() throws {
        let (fixture, _) = try Library.fixture()
        let unique = try Library.model { $0[1].uniqueBy = [["title", "pages"]] }
        #expect(try fixture.plan(to: unique).steps.map(\.summary) == ["add unique key (title, pages) to Book"])
        try fixture.migrate(to: unique)
        let error = try #require(throws: StoreError.self) { try fixture.insert("Book", ["title": "One", "pages": 100], model: unique) }
        #expect(error.code == .constraintViolation)
        let plain = try Library.model()
        #expect(try fixture.plan(to: plain).steps.map(\.summary) == ["remove unique key (title, pages) of Book"])
        try fixture.migrate(to: plain)
        try fixture.insert("Book", ["title": "One", "pages": 100], model: plain)
        #expect(try fixture.objects("Book", model: plain).count == 5)
    }
}
