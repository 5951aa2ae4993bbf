import Foundation
import Testing
import Trove
import TroveTesting

/// Several `trove import` processes at once on one store, their records sharing nested keys:
/// every one succeeds, and the store holds what running them one after the other would.
@Suite struct ConcurrentImportTests {
    static let rounds = 20
    static let owners = 8
    static let photos = 24

    /// A round's photos named `prefix`, each with an owner from the round's pool: nested (with
    /// its name) or named by key only, and tags by name when `tagged` (which goes through objects).
    static func photos(round: Int, prefix: String, nested: Bool, tagged: Bool, shift: Int) -> String {
        let records = (0..<photos).map { i in
            let nsid = "o\(round)-\((i + shift) % owners)"
            let owner = nested ? #"{"nsid": "\#(nsid)", "username": "Owner \#(nsid)"}"# : #""\#(nsid)""#
            let tags = tagged ? #", "tags": ["t\#(round)-\#(i % 4)", "common"]"# : ""
            return #"{"id": "\#(prefix)\#(round)-\#(i)", "title": "T\#(i)", "owner": \#(owner)\#(tags)}"#
        }
        return "[" + records.joined(separator: ",\n") + "]"
    }

    @Test func fourImportsOfOverlappingOwnersAndTheSameFileAllSucceedWithExactCounts() throws {
        let dir = try TemporaryDirectory()
        let created = try CLIRunner.run(["init", "photos.trove", "--model", ImportCommandTests.sampleModel.path], in: dir.url)
        try #require(created.status == 0, "\(created.stderr)")
        for round in 0..<Self.rounds {
            // Two processes import the same file (rows); one tagged photos with the same owners
            // (objects); one photos naming the owners by key only (stubs, rows).
            let files = [("shared.json", Self.photos(round: round, prefix: "s", nested: true, tagged: false, shift: 0)),
                         ("tagged.json", Self.photos(round: round, prefix: "t", nested: true, tagged: true, shift: 3)),
                         ("named.json", Self.photos(round: round, prefix: "n", nested: false, tagged: false, shift: 5))]
            for (name, text) in files { try Data(text.utf8).write(to: dir.file(name)) }
            let running = try ["shared.json", "shared.json", "tagged.json", "named.json"].map { file in
                try CLIRunner.start(["import", "photos.trove", file, "--entity", "Photo", "--batch-size", "4", "--quiet"], in: dir.url)
            }
            for (process, result) in running.map({ ($0, $0.wait()) }) {
                #expect(result.status == 0, "round \(round), process \(process.process.processIdentifier): \(result.stderr)")
            }
            let context = try Container(store: SQLiteStore(url: dir.file("photos.trove"))).newBackgroundContext()
            let done = round + 1
            #expect(try context.fetchCount("Photographer") == done * Self.owners, "round \(round)")
            #expect(try context.fetchCount("Photo") == done * Self.photos * 3, "round \(round)")
            #expect(try context.fetchCount("Tag") == done * 4 + 1, "round \(round)")
            #expect(try context.fetchCount("Photo", where: "whoTook == nil") == 0, "round \(round)")
            #expect(try context.fetchCount("Photographer", where: "name == nil") == 0, "round \(round)")
            #expect(try context.fetchCount("Photo", where: "id BEGINSWITH 't' AND tags.@count != 2") == 0, "round \(round)")
            // The owner of each photo is the one its record named.
            for photo in try context.fetch("Photo", where: "id ENDSWITH %@", "\(round)-\(round % Self.photos)") {
                guard case .string(let id) = try photo.value(forKey: "id") else {
                    Issue.record("a photo id that is not a string")
                    continue
                }
                let shift = id.hasPrefix("s") ? 0 : id.hasPrefix("t") ? 3 : 5
                let owner = try photo.relatedObject(forKey: "whoTook")?.value(forKey: "id")
                #expect(owner == .string("o\(round)-\((round % Self.photos + shift) % Self.owners)"), "\(id)")
            }
        }
    }
}
