import Foundation
import Testing
import Trove

/// The examples of the article "Building a Model" (`Model.md`).
@Suite struct ModelExamples {
    @Test func aModelBuiltInCode() throws {
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

        #expect(model.entities.map(\.name) == ["Photographer", "Photo"])
        #expect(model.warnings.isEmpty)
    }

    @Test func aModelFile() throws {
        let modelURL = try PhotosFixture().modelURL

        let model = try Model(contentsOf: modelURL)

        #expect(model.entities.map(\.name) == ["Photographer", "Photo", "Tag"])
        #expect(model.warnings.isEmpty)
        // The classes the examples use match the sample model.
        #expect(Photo.generatedSignature == model.entity(named: "Photo")?.classSignature)
        #expect(Photographer.generatedSignature == model.entity(named: "Photographer")?.classSignature)
        #expect(Tag.generatedSignature == model.entity(named: "Tag")?.classSignature)
    }
}
