import Foundation
import Testing
import Trove
import TroveTesting

/// Deterministic kills at every commit point (the `TROVE_TEST_KILL_AT` hook, `KillPoint`): a
/// `trove import` or `trove delete` killed just before or just after each of its commits leaves a
/// whole store — SQLite's integrity check passes, a save killed before its commit left nothing of
/// itself, one killed after it left all of itself — and running the same import again finishes it
/// with the store an uninterrupted import makes.
@Suite struct KillPointTests {
    static let sampleModel = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/Photos/model.json")

    /// 50 photos of 7 owners (nested objects and references), saved 12 records a batch.
    static let records: String = {
        let photos = (0..<50).map { i in
            let owner = i % 3 == 0 ? #"{"nsid": "o\#(i % 7)", "username": "Owner \#(i % 7)"}"# : #""o\#(i % 7)""#
            return #"{"id": "p\#(i)", "title": "Photo \#(i)", "views": \#(i * 10), "owner": \#(owner)}"#
        }
        return "[" + photos.joined(separator: ",\n") + "]"
    }()

    let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory()
        try Data(Self.records.utf8).write(to: dir.file("photos.json"))
    }

    func run(_ arguments: [String], killAt point: String? = nil) throws -> CLIRunner.Result {
        try CLIRunner.run(arguments, in: dir.url, environment: point.map { ["TROVE_TEST_KILL_AT": $0] } ?? [:])
    }

    func newStore(_ name: String) throws {
        let created = try run(["init", name, "--model", Self.sampleModel.path])
        try #require(created.status == 0, "\(created.stderr)")
    }

    func importing(into store: String, killAt point: String? = nil) throws -> CLIRunner.Result {
        try run(["import", store, "photos.json", "--entity", "Photo", "--batch-size", "12"], killAt: point)
    }

    /// Every photo and owner, as `trove query` prints them, to compare stores.
    func contents(of store: String) throws -> String {
        let photos = try run(["query", store, "Photo", "--sort", "id", "--format", "json"])
        let owners = try run(["query", store, "Photographer", "--sort", "id", "--format", "json"])
        #expect(photos.status == 0 && owners.status == 0, "\(photos.stderr)\(owners.stderr)")
        return photos.stdout + owners.stdout
    }

    func count(_ entity: String, in store: String) throws -> Int {
        try Container(store: SQLiteStore(url: dir.file(store))).newBackgroundContext().fetchCount(entity)
    }

    @Test func importKilledAtEveryCommitPointLeavesAWholeStoreAndResumes() throws {
        try newStore("clean.trove")
        let clean = try importing(into: "clean.trove")
        try #require(clean.status == 0, "\(clean.stderr)")
        let expected = try contents(of: "clean.trove")
        #expect(try count("Photo", in: "clean.trove") == 50)

        var commits = 0
        var photosAfterCommit = [0]  // photos in the store once the k-th commit is done
        for arrival in 1...30 {
            var killedAtThisArrival = false
            for point in ["save.before-commit", "save.after-commit"] {
                let store = "\(point)-\(arrival).trove"
                try newStore(store)
                let killed = try importing(into: store, killAt: "\(point)#\(arrival)")
                guard killed.signaled else {
                    // No commit number `arrival`: the import ran to its end.
                    #expect(killed.status == 0, "\(killed.stderr)")
                    continue
                }
                killedAtThisArrival = true
                #expect(killed.status == SIGKILL)
                #expect(try StoreIntegrity.problems(ofStoreAt: dir.file(store)) == [])
                let photos = try count("Photo", in: store)
                if point == "save.before-commit" {
                    #expect(photos == photosAfterCommit[arrival - 1], "killed before commit \(arrival)")
                } else {
                    photosAfterCommit.append(photos)
                    #expect(photos >= photosAfterCommit[arrival - 1], "killed after commit \(arrival)")
                }
                let resumed = try importing(into: store)
                #expect(resumed.status == 0, "\(resumed.stderr)")
                #expect(try contents(of: store) == expected, "resumed after \(point)#\(arrival)")
            }
            guard killedAtThisArrival else { break }
            commits = arrival
        }
        // 50 records in batches of 12: five batches, each its own commit with its checkpoint.
        #expect(commits >= 5)
        #expect(photosAfterCommit.last == 50)
    }

    @Test func deleteKilledBeforeItsCommitDeletesNothingAndAfterItDeletesAll() throws {
        for (point, remaining) in [("save.before-commit", 50), ("save.after-commit", 20)] {
            let store = "\(point).trove"
            try newStore(store)
            #expect(try importing(into: store).status == 0)
            let killed = try run(["delete", store, "Photo", "--where", "views >= %d", "--arg", "200"], killAt: point)
            #expect(killed.signaled && killed.status == SIGKILL, "\(killed.stderr)")
            #expect(try StoreIntegrity.problems(ofStoreAt: dir.file(store)) == [])
            #expect(try count("Photo", in: store) == remaining, "killed at \(point)")
        }
    }

    @Test func anUnknownKillPointIsIgnoredWithAWarning() throws {
        try newStore("photos.trove")
        let result = try importing(into: "photos.trove", killAt: "save.someday")
        #expect(result.status == 0)
        #expect(result.stderr.contains("TROVE_TEST_KILL_AT=save.someday names no kill point"))
        #expect(try count("Photo", in: "photos.trove") == 50)
    }
}
