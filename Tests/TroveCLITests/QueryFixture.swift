import Foundation
import Trove
import TroveTesting

/// A small store for the query, count and delete tests, filled through the library:
///
/// | photo | title                            | taken                    | views            | price                   | isPublic | whoTook | tags         |
/// |-------|----------------------------------|--------------------------|------------------|-------------------------|----------|---------|--------------|
/// | p1    | `Sunset, "golden"⏎hour`          | 2011-07-23T22:30:40Z     | 9007199254740993 | 12345678901234567890.05 | true     | ann     | zebra, apple |
/// | p2    | `Café ☕ 東京`                    | nil                      | 5                | 0.1                     | false    | nil     |              |
/// | p3    | Mountain                         | 2020-02-29T12:00:00.250Z | 42               | nil                     | nil      | bob     | apple        |
///
/// ann is "Ann Ödegaard"; bob has no name and owns a studio through a `deny` relationship.
struct QueryFixture {
    let dir: TemporaryDirectory
    let storePath: String

    static func model() throws -> Model {
        try Model {
            Entity("Photographer", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("name", .string)
                Relationship("photos", to: "Photo", toMany: true, inverse: "whoTook", deleteRule: .cascade)
                Relationship("studio", to: "Studio", inverse: "owner", deleteRule: .deny)
            }
            Entity("Photo", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("title", .string)
                Attribute("taken", .date)
                Attribute("views", .integer64, default: 0)
                Attribute("price", .decimal)
                Attribute("isPublic", .boolean)
                Relationship("whoTook", to: "Photographer", inverse: "photos")
                Relationship("tags", to: "Tag", toMany: true, ordered: true, inverse: "photos")
            }
            Entity("Tag", uniqueBy: [["name"]]) {
                Attribute("name", .string, optional: false)
                Relationship("photos", to: "Photo", toMany: true, inverse: "tags")
            }
            Entity("Studio") {
                Attribute("city", .string)
                Relationship("owner", to: "Photographer", inverse: "studio")
            }
        }
    }

    init() throws {
        dir = try TemporaryDirectory()
        storePath = dir.file("photos.trove").path
        let context = try Container(model: Self.model(), url: URL(fileURLWithPath: storePath)).newBackgroundContext()

        let ann = try context.insert("Photographer")
        try ann.setValue("ann", forKey: "id")
        try ann.setValue("Ann Ödegaard", forKey: "name")
        let bob = try context.insert("Photographer")
        try bob.setValue("bob", forKey: "id")
        let studio = try context.insert("Studio")
        try studio.setValue("Oslo", forKey: "city")
        try bob.setRelatedObject(studio, forKey: "studio")

        let apple = try context.insert("Tag")
        try apple.setValue("apple", forKey: "name")
        let zebra = try context.insert("Tag")
        try zebra.setValue("zebra", forKey: "name")

        let p1 = try context.insert("Photo")
        try p1.setValue("p1", forKey: "id")
        try p1.setValue("Sunset, \"golden\"\nhour", forKey: "title")
        try p1.setValue(Date(timeIntervalSince1970: 1_311_460_240), forKey: "taken")
        try p1.setValue(9_007_199_254_740_993, forKey: "views")
        try p1.setValue(Decimal(string: "12345678901234567890.05") ?? 0, forKey: "price")
        try p1.setValue(true, forKey: "isPublic")
        try p1.setRelatedObject(ann, forKey: "whoTook")
        try p1.setRelatedObjects([zebra, apple], forKey: "tags")

        let p2 = try context.insert("Photo")
        try p2.setValue("p2", forKey: "id")
        try p2.setValue("Café ☕ 東京", forKey: "title")
        try p2.setValue(5, forKey: "views")
        try p2.setValue(Decimal(string: "0.1") ?? 0, forKey: "price")
        try p2.setValue(false, forKey: "isPublic")

        let p3 = try context.insert("Photo")
        try p3.setValue("p3", forKey: "id")
        try p3.setValue("Mountain", forKey: "title")
        try p3.setValue(Date(timeIntervalSince1970: 1_582_977_600.25), forKey: "taken")
        try p3.setValue(42, forKey: "views")
        try p3.setRelatedObject(bob, forKey: "whoTook")
        try p3.setRelatedObjects([apple], forKey: "tags")
        try context.save()
    }

    /// Runs `trove` with `arguments` after the store path's place: `run("query", "Photo")`.
    func run(_ command: String, _ arguments: String...) throws -> CLIRunner.Result {
        try CLIRunner.run([command, storePath] + arguments)
    }
}
