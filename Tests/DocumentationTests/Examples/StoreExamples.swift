import Foundation
import Testing
import Trove

/// The examples of the article "The Store" (`Store.md`).
@Suite struct StoreExamples {
    @Test func storesInCode() throws {
        let fixture = try PhotosFixture()
        let model = fixture.model, storeURL = fixture.storeURL

        let store = try SQLiteStore(url: storeURL, model: model, options: SQLiteStore.Options(durability: .normal))
        let container = try Container(store: store, classes: [Photographer.self, Photo.self, Tag.self])

        let scratch = try Container(store: SQLiteStore(inMemoryWith: model))

        let context = container.newBackgroundContext()
        try context.insert(Photo.self).id = "p1"
        try context.save()
        #expect(try context.fetchCount(Photo.self) == 1)
        #expect(try scratch.newBackgroundContext().fetchCount("Photo") == 0)
        try store.checkpoint()
    }

    @Test func theSQLOfAFetch() throws {
        let fixture = try PhotosFixture()
        let model = fixture.model
        let store = try SQLiteStore(inMemoryWith: model)
        var request = FetchRequest(entityName: "Photo")
        request.predicate = try ObjectPredicate(format: "title == %@", "Sunset")

        let statement = try store.compiledFetch(StoreQuery(request, model: model))

        #expect(statement.sql.contains("?"), "values are bound, never spliced: \(statement.sql)")
        #expect(!statement.sql.contains("Sunset"))
        #expect(statement.arguments.contains(.string("Sunset")))
    }
}
