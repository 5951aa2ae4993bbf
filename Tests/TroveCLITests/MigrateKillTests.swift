import Foundation
import Testing
import Trove
import TroveTesting

/// `trove migrate` killed (SIGKILL) at every statement of its transaction, before and after its
/// commit, and at random moments: the store is whole (`PRAGMA integrity_check`), holds either
/// every old value (and opens with the old model) or every new one (and opens with the new),
/// never a mix; migrating again finishes the job.
@Suite struct MigrateKillTests {
    /// Rows bulk-loaded besides the 50 imported photos: a rebuilt table takes two copy statements.
    static let bulkRows = 25_000
    /// The history (its dates differ from run to run) is compared by its length instead.
    static let historyKey: Set<String> = ["trove.modelHistory"]

    let dir: TemporaryDirectory
    let oldContents: [String]
    let newContents: [String]
    let v1: Model
    let v2: Model
    /// How long an uninterrupted `trove migrate` took here, to choose the random moments.
    let migrationTime: Duration

    init() throws {
        dir = try TemporaryDirectory()
        let v1Text = try String(contentsOf: KillPointTests.sampleModel, encoding: .utf8)
        // v2 renames Photo.title (the column renamed), makes views a double (Photo rebuilt) and
        // drops Photographer.location (Photographer rebuilt).
        let v2Text = v1Text
            .replacingOccurrences(of: #"{ "name": "title", "type": "string", "max": 500 }"#,
                                  with: #"{ "name": "caption", "type": "string", "max": 500, "renamedFrom": "title" }"#)
            .replacingOccurrences(of: #""name": "views", "type": "integer64""#, with: #""name": "views", "type": "double""#)
            .replacingOccurrences(of: "},\n        { \"name\": \"location\", \"type\": \"string\" }", with: "}")
        try #require(v2Text.contains("renamedFrom") && !v2Text.contains("location") && v2Text.contains(#""type": "double", "default""#))
        try Data(v2Text.utf8).write(to: dir.file("v2.json"))
        v1 = try Model(contentsOf: KillPointTests.sampleModel)
        v2 = try Model(contentsOf: dir.file("v2.json"))

        try Data(KillPointTests.records.utf8).write(to: dir.file("photos.json"))
        #expect(try CLIRunner.run(["init", "template.trove", "--model", KillPointTests.sampleModel.path], in: dir.url).status == 0)
        #expect(try CLIRunner.run(["import", "template.trove", "photos.json", "--entity", "Photo", "--quiet"], in: dir.url).status == 0)
        try StoreIntegrity.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.bulkRows))
            INSERT INTO Photo (id, title, views) SELECT 'bulk' || i, 'Bulk ' || i, i FROM n
            """, onStoreAt: dir.file("template.trove"))
        oldContents = try StoreIntegrity.contents(ofStoreAt: dir.file("template.trove"), leavingOut: Self.historyKey)

        try Self.copy(dir.file("template.trove"), to: dir.file("reference.trove"))
        let clock = ContinuousClock()
        let start = clock.now
        let reference = try CLIRunner.run(["migrate", "reference.trove", "--model", "v2.json"], in: dir.url)
        migrationTime = start.duration(to: clock.now)
        try #require(reference.status == 0, "\(reference.stderr)")
        newContents = try StoreIntegrity.contents(ofStoreAt: dir.file("reference.trove"), leavingOut: Self.historyKey)
        try #require(oldContents != newContents)
    }

    static func copy(_ store: URL, to copy: URL) throws {
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: store.path + suffix) {
            try FileManager.default.copyItem(atPath: store.path + suffix, toPath: copy.path + suffix)
        }
    }

    /// A new copy of the template, named `name`.
    func freshStore(_ name: String) throws -> String {
        try Self.copy(dir.file("template.trove"), to: dir.file(name))
        return name
    }

    enum Found: Equatable { case old, new }

    /// Whether the store holds the old data or the new, checked whole; `nil` (with an issue
    /// recorded) for a mix or a damaged file.
    func state(of store: String, after what: String) throws -> Found? {
        let url = dir.file(store)
        #expect(try StoreIntegrity.problems(ofStoreAt: url) == [], "\(what)")
        let contents = try StoreIntegrity.contents(ofStoreAt: url, leavingOut: Self.historyKey)
        let history = try SQLiteStore(url: url).modelHistory()
        switch contents {
        case oldContents:
            #expect(history.count == 1, "\(what)")
            _ = try SQLiteStore(url: url, model: v1)
            return .old
        case newContents:
            #expect(history.map(\.version) == [v1.versionHash, v2.versionHash], "\(what)")
            _ = try SQLiteStore(url: url, model: v2)
            return .new
        default:
            Issue.record("\(what): the store holds neither the old data nor the new")
            return nil
        }
    }

    func migrate(_ store: String, killAt point: String? = nil) throws -> CLIRunner.Result {
        try CLIRunner.run(["migrate", store, "--model", "v2.json"], in: dir.url,
                          environment: point.map { ["TROVE_TEST_KILL_AT": $0] } ?? [:])
    }

    @Test func killedAtEveryStatementAndAroundItsCommitTheStoreIsOldOrNewNeverAMix() throws {
        var statements = 0
        for arrival in 1...200 {
            let store = try freshStore("statement-\(arrival).trove")
            let killed = try migrate(store, killAt: "migrate.statement#\(arrival)")
            guard killed.signaled else {
                // No statement number `arrival`: the migration ran to its end.
                #expect(killed.status == 0, "\(killed.stderr)")
                #expect(try state(of: store, after: "a migration of \(statements) statements") == .new)
                break
            }
            statements = arrival
            #expect(killed.status == SIGKILL)
            #expect(try state(of: store, after: "killed before statement \(arrival)") == .old)
        }
        // Two rebuilt tables (Photo copied in two statements), a renamed column, indexes.
        #expect(statements >= 8)
        for (point, expected) in [("migrate.before-commit", Found.old), ("migrate.after-commit", .new)] {
            let store = try freshStore("\(point).trove")
            let killed = try migrate(store, killAt: point)
            #expect(killed.signaled && killed.status == SIGKILL, "\(killed.stderr)")
            #expect(try state(of: store, after: point) == expected)
            if expected == .old {
                #expect(try migrate(store).status == 0)
                #expect(try state(of: store, after: "migrating again after \(point)") == .new)
            }
        }
    }

    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func killedAtARandomMomentTheStoreIsOldOrNewNeverAMix(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        // From the start of the process to a little past the end of a migration.
        let nanoseconds = migrationTime.components.seconds * 1_000_000_000 + migrationTime.components.attoseconds / 1_000_000_000
        let delay = UInt32(Int64.random(in: 0...(nanoseconds * 5 / 4), using: &random) / 1000)
        let store = try freshStore("random-\(seed).trove")
        let running = try CLIRunner.start(["migrate", store, "--model", "v2.json"], in: dir.url)
        usleep(delay)
        kill(running.process.processIdentifier, SIGKILL)
        let result = running.wait()
        let found = try state(of: store, after: "killed \(delay) µs after starting (seed \(seed)); \(result.stderr)")
        #expect(found != nil)
        if found == .old {
            #expect(try migrate(store).status == 0)
            #expect(try state(of: store, after: "migrating again (seed \(seed))") == .new)
        }
    }
}
