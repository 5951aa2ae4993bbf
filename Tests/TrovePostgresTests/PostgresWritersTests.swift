import Foundation
import Testing
import Trove
import TrovePostgres
import TroveTesting

/// Four processes writing one PostgreSQL database at once, without a file lock: `trove import`
/// of overlapping inputs. (Version checks between store instances are in the conformance suite.)
@Suite(.enabled(if: PostgresServer.isConfigured, PostgresServer.skipMessage))
struct PostgresWritersTests {
    /// Photo `i` as a record: its values depend on `i` alone, so that every input holding it
    /// says the same thing, and its owner is one of 13 shared by every input.
    static func record(_ i: Int) -> String {
        #"{"id": "p\#(i)", "title": "photo \#(i) ✓", "views": \#(i * 7), "owner": {"id": "o\#(i % 13)", "name": "Owner \#(i % 13)"}}"#
    }

    /// Four importers, each with 300 records of which 200 are also in other inputs (in another
    /// order), in batches of 25: every photo and owner once, with its values; nothing lost,
    /// nothing doubled, every process exits 0.
    @Test func fourImportersOfOverlappingInputsLoseAndDoubleNothing() throws {
        let dir = try TemporaryDirectory()
        let database = try TemporaryDatabase(created: false)
        let url = database.url()
        let modelPath = try dir.modelFile(SampleModels.photos())
        let created = try CLIRunner.run(["init", url, "--model", modelPath])
        #expect(created.status == 0, "\(created.stderr)")
        var files: [String] = []
        for process in 0..<4 {
            var ids = Array((process * 100)..<(process * 100 + 300))
            if process % 2 == 1 { ids.reverse() }
            let name = dir.file("part\(process).ndjson").path
            try Data((ids.map(Self.record).joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: name))
            files.append(name)
        }
        let running = try files.map { try CLIRunner.start(["import", url, $0, "--entity", "Photo", "--ndjson", "--batch-size", "25"]) }
        for (file, process) in zip(files, running) {
            let result = process.wait()
            #expect(result.status == 0, "\(file): \(result.stderr)")
            #expect(result.stderr.contains("300 records read, 300 imported"), "\(result.stderr)")
        }

        try Self.expectRecords(600, in: PostgresStore(location: database.location))
    }

    /// Expects `store` to hold the photos of records 0 to `count` - 1 (``record(_:)``), each
    /// once, with its values and owner, and their 13 owners.
    static func expectRecords(_ count: Int, in store: PostgresStore) throws {
        let context = try Container(store: store).newBackgroundContext()
        let photos = try context.fetch("Photo", sortedBy: "id")
        #expect(photos.count == count, "ids 0 to \(count - 1), each once")
        var seen = Set<Int>()
        for photo in photos {
            let id = try photo.value(forKey: "id").text ?? ""
            let i = try #require(Int(id.dropFirst()))
            #expect(seen.insert(i).inserted, "\(id) twice")
            #expect(try photo.value(forKey: "views") == .integer(Int64(i * 7)), "\(id)")
            #expect(try photo.relatedObject(forKey: "whoTook")?.value(forKey: "id") == .string("o\(i % 13)"), "\(id)")
        }
        #expect(try context.fetchCount("Photographer") == 13)
    }
}
