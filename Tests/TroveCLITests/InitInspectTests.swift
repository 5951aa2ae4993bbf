import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct InitInspectTests {
    let dir: TemporaryDirectory
    let modelPath: String
    let storePath: String

    init() throws {
        dir = try TemporaryDirectory()
        modelPath = try dir.modelFile(SampleModels.photos())
        storePath = dir.file("photos.trove").path
    }

    @Test func initCreatesAStoreThatInspectDescribes() throws {
        let created = try CLIRunner.run(["init", storePath, "--model", modelPath])
        #expect(created.status == 0)
        #expect(created.stdout.isEmpty, "stdout carries data only")
        #expect(created.stderr.contains("created \(storePath): 2 entities"))

        let context = try Container(model: SampleModels.photos(), url: URL(fileURLWithPath: storePath)).newBackgroundContext()
        for i in 0..<3 { try context.insert("Photo").setValue("p\(i)", forKey: "id") }
        try context.save()

        let text = try CLIRunner.run(["inspect", storePath])
        #expect(text.status == 0)
        #expect(text.stdout.contains("Photo — 3 rows"))
        #expect(text.stdout.contains("Photographer — 0 rows"))
        #expect(text.stdout.contains("views       integer64, default 0"))
        #expect(text.stdout.contains("whoTook     → Photographer, to-one, inverse photos, delete rule nullify"))
        #expect(text.stdout.contains("model hash:    \(try SampleModels.photos().versionHash)"))
        #expect(text.stdout.contains("SQLite:        3."))

        let json = try CLIRunner.run(["inspect", storePath, "--format", "json"])
        #expect(json.status == 0)
        let report = try JSONValue(parsing: json.stdout).objectValue ?? [:]
        #expect(report["modelHash"] == .string(try SampleModels.photos().versionHash))
        #expect(report["formatVersion"] == .number("1"))
        let entities = report["entities"]?.arrayValue ?? []
        #expect(entities.compactMap { $0.objectValue?["name"]?.stringValue } == ["Photographer", "Photo"])
        #expect(entities.last?.objectValue?["rows"] == .number("3"))
        let attributes = entities.last?.objectValue?["attributes"]?.arrayValue ?? []
        #expect(attributes.first == ["name": "id", "type": "string", "optional": false])
    }

    @Test func initRefusesAnExistingStore() throws {
        #expect(try CLIRunner.run(["init", storePath, "--model", modelPath]).status == 0)
        let again = try CLIRunner.run(["init", storePath, "--model", modelPath])
        #expect(again.status == 3)
        #expect(again.stderr == "trove: \(storePath) already exists; remove it or choose another path\n")
    }

    @Test func initWithABadModelListsEveryProblemAndCreatesNothing() throws {
        let bad = dir.file("bad.json")
        try Data("""
            { "entities": [
              { "name": "Photo", "uniqueBy": ["uid"],
                "attributes": [ { "name": "views", "type": "integer64", "default": "many" } ],
                "relationships": [ { "name": "owner", "destination": "Person" } ] } ] }
            """.utf8).write(to: bad)
        let result = try CLIRunner.run(["init", storePath, "--model", bad.path])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(bad.path))
        #expect(result.stderr.contains("entities[0].uniqueBy[0][0]"))
        #expect(result.stderr.contains("entities[0].attributes[0].default"))
        #expect(result.stderr.contains("entities[0].relationships[0].destination"))
        #expect(!FileManager.default.fileExists(atPath: storePath))

        try Data("{ \"entities\": [], }".utf8).write(to: bad)
        let syntax = try CLIRunner.run(["init", storePath, "--model", bad.path])
        #expect(syntax.status == 2)
        #expect(syntax.stderr.contains("line 1, column 19"))
        #expect(syntax.stderr.contains("trailing comma"))

        let missing = try CLIRunner.run(["init", storePath, "--model", dir.file("absent.json").path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("absent.json"))
    }

    @Test func inspectReportsStoreErrors() throws {
        let none = try CLIRunner.run(["inspect", dir.file("none.trove").path])
        #expect(none.status == 3)
        #expect(none.stderr.contains("no store at"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("none.trove").path), "inspect creates nothing")

        let text = dir.file("notes.txt")
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: text)
        let notAStore = try CLIRunner.run(["inspect", text.path])
        #expect(notAStore.status == 3)
        #expect(notAStore.stderr.contains("not an SQLite database"))
    }

    @Test func usageErrorsExitWithOne() throws {
        let missing = try CLIRunner.run(["inspect"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("Missing expected argument"))
        let unknown = try CLIRunner.run(["frobnicate"])
        #expect(unknown.status == 1)
        let badFormat = try CLIRunner.run(["inspect", storePath, "--format", "xml"])
        #expect(badFormat.status == 1)
        let help = try CLIRunner.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("Exit codes: 0 success, 1 usage error, 2 bad input, 3 store error, 4 conflict."))
    }
}
