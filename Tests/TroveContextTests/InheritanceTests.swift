import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct InheritanceTests {
    static func model() throws -> Model {
        try Model {
            Entity("Media", abstract: true) { Attribute("url", .uri) }
            Entity("Image", parent: "Media") { Attribute("width", .integer32) }
            Entity("Video", parent: "Media") { Attribute("seconds", .double) }
        }
    }

    @Test func fetchingAParentReturnsSubEntityObjects() throws {
        let dir = try TemporaryDirectory()
        let container = try Container(model: Self.model(), url: dir.file("m.trove"))
        let context = container.newBackgroundContext()
        let image = try context.insert("Image")
        try image.setValue(URL(string: "https://x/i.png")!, forKey: "url")
        try image.setValue(640, forKey: "width")
        let video = try context.insert("Video")
        try video.setValue(12.5, forKey: "seconds")
        try context.save()

        let fresh = container.newBackgroundContext()
        let all = try fresh.fetch(FetchRequest(entityName: "Media"))
        #expect(all.map(\.entity.name) == ["Image", "Video"])
        #expect(try all[0].value(forKey: "width") == 640)
        #expect(try all[1].value(forKey: "seconds") == 12.5)
        #expect(try fresh.fetch(FetchRequest(entityName: "Video")).count == 1)
        #expect(try fresh.fetch(FetchRequest(entityName: "Media", includesSubentities: false)).isEmpty)
        #expect(try container.store.count(of: "Media") == 2)
    }

    @Test func anAbstractEntityCannotBeInserted() throws {
        let context = try Container(store: SQLiteStore(inMemoryWith: Self.model())).newBackgroundContext()
        let error = try #require(throws: ObjectError.self) { try context.insert("Media") }
        #expect(error.code == .abstractEntity)
        #expect(error.message.contains("Image, Video"))
    }
}
