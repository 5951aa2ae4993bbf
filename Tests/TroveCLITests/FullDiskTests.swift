import Foundation
import Testing
import Trove
import TroveTesting

/// A full disk under imports and saves, on a real small filesystem: a tmpfs of 1 MiB mounted
/// for the test (needs root, as CI has; skipped otherwise). The writer fails with a store error
/// that says the disk is full, the store stays whole with every batch before the failure, and
/// once there is room the same import finishes with the store a roomy disk would have made.
@Suite(.enabled(if: MountedFolder.isAvailable, "mounting a tmpfs needs root"), .serialized)
struct FullDiskTests {
    static let sampleModel = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/Photos/model.json")

    /// 15,000 photos with 70-character titles: about 1.5 MB of rows and index, more than the
    /// filesystem holds.
    static let records: String = {
        let title = String(repeating: "t", count: 70)
        return "[" + (0..<15_000).map { #"{"id": "p\#($0)", "title": "\#(title)\#($0)", "views": \#($0)}"# }
            .joined(separator: ",\n") + "]"
    }()

    func run(_ arguments: [String], in dir: URL) throws -> CLIRunner.Result {
        try CLIRunner.run(arguments, in: dir)
    }

    @Test func anImportThatFillsTheDiskStopsWholeAndFinishesOnceThereIsRoom() throws {
        let roomy = try TemporaryDirectory()
        let disk = try MountedFolder.tiny(bytes: 1 << 20)
        try Data(Self.records.utf8).write(to: roomy.file("photos.json"))
        let input = roomy.file("photos.json").path

        #expect(try run(["init", "photos.trove", "--model", Self.sampleModel.path], in: roomy.url).status == 0)
        #expect(try run(["import", "photos.trove", input, "--entity", "Photo", "--batch-size", "1000"], in: roomy.url).status == 0)
        let expected = try run(["query", "photos.trove", "Photo", "--sort", "id", "--format", "json"], in: roomy.url).stdout

        let created = try run(["init", "photos.trove", "--model", Self.sampleModel.path], in: disk.url)
        try #require(created.status == 0, "\(created.stderr)")
        let full = try run(["import", "photos.trove", input, "--entity", "Photo", "--batch-size", "1000"], in: disk.url)
        #expect(full.status == 3, "\(full.stderr)")
        #expect(full.stderr.contains("full"), "\(full.stderr)")
        #expect(try StoreIntegrity.problems(ofStoreAt: disk.url.appendingPathComponent("photos.trove")) == [])
        let kept = try Container(store: SQLiteStore(url: disk.url.appendingPathComponent("photos.trove")))
            .newBackgroundContext().fetchCount("Photo")
        #expect(kept > 0 && kept < 15_000 && kept % 1000 == 0, "\(kept) photos: whole batches only")

        try disk.resize(bytes: 16 << 20)
        let resumed = try run(["import", "photos.trove", input, "--entity", "Photo", "--batch-size", "1000"], in: disk.url)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try run(["query", "photos.trove", "Photo", "--sort", "id", "--format", "json"], in: disk.url).stdout == expected)
    }

    @Test func aSaveThatFillsTheDiskThrowsAndKeepsTheContextsChanges() throws {
        let disk = try MountedFolder.tiny(bytes: 1 << 20)
        let url = disk.url.appendingPathComponent("photos.trove")
        let container = try Container(model: SampleModels.photos(), url: url)
        let context = container.newBackgroundContext()
        for i in 0..<15_000 {  // about 1.5 MB of rows and index
            let photo = try context.insert("Photo")
            try photo.setValue("p\(i)", forKey: "id")
            try photo.setValue(String(repeating: "x", count: 70), forKey: "title")
        }
        #expect(throws: StoreError.self) { try context.save() }
        #expect(context.hasChanges)
        #expect(try StoreIntegrity.problems(ofStoreAt: url) == [])
        #expect(try container.newBackgroundContext().fetchCount("Photo") == 0)
    }
}
