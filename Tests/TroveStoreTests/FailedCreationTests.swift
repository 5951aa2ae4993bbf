import Foundation
import Testing
import TroveModel
import TroveStore
import TroveTesting

/// A store whose creation fails leaves no file behind, so creating it again (once the cause is
/// gone) works, instead of finding a half-made "store" that is not one.
@Suite struct FailedCreationTests {
    @Test(.enabled(if: MountedFolder.isAvailable, "mounting a full disk needs root"))
    func creatingAStoreOnAFullDiskLeavesNoFile() throws {
        let disk = try MountedFolder.tiny(bytes: 8192)
        let model = try SampleModels.photos()
        let error = try #require(throws: StoreError.self) { try SQLiteStore(url: disk.file("s.trove"), model: model) }
        #expect(error.message.contains("full or failing") || error.message.contains("the disk is full"), "\(error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.url.path) == [])
    }

    @Test(.enabled(if: MountedFolder.isAvailable, "mounting a read-only folder needs root"))
    func creatingAStoreInAReadOnlyFolderLeavesNoFileAndSaysWhy() throws {
        let dir = try TemporaryDirectory()
        let view = try MountedFolder.readOnlyView(of: dir.url)
        let error = try #require(throws: StoreError.self) { try SQLiteStore(url: view.file("s.trove"), model: SampleModels.photos()) }
        #expect(error.message.contains("Read-only file system"), "\(error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == [])
    }

    @Test func aFailedOpeningOfAnExistingStoreRemovesNothing() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("s.trove")
        _ = try SQLiteStore(url: url, model: SampleModels.photos())
        let other = try Model { Entity("Other") { Attribute("id", .integer64) } }
        #expect(throws: StoreError.self) { try SQLiteStore(url: url, model: other) }
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(FileManager.default.fileExists(atPath: url.path + "-lock"))
        #expect(try SQLiteStore(url: url).model == SampleModels.photos())
    }
}
