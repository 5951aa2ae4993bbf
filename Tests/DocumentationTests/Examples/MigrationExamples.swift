import Foundation
import Testing
import Trove
import TroveTesting

/// The examples of the article "Migrating a store" (`Migration.md`).
@Suite struct MigrationExamples {
    /// The sample model with one more attribute, as a new version of an app would ship it.
    static func nextVersion(of model: Model) throws -> Model {
        var entities = model.entities.filter { $0.parent == nil }
        let photo = try #require(entities.firstIndex { $0.name == "Photo" })
        entities[photo].attributes.append(Attribute("caption", .string))
        return try Model(keyStyle: model.keyStyle, entities: entities)
    }

    @Test func migratingOnOpen() throws {
        let fixture = try PhotosFixture()
        let storeURL = fixture.storeURL
        try fixture.container().newBackgroundContext().insert(Photo.self).id = "p1"
        let newModel = try Self.nextVersion(of: fixture.model)

        let plan = try SQLiteStore.migrationPlan(forStoreAt: storeURL, to: newModel)
        for blocker in plan.blockers { print(blocker) }

        let options = SQLiteStore.Options(migration: .inferred(keepingBackup: true))
        let container = try Container(store: SQLiteStore(url: storeURL, model: newModel, options: options))

        #expect(plan.steps.map(\.summary) == ["add attribute Photo.caption (string)"])
        #expect(container.model.versionHash == newModel.versionHash)
        #expect(FileManager.default.fileExists(atPath: storeURL.path + ".backup-\(fixture.model.versionHash)"))
    }

    @Test func migratingExplicitly() throws {
        let fixture = try PhotosFixture()
        let storeURL = fixture.storeURL
        _ = try fixture.container()
        let newModel = try Self.nextVersion(of: fixture.model)

        let outcome = try SQLiteStore.migrate(storeAt: storeURL, to: newModel, keepingBackup: false)
        print(outcome.migration)
        let history = try SQLiteStore(url: storeURL).modelHistory()

        #expect(history.map(\.version) == [fixture.model.versionHash, newModel.versionHash])
    }

    @Test func customStages() throws {
        let folder = try TemporaryDirectory()
        let storeURL = folder.file("people.trove")

        let v1 = try Model(entities: [
            Entity("Person", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("name", .string)
                Attribute("city", .string)
            },
        ])
        let city = Entity("City", uniqueBy: [["name"]]) {
            Attribute("name", .string, optional: false)
            Relationship("people", to: "Person", toMany: true, inverse: "home")
        }
        let v2 = try Model(entities: [
            Entity("Person", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("name", .string)
                Attribute("city", .string)
                Attribute("first", .string)
                Attribute("last", .string)
                Relationship("home", to: "City", inverse: "people")
            },
            city,
        ])
        let v3 = try Model(entities: [
            Entity("Person", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("first", .string)
                Attribute("last", .string)
                Relationship("home", to: "City", inverse: "people")
            },
            city,
        ])

        let old = try Container(model: v1, url: storeURL).newBackgroundContext()
        for (id, name, town) in [("p1", "Ann Lee", "Oslo"), ("p2", "Bo", "Lima"), ("p3", "Cy Ng", "Oslo")] {
            let person = try old.insert("Person")
            try person.setValue(id, forKey: "id")
            try person.setValue(name, forKey: "name")
            try person.setValue(town, forKey: "city")
        }
        try old.save()

        let plan = try ModelMigrationPlan([
            .custom(from: v1, to: v2, didMigrate: { context in
                var cities: [String: Int64] = [:]
                try context.forEachRow(of: "Person") { person in
                    if case .string(let name) = person["name"] {
                        let parts = name.split(separator: " ", maxSplits: 1).map { AttributeValue.string(String($0)) }
                        try context.update("Person", person.key, ["first": parts.first ?? .null, "last": parts.dropFirst().first ?? .null])
                    }
                    guard case .string(let city) = person["city"] else { return }
                    let key = try cities[city] ?? context.insert("City", ["name": .string(city)])
                    cities[city] = key
                    try context.link("Person", person.key, "home", to: key)
                }
            }),
            .lightweight(from: v2, to: v3),
        ])
        let options = SQLiteStore.Options(migration: .staged(plan, keepingBackup: true))
        let container = try Container(model: v3, url: storeURL, options: options)

        let context = container.newBackgroundContext()
        let oslo = try context.fetch(FetchRequest(entityName: "Person", predicate: ObjectPredicate(format: "home.name == %@", "Oslo")))
        #expect(try oslo.compactMap { try $0.value(forKey: "last", as: String.self) }.sorted() == ["Lee", "Ng"])
        #expect(try context.fetchCount("City") == 2)
        #expect(try (container.store as? SQLiteStore)?.modelHistory().count == 3)
    }
}
