import Foundation
import Testing
import Trove
import TroveTesting

/// Stores that cannot be written, models SQLite would refuse, and failed `init`s, as the
/// command line meets them: read commands still read, failures say why with the right exit
/// code, and a failed `init` leaves no file behind.
@Suite struct StoreFailureCLITests {
    let dir: TemporaryDirectory
    let modelPath: String

    init() throws {
        dir = try TemporaryDirectory()
        modelPath = try dir.modelFile(SampleModels.photos())
    }

    /// A store of two photos in `folder`, closed (no -wal, no -shm; the lock file removed too).
    private func makeStore(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("s.trove").path
        #expect(try CLIRunner.run(["init", path, "--model", modelPath]).status == 0)
        let imported = try CLIRunner.run(["import", path, "-", "--entity", "Photo", "--quiet"],
                                         input: Data(#"[{"id": "p1", "title": "One"}, {"id": "p2"}]"#.utf8))
        #expect(imported.status == 0, "\(imported.stderr)")
        for suffix in ["-wal", "-shm", "-lock"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return path
    }

    @Test(.enabled(if: MountedFolder.isAvailable, "a read-only mount needs root (root ignores file permissions)"))
    func readCommandsReadAStoreInAReadOnlyFolder() throws {
        _ = try makeStore(in: dir.url)
        let view = try MountedFolder.readOnlyView(of: dir.url)
        let path = view.file("s.trove").path
        let count = try CLIRunner.run(["count", path, "Photo"])
        #expect(count.status == 0, "\(count.stderr)")
        #expect(count.stdout == "2\n")
        let query = try CLIRunner.run(["query", path, "Photo", "--where", "id = %@", "--arg", "p1", "--fields", "title", "--format", "ndjson"])
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.stdout == #"{"title":"One"}"# + "\n")
        let inspect = try CLIRunner.run(["inspect", path])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("Photo — 2 rows"))

        let delete = try CLIRunner.run(["delete", path, "Photo", "--where", "id = 'p1'"])
        #expect(delete.status == 3)
        #expect(delete.stderr.contains("Read-only file system"), "\(delete.stderr)")
        #expect(try CLIRunner.run(["count", path, "Photo"]).stdout == "2\n")
    }

    @Test(.enabled(if: MountedFolder.isAvailable, "mounting a full disk needs root"))
    func initOnAFullDiskLeavesNoFileBehind() throws {
        let disk = try MountedFolder.tiny(bytes: 8192)
        let path = disk.file("s.trove").path
        let result = try CLIRunner.run(["init", path, "--model", modelPath])
        #expect(result.status == 3)
        #expect(result.stderr.contains("full"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.url.path) == [])
    }

    @Test func initRefusesModelsSQLiteWouldAndCreatesNothing() throws {
        let wide = (0..<3_000).map { #"{ "name": "a\#($0)", "type": "string" }"# }.joined(separator: ", ")
        let cases = [
            #"{ "entities": [ { "name": "Wide", "attributes": [\#(wide)] } ] }"#: "more than the 2000 SQLite allows",
            #"{ "entities": [ { "name": "sqlite_x" } ] }"#: "starts with 'sqlite_', which SQLite reserves",
        ]
        for (model, reason) in cases {
            let file = dir.file("bad.json")
            try Data(model.utf8).write(to: file)
            let store = dir.file("bad.trove").path
            let result = try CLIRunner.run(["init", store, "--model", file.path])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains(file.path) && result.stderr.contains(reason), "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == ["bad.json", "model.json"])
        }
    }

    @Test func aModelFileThatIsADeviceOrEmptySaysSo() throws {
        let empty = dir.file("empty.json")
        try Data().write(to: empty)
        for (model, words) in [("/dev/null", "it is a device, not a model file"), (empty.path, "it is empty, not a model file"),
                               (dir.url.path, "it is a folder, not a model file")] {
            let result = try CLIRunner.run(["init", dir.file("s.trove").path, "--model", model])
            #expect(result.status == 2)
            #expect(result.stderr.contains(words), "\(result.stderr)")
            #expect(!result.stderr.contains("permission"))
        }
    }
}
