import Foundation
import Testing
import Trove

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
}
