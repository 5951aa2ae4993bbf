import Foundation
import Testing
import TroveTesting

/// `trove` on a store another process is writing: it waits, then exits 3 saying so.
@Suite struct BusyStoreTests {
    @Test(.enabled(if: FileLockHolder.isAvailable, "needs util-linux flock"))
    func aWriteToABusyStoreExitsWithAStoreError() throws {
        let dir = try TemporaryDirectory()
        let model = ImportCommandTests.sampleModel.path
        let created = try CLIRunner.run(["init", "photos.trove", "--model", model], in: dir.url)
        try #require(created.status == 0, "\(created.stderr)")
        let holder = try FileLockHolder(file: dir.file("photos.trove-lock"))
        let input = Data(#"[{"nsid": "ann", "username": "Ann"}]"#.utf8)
        let busy = try CLIRunner.run(["import", "photos.trove", "-", "--entity", "Photographer"], input: input, in: dir.url)
        #expect(busy.status == 3)
        #expect(busy.stderr.contains("another process is writing to \(dir.file("photos.trove").path)"), "\(busy.stderr)")
        #expect(busy.stderr.contains("try again"))
        holder.release()
        let done = try CLIRunner.run(["import", "photos.trove", "-", "--entity", "Photographer", "--quiet"], input: input, in: dir.url)
        #expect(done.status == 0, "\(done.stderr)")
    }
}
