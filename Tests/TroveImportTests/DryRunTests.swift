import Foundation
import Testing
import Trove
import TroveModel
import TrovePredicate
import TroveTesting

/// `ImportOptions.dryRun` (issue 21, item 5): the report a real run would give, nothing written.
@Suite struct DryRunTests {
    let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory()
    }

    /// A store of the Photos sample model at `name`, holding what `seed` imports.
    func store(_ name: String, seed: [JSONValue]) throws -> ObjectContext {
        let context = try Container(store: SQLiteStore(url: dir.file(name), model: SampleModels.photos())).newBackgroundContext()
        _ = try Importer(context: context).importRecords(seed, into: "Photo")
        return context
    }

    /// The bytes of a store's file and of its write-ahead log.
    func bytes(_ name: String) throws -> [Data] {
        let wal = dir.file(name + "-wal")
        return [try Data(contentsOf: dir.file(name)),
                FileManager.default.fileExists(atPath: wal.path) ? try Data(contentsOf: wal) : Data()]
    }

    /// Random Photo records: ids from a small pool (so a payload updates what earlier records
    /// and batches made), nested or referenced owners, and when `bad`, values that some rule rejects.
    static func records(count: Int, bad: Bool = false, using random: inout SeededGenerator) -> [JSONValue] {
        (0..<count).map { _ in
            var record: [(key: String, value: JSONValue)] = []
            // A bad record: no id, a title longer than max 80, views not a number, or below min 0.
            let fault = bad && Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0..<4, using: &random) : nil
            if fault != 0 { record.append(("id", .string("p\(Int.random(in: 0..<12, using: &random))"))) }
            switch fault == 1 ? 0 : Int.random(in: 1..<10, using: &random) {
            case 0: record.append(("title", .string(String(repeating: "x", count: 81))))
            case 1...5: record.append(("title", .string("t\(Int.random(in: 0..<3, using: &random))")))
            default: break
            }
            switch fault == 2 ? 0 : fault == 3 ? 1 : Int.random(in: 2..<10, using: &random) {
            case 0: record.append(("views", .string("lots")))
            case 1: record.append(("views", .number("-1")))
            case 2...6: record.append(("views", .number("\(Int.random(in: 0..<4, using: &random))")))
            default: break
            }
            if Bool.random(using: &random) { record.append(("upload_date", .string("2020-0\(Int.random(in: 1...9, using: &random))-01T00:00:00Z"))) }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: record.append(("owner", .object(["id": .string("a\(Int.random(in: 0..<4, using: &random))"),
                                                     "name": .string("n\(Int.random(in: 0..<3, using: &random))")])))
            case 1: record.append(("owner", .string("a\(Int.random(in: 0..<4, using: &random))")))
            case 2: record.append(("owner", .null))
            default: break
            }
            return .object(JSONObject(record))
        }
    }

    @Test func aDryRunReportsWhatARealRunDoesAndWritesNothing() throws {
        var random = SeededGenerator(seed: 21)
        var seen = (rejected: 0, updated: 0, deleted: 0, stopped: 0)
        for round in 0..<40 {
            let seed = Self.records(count: Int.random(in: 0..<15, using: &random), using: &random)
            let payload = Self.records(count: Int.random(in: 1..<30, using: &random), bad: Bool.random(using: &random), using: &random)
            let (dryName, realName) = ("dry\(round).trove", "real\(round).trove")
            let dry = try store(dryName, seed: seed)
            let real = try store(realName, seed: seed)
            var options = ImportOptions(batchSize: Int.random(in: 1...8, using: &random), strict: Int.random(in: 0..<5, using: &random) == 0)
            if Bool.random(using: &random) { options.syncScope = try ObjectPredicate(format: "views < 3") }
            let before = try bytes(dryName)

            func run(_ context: ObjectContext, dryRun: Bool) throws -> (report: ImportReport, rejected: [RejectedRecord], error: ImportError.Code?) {
                let rejected = Locked<[RejectedRecord]>([])
                var options = options
                options.dryRun = dryRun
                options.onRejected = { record in rejected.withLock { $0.append(record) } }
                do {
                    let report = try Importer(context: context, options: options).importRecords(payload, into: "Photo")
                    return (report, rejected.withLock { $0 }, nil)
                } catch let error as ImportError {
                    return (error.report ?? ImportReport(), rejected.withLock { $0 }, error.code)
                }
            }
            let rehearsed = try run(dry, dryRun: true)
            let done = try run(real, dryRun: false)
            #expect(rehearsed.report == done.report, "round \(round)")
            #expect(rehearsed.rejected == done.rejected, "round \(round): every rejected record handed over alike")
            #expect(rehearsed.error == done.error, "round \(round)")
            #expect(try bytes(dryName) == before, "round \(round): the store file and its -wal are unchanged")
            seen.rejected += done.report.rejectedCount > 0 ? 1 : 0
            seen.updated += (done.report.entities["Photo"]?.updated ?? 0) > 0 ? 1 : 0
            seen.deleted += (done.report.entities["Photo"]?.deleted ?? 0) > 0 ? 1 : 0
            seen.stopped += done.error == .recordRejected ? 1 : 0
        }
        #expect(seen.rejected > 5 && seen.rejected < 35 && seen.updated > 5 && seen.deleted > 2 && seen.stopped > 0, "the rounds cover every outcome: \(seen)")
    }

    @Test func aDryRunSeesEarlierBatchesAndLeavesNoCheckpoint() throws {
        let context = try store("photos.trove", seed: [])
        // Ten records of one photo, a batch each: a real run inserts it once, then updates it.
        let lines = (0..<10).map { #"{"id": "p1", "views": \#($0), "owner": {"id": "ann"}}"# }
        let input = dir.file("photos.ndjson")
        try Data(lines.joined(separator: "\n").utf8).write(to: input)
        let before = try bytes("photos.trove")
        let report = try Importer(context: context, options: ImportOptions(batchSize: 1, dryRun: true))
            .importStream(.file(input), into: "Photo", format: .ndjson)
        #expect(report.entities["Photo"]?.inserted == 1 && report.entities["Photo"]?.updated == 9)
        #expect(report.entities["Photographer"]?.inserted == 1)
        #expect(try bytes("photos.trove") == before)
        #expect(try context.store.metadata().keys.filter { $0.hasPrefix("trove.import") }.isEmpty, "no checkpoint")
        #expect(try context.store.count(of: "Photo") == 0)
    }

    @Test func aDryRunWorksOnAnInMemoryStoreAndAStoreOpenedForReading() throws {
        let memory = try Container(store: SQLiteStore(inMemoryWith: SampleModels.photos())).newBackgroundContext()
        let json = Data(#"[{"id": "p1"}, {"id": "p2", "views": "lots"}]"#.utf8)
        let report = try Importer(context: memory, options: ImportOptions(dryRun: true)).importJSON(json, into: "Photo")
        #expect(report.entities["Photo"]?.inserted == 1 && report.rejectedCount == 1)
        #expect(try memory.store.count(of: "Photo") == 0)

        _ = try store("read.trove", seed: [.object(["id": .string("p9")])])
        let readOnly = try SQLiteStore(url: dir.file("read.trove"), options: SQLiteStore.Options(readOnly: true))
        let reading = try Container(store: readOnly).newBackgroundContext()
        let again = try Importer(context: reading, options: ImportOptions(dryRun: true)).importJSON(json, into: "Photo")
        #expect(again.entities["Photo"]?.inserted == 1)
        #expect(try readOnly.count(of: "Photo") == 1)
    }
}
