import Foundation
import Testing
import Trove
import TroveTesting

/// `trove migrate` end to end: the printed plan, blockers, exit codes, the backup, `inspect`'s history.
@Suite struct MigrateCommandTests {
    let dir: TemporaryDirectory
    let storePath: String

    init() throws {
        dir = try TemporaryDirectory()
        storePath = dir.file("photos.trove").path
        let modelPath = try dir.modelFile(SampleModels.photos(), named: "v1.json")
        #expect(try CLIRunner.run(["init", storePath, "--model", modelPath]).status == 0)
        let context = try Container(model: SampleModels.photos(), url: URL(fileURLWithPath: storePath)).newBackgroundContext()
        for i in 0..<3 {
            let photo = try context.insert("Photo")
            try photo.setValue("p\(i)", forKey: "id")
            if i > 0 { try photo.setValue("Title \(i)", forKey: "title") }
        }
        try context.save()
    }

    /// Writes the photos model edited by `edit` as `name` and returns its path.
    func modelFile(_ name: String, _ edit: (inout [Entity]) -> Void) throws -> String {
        var entities = try SampleModels.photos().entities.filter { $0.parent == nil }
        edit(&entities)
        let path = dir.file(name).path
        try Model(keyStyle: .snakeCase, entities: entities).fileData().write(to: URL(fileURLWithPath: path))
        return path
    }

    func storeBytes() throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: storePath))
    }

    @Test func aDryRunPrintsThePlanAndChangesNothing() throws {
        let v2 = try modelFile("v2.json") { $0[1].attributes.append(Attribute("caption", .string)) }
        let before = try storeBytes()
        let run = try CLIRunner.run(["migrate", storePath, "--model", v2, "--dry-run"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("1 step, 0 rows rewritten"))
        #expect(run.stdout.contains("  entities[1].attributes[4]: add attribute Photo.caption (string) [inferred, no rows rewritten]"))
        #expect(try storeBytes() == before)
        #expect(!FileManager.default.fileExists(atPath: storePath + ".backup-\(try SampleModels.photos().versionHash)"))
    }

    @Test func aBlockedMigrationExitsWith2NamingThePathAndChangesNothing() throws {
        let v2 = try modelFile("v2.json") { $0[1].attributes[1] = Attribute("title", .string, optional: false, max: 80) }
        let before = try storeBytes()
        for arguments in [["--dry-run"], []] {
            let run = try CLIRunner.run(["migrate", storePath, "--model", v2] + arguments)
            #expect(run.status == 2)
            #expect(run.stdout.contains("blocked by 1 change:\n  entities[1].attributes[1]: optional → required, 1 row is nil; give a default"))
            #expect(run.stderr.contains("cannot be migrated"))
        }
        #expect(try storeBytes() == before)
    }

    @Test func theRealRunMigratesKeepsABackupAndInspectShowsTheHistory() throws {
        let v2 = try modelFile("v2.json") { $0[1].attributes[1] = Attribute("title", .string, optional: false, default: "untitled", max: 80) }
        let run = try CLIRunner.run(["migrate", storePath, "--model", v2])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Photo.title: optional → required, 1 nil value set to the default \"untitled\""))
        let backup = storePath + ".backup-\(try SampleModels.photos().versionHash)"
        #expect(run.stderr.contains("backup at \(backup)"))
        #expect(FileManager.default.fileExists(atPath: backup))
        let query = try CLIRunner.run(["query", storePath, "Photo", "--fields", "id,title", "--sort", "id", "--format", "ndjson"])
        #expect(query.stdout == """
            {"id":"p0","title":"untitled"}
            {"id":"p1","title":"Title 1"}
            {"id":"p2","title":"Title 2"}

            """)
        let inspect = try CLIRunner.run(["inspect", storePath])
        #expect(inspect.stdout.contains("model history (oldest first):"))
        #expect(inspect.stdout.contains("1. \(try SampleModels.photos().versionHash)"))
        #expect(inspect.stdout.contains("migrated, 2 steps, 1 rows rewritten"))
        let again = try CLIRunner.run(["migrate", storePath, "--model", v2, "--no-backup"])
        #expect(again.status == 0 && again.stderr.contains("nothing to do"))
    }

    @Test func aMissingStoreIsAStoreErrorAndABadModelBadInput() throws {
        let v2 = try modelFile("v2.json") { _ in }
        #expect(try CLIRunner.run(["migrate", dir.file("none.trove").path, "--model", v2]).status == 3)
        let bad = dir.file("bad.json")
        try Data("{\"entities\": 3}".utf8).write(to: bad)
        #expect(try CLIRunner.run(["migrate", storePath, "--model", bad.path]).status == 2)
        #expect(try CLIRunner.run(["migrate", storePath]).status == 1)
    }
}
