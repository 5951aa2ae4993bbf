import Foundation
import Testing
import Trove
import TroveTesting

/// The README's examples, run as written, so the README stays true.
@Suite struct ReadmeExampleTests {
    @Test func theObjectsExampleRuns() throws {
        let dir = try TemporaryDirectory()
        let model = try Model(keyStyle: .snakeCase) {
            Entity("Photographer", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("name", .string)
                Relationship("photos", to: "Photo", toMany: true, inverse: "whoTook", deleteRule: .cascade)
            }
            Entity("Photo", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("title", .string, max: 80)
                Attribute("uploadDate", .date, remoteKey: ["upload_date"], dateFormat: .iso8601)
                Attribute("views", .integer64, default: 0, min: 0)
                Relationship("whoTook", to: "Photographer", inverse: "photos", remoteKey: ["owner"])
            }
        }
        let container = try Container(model: model, url: dir.file("photos.trove"))
        let context = container.newContext()

        let photo = try context.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try photo.setValue("Sunset", forKey: "title")
        try context.save()
        #expect(!photo.objectID.isTemporary)

        let photos = try context.fetch(FetchRequest(entityName: "Photo"))
        let views = try photos[0].value(forKey: "views", as: Int.self)
        #expect(views == 0)
    }

    @Test func theSampleModelLoads() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Examples/Photos/model.json")
        let model = try Model(contentsOf: url.standardizedFileURL)
        #expect(model.entities.map(\.name) == ["Photographer", "Photo", "Tag"])
        #expect(model.warnings.isEmpty)
    }
}
