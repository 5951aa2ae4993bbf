import Foundation
import Testing
import Trove

/// The examples of the article "Exporting JSON" (`Exporting.md`).
@Suite struct ExportExamples {
    @Test func anExporter() throws {
        let graph = try SmallGraph()
        let container = try graph.fixture.container(), photo = graph.photo

        let exporter = Exporter(context: container.newBackgroundContext())
        let records = try exporter.exportJSON(FetchRequest(entityName: "Photo", sortDescriptors: [SortKey("id")]))
        let first = try exporter.record(of: photo)   // {"id":"p1","owner":"ann","tags":["sea","sky","sand"],"title":"Café","views":150,…}

        let object = try #require(first.objectValue)
        #expect(object["id"] == "p1" && object["owner"] == "ann" && object["title"] == "Café" && object["views"] == 150)
        #expect(Set(object["tags"]?.arrayValue ?? []) == ["sea", "sky", "sand"])
        let exported = try #require(JSONValue(parsing: records).arrayValue)
        #expect(exported.count == 2 && exported.first == first)
    }
}
