import Foundation
import TroveModel
import Testing
import Trove
import TroveTesting

@Suite struct HooksTests {
    @Test func prepareForDeletionRunsBeforeRelationshipsAreTornDown() throws {
        let dir = try TemporaryDirectory()
        let seen = SeenNames()
        var hooks = ObjectHooks()
        hooks.prepareForDeletion(of: "Photo") { photo in
            // The photographer is still linked when the hook runs.
            let owner = try photo.relatedObject(forKey: "whoTook")
            seen.add(try owner?.value(forKey: "name", as: String.self) ?? "none")
            try owner?.setValue("lost a photo", forKey: "name")
        }
        hooks.prepareForDeletion(of: "Photographer") { _ in throw ObjectHooks.Rejection("photographers are kept forever") }
        let container = try Container(model: SampleModels.photos(), url: dir.file("h.trove"), hooks: hooks)
        let context = container.newBackgroundContext()
        let ann = try context.insert("Photographer")
        try ann.setValue("ann", forKey: "id")
        try ann.setValue("Ann", forKey: "name")
        let photo = try context.insert("Photo")
        try photo.setValue("p", forKey: "id")
        try photo.setRelatedObject(ann, forKey: "whoTook")
        try context.save()

        try context.delete(photo)
        #expect(seen.names == ["Ann"])
        #expect(try ann.value(forKey: "name") == "lost a photo")
        #expect(try ann.relatedObjects(forKey: "photos").isEmpty)

        let refused = try #require(throws: ObjectHooks.Rejection.self) { try context.delete(ann) }
        #expect(refused.message == "photographers are kept forever")
        #expect(!ann.isDeleted)
    }

    @Test func customValidatorsJoinTheModelsRules() throws {
        var hooks = ObjectHooks()
        hooks.validate("Photo") { photo in
            if let title = try photo.value(forKey: "title", as: String.self), title.uppercased() == title {
                throw ObjectHooks.Rejection("a title in capitals shouts; write it in sentence case", key: "title")
            }
        }
        hooks.validate("Photo") { photo in
            guard try photo.relatedObject(forKey: "whoTook") != nil else { throw ObjectHooks.Rejection("a photo needs its photographer") }
        }
        let context = try Container(store: SQLiteStore(inMemoryWith: SampleModels.photos()), hooks: hooks).newBackgroundContext()
        let photo = try context.insert("Photo")
        try photo.setValue("p", forKey: "id")
        try photo.setValue("LOUD", forKey: "title")
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(error.failures.map(\.rule) == [.custom, .custom])
        #expect(error.failures.map(\.description) == [
            "\(photo.objectID).title: a title in capitals shouts; write it in sentence case",
            "\(photo.objectID): a photo needs its photographer",
        ])
        try photo.setValue("Quiet", forKey: "title")
        let ann = try context.insert("Photographer")
        try ann.setValue("ann", forKey: "id")
        try photo.setRelatedObject(ann, forKey: "whoTook")
        try context.save()
    }
}

/// Names collected by a hook (hooks are `@Sendable`).
final class SeenNames: Sendable {
    private let stored = Locked<[String]>([])
    var names: [String] { stored.withLock { $0 } }
    func add(_ name: String) { stored.withLock { $0.append(name) } }
}
