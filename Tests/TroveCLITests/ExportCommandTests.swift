import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct ExportCommandTests {
    let fixture: QueryFixture

    init() throws {
        fixture = try QueryFixture()
    }

    @Test func printsRecordsTheImportReads() throws {
        let photos = try fixture.run("export", "Photo", "--sort", "id", "--format", "ndjson")
        #expect(photos.status == 0)
        #expect(photos.stderr.isEmpty)
        let lines = photos.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first == #"{"id":"p1","isPublic":true,"price":12345678901234567890.05,"tags":["zebra","apple"],"#
                    + #""taken":"2011-07-23T22:30:40.000Z","title":"Sunset, \"golden\"\nhour","views":9007199254740993,"whoTook":"ann"}"#)
        let filtered = try fixture.run("export", "Photo", "--where", "views > %@", "--arg", "10", "--sort", "-views", "--relationships", "none")
        #expect(filtered.status == 0)
        #expect(filtered.stdout.hasPrefix("[\n{\"id\":\"p1\""))
        #expect(filtered.stdout.hasSuffix("\"views\":42}\n]\n"))
        #expect(!filtered.stdout.contains("whoTook"))
        let nested = try fixture.run("export", "Photo", "--where", "id == 'p3'", "--relationships", "nested", "--format", "ndjson")
        #expect(nested.stdout == #"{"id":"p3","isPublic":null,"price":null,"tags":[{"name":"apple"}],"taken":"2020-02-29T12:00:00.250Z","#
                    + #""title":"Mountain","views":42,"whoTook":{"id":"bob","name":null}}"# + "\n")
    }

    /// Every entity exported and imported into a new store of the model: exporting the copy
    /// prints the same records.
    @Test func exportsImportIntoAnEmptyStoreAsTheSameObjects() throws {
        let modelFile = fixture.dir.file("model.json")
        try QueryFixture.model().fileData().write(to: modelFile)
        let copy = fixture.dir.file("copy.trove").path
        #expect(try CLIRunner.run(["init", copy, "--model", modelFile.path]).status == 0)
        let entities = ["Photographer", "Photo", "Tag", "Studio"]
        for entity in entities {
            let export = try fixture.run("export", entity, "--format", "ndjson")
            #expect(export.status == 0)
            let file = fixture.dir.file("\(entity).ndjson")
            try Data(export.stdout.utf8).write(to: file)
            let imported = try CLIRunner.run(["import", copy, file.path, "--entity", entity, "--ndjson", "--quiet"])
            #expect(imported.status == 0, "\(entity): \(imported.stderr)")
        }
        for entity in entities {
            let original = try fixture.run("export", entity, "--sort", entity == "Tag" ? "name" : (entity == "Studio" ? "city" : "id"))
            let copied = try CLIRunner.run(["export", copy, entity, "--sort", entity == "Tag" ? "name" : (entity == "Studio" ? "city" : "id")])
            #expect(copied.stdout == original.stdout, "\(entity)")
        }
    }

    @Test func errorsExitByTheContract() throws {
        let entity = try fixture.run("export", "Foto")
        #expect(entity.status == 1)
        #expect(entity.stderr.contains("has no entity 'Foto'"))
        let depth = try fixture.run("export", "Photo", "--relationships", "nested", "--depth", "0")
        #expect(depth.status == 1)
        #expect(depth.stderr.contains("--depth must be from 1 to 16, not 0"))
        let sort = try fixture.run("export", "Photo", "--sort", "nope")
        #expect(sort.status == 1)
        #expect(sort.stderr.contains("--sort"))
        let arguments = try fixture.run("export", "Photo", "--arg", "5")
        #expect(arguments.status == 1)
        let format = try fixture.run("export", "Photo", "--format", "csv")
        #expect(format.status == 1)
        let missing = try CLIRunner.run(["export", fixture.dir.file("none.trove").path, "Photo"])
        #expect(missing.status == 3)
        for failed in [entity, depth, sort, arguments, format, missing] { #expect(failed.stdout.isEmpty) }
    }
}
