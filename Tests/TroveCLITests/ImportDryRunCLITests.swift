import Foundation
import Testing
import Trove
import TroveTesting

/// `trove import --dry-run` (issue 21, item 5) and the warning on keys named like a property
/// (item 7), end to end.
@Suite struct ImportDryRunCLITests {
    let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory()
        for name in ["dry.trove", "real.trove"] {
            let created = try run("init", name, "--model", ImportCommandTests.sampleModel.path)
            try #require(created.status == 0, "\(created.stderr)")
            try Data(#"[{"id": "p1", "views": 3}, {"id": "p2", "owner": {"id": "ann"}}]"#.utf8).write(to: dir.file("seed.json"))
            let seeded = try run("import", name, "seed.json", "--entity", "Photo")
            try #require(seeded.status == 0, "\(seeded.stderr)")
        }
        try Data(ImportCommandTests.messy.utf8).write(to: dir.file("photos.json"))
    }

    func run(_ arguments: String..., environment: [String: String] = [:]) throws -> CLIRunner.Result {
        try CLIRunner.run(arguments, in: dir.url, environment: environment)
    }

    /// The bytes of a store's files (a `-wal` only when there is one).
    func bytes(_ name: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: dir.file(name + suffix).path) {
            files[suffix] = try Data(contentsOf: dir.file(name + suffix))
        }
        return files
    }

    @Test func aDryRunWritesWhatARealRunWritesAndLeavesTheStoreAsItWas() throws {
        let before = try bytes("dry.trove")
        let scratch = dir.file("scratch")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: false)
        let dry = try run("import", "dry.trove", "photos.json", "--entity", "Photo", "--batch-size", "2", "--sync-scope", "views < 100",
                          "--dry-run", "--rejects", "dry-rejects.ndjson", "--report", "dry-report.json", environment: ["TMPDIR": scratch.path])
        let real = try run("import", "real.trove", "photos.json", "--entity", "Photo", "--batch-size", "2", "--sync-scope", "views < 100",
                           "--rejects", "real-rejects.ndjson", "--report", "real-report.json")
        #expect(dry.status == 2 && real.status == 2, "one record is rejected: \(dry.stderr)")
        #expect(try Data(contentsOf: dir.file("dry-rejects.ndjson")) == Data(contentsOf: dir.file("real-rejects.ndjson")))
        #expect(try Data(contentsOf: dir.file("dry-report.json")) == Data(contentsOf: dir.file("real-report.json")))
        #expect(dry.stderr.hasPrefix("dry run, nothing written: imported photos.json into Photo: 5 records read, 4 imported, 1 rejected"))
        #expect(dry.stderr.replacingOccurrences(of: "dry run, nothing written: ", with: "").replacingOccurrences(of: "dry-", with: "")
            == real.stderr.replacingOccurrences(of: "real-", with: "").replacingOccurrences(of: "real.trove", with: "dry.trove"))
        #expect(try bytes("dry.trove") == before, "the store and its -wal are unchanged")
        #expect(try run("count", "dry.trove", "Photo").stdout == "2\n")
        #expect(try run("count", "real.trove", "Photo").stdout == "4\n", "p1 and p2, then 2 and p4")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty, "the copy in TMPDIR is removed")
    }

    @Test func aKeyNamedLikeAPropertyIsAWarningAndStrictRejectsIt() throws {
        try Data(#"[{"id": "p7", "uploadDate": "2020-01-02T03:04:05Z"}]"#.utf8).write(to: dir.file("misnamed.json"))
        let lenient = try run("import", "real.trove", "misnamed.json", "--entity", "Photo")
        #expect(lenient.status == 0)
        #expect(lenient.stderr.contains("\nwarning: the key 'uploadDate' of Photo records was ignored: the attribute uploadDate is read from 'upload_date' or 'dateupload' only;"))
        let strict = try run("import", "real.trove", "misnamed.json", "--entity", "Photo", "--strict", "--rejects", "rejects.ndjson")
        #expect(strict.status == 2)
        let rejects = try String(decoding: Data(contentsOf: dir.file("rejects.ndjson")), as: UTF8.self)
        #expect(rejects == #"{"id":"p7","uploadDate":"2020-01-02T03:04:05Z"}"# + "\n")
        #expect(strict.stderr.contains("record 0 at uploadDate: the key 'uploadDate' of Photo records was ignored"))
    }
}
