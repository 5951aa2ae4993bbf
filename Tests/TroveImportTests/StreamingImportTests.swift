import Foundation
import Testing
import GRDB
import Trove
@testable import TroveStore
import TroveTesting

/// Streamed imports: chunks with checkpoints saved in the same transaction, exact resume,
/// progress, faults in the middle.
@Suite struct StreamingImportTests {
    let dir: TemporaryDirectory
    let container: Container
    let context: ObjectContext

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(store: SQLiteStore(url: dir.file("flickr.trove"), model: SampleModels.flickr()))
        context = container.newBackgroundContext()
    }

    /// `count` photo records, owners shared, one record a line when `ndjson`.
    func photos(_ count: Int, titled title: String = "t", ndjson: Bool = false) -> String {
        let records = (1...count).map { #"{"id": "\#($0)", "title": "\#(title)\#($0)", "views": \#($0 * 3), "owner": {"nsid": "o\#($0 % 7)"}}"# }
        return ndjson ? records.joined(separator: "\n") + "\n" : "{\"photos\": {\"photo\": [\n" + records.joined(separator: ",\n") + "\n]}}"
    }

    func file(_ name: String, _ text: String) throws -> URL {
        let url = dir.file(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    func importer(batchSize: Int = 10, strict: Bool = false) -> Importer {
        Importer(context: context, options: ImportOptions(batchSize: batchSize, strict: strict))
    }

    func checkpoint() throws -> ImportCheckpoint? {
        try ImportCheckpoint.all(in: container.store).first { $0.entity == "Photo" }
    }

    /// Every photo as (id, title, views, owner), in id order.
    func contents(of context: ObjectContext? = nil) throws -> [String] {
        try (context ?? self.context).fetch("Photo", sortedBy: "id").map { photo in
            let owner = try photo.relatedObject(forKey: "owner")?.value(forKey: "nsid")
            return "\(try photo.value(forKey: "id")) \(try photo.value(forKey: "title")) \(try photo.value(forKey: "views")) \(String(describing: owner))"
        }
    }

    @Test func anImportRunsAsBulkWritingAndPutsTheStoreBack() throws {
        let store = try #require(container.store as? SQLiteStore)
        func pages() -> Int? { try? store.writer.write { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") } }
        var during: [Int?] = []
        let url = try file("photos.json", photos(35))
        _ = try importer().importStream(.file(url), into: "Photo", format: .json(root: "photos.photo"),
                                        progress: { _ in during.append(pages()) })
        #expect(during.count == 4 && during.allSatisfy { $0 == SQLiteStore.bulkCheckpointPages })
        #expect(pages() == 1000)
    }

    @Test func aStreamedImportLandsWhatTheWholeDocumentImportDoesAndLeavesNoCheckpoint() throws {
        let url = try file("photos.json", photos(95))
        var seen: [ImportProgress] = []
        let report = try importer().importStream(.file(url), into: "Photo", format: .json(root: "photos.photo"),
                                                 progress: { seen.append($0) })
        #expect(report.recordsRead == 95 && report.recordsImported == 95)
        #expect(report.entities["Photo"]?.inserted == 95 && report.entities["Owner"]?.inserted == 7)
        #expect(report.resumedAt == nil)
        #expect(try checkpoint() == nil, "the last chunk removes the checkpoint")
        let streamed = try contents()

        let other = try Container(store: SQLiteStore(url: dir.file("whole.trove"), model: SampleModels.flickr())).newBackgroundContext()
        _ = try Importer(context: other).importJSON(Data(photos(95).utf8), into: "Photo", root: "photos.photo")
        #expect(try contents(of: other) == streamed)
        #expect(streamed.count == 95 && streamed.first == #"1 "t1" 3 Optional("o1")"#)

        #expect(seen.map(\.recordsRead) == [10, 20, 30, 40, 50, 60, 70, 80, 90, 95])
        #expect(seen.map(\.isFinished) == Array(repeating: false, count: 9) + [true])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        #expect(seen.allSatisfy { $0.totalBytes == Int64(size) })
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.bytesRead < $1.bytesRead })
        #expect(seen.last?.fractionCompleted == 1)
        #expect(seen.dropLast().allSatisfy { $0.estimatedTimeRemaining != nil && $0.recordsPerSecond > 0 })
        #expect(seen.last?.estimatedTimeRemaining == .zero)
    }

    @Test func aCancelledImportKeepsItsCheckpointAndTheNextResumesExactly() throws {
        let url = try file("photos.ndjson", photos(95, ndjson: true))
        var chunks = 0
        #expect {
            _ = try importer().importStream(.file(url), into: "Photo", format: .ndjson, isCancelled: {
                chunks += 1
                return chunks == 3
            })
        } throws: { error in
            (error as? ImportError)?.code == .cancelled && (error as? ImportError)?.report?.recordsImported == 30
        }
        #expect(try context.fetchCount("Photo") == 30)
        let saved = try #require(try checkpoint())
        #expect(saved.records == 30 && saved.lines == 29 && saved.options == "ndjson, lenient")
        #expect(saved.input == url.path)

        var seen: [ImportProgress] = []
        let report = try importer().importStream(.file(url), into: "Photo", format: .ndjson, progress: { seen.append($0) })
        #expect(report.resumedAt == ImportReport.ResumePoint(records: 30, byteOffset: saved.byteOffset))
        #expect(seen.first.map { $0.isResumePoint && $0.recordsRead == 30 && $0.bytesRead == saved.byteOffset } == true,
                "the first progress says where the import resumes, before anything is read")
        #expect(seen.dropFirst().allSatisfy { !$0.isResumePoint } && seen.last?.isFinished == true)
        #expect(report.recordsRead == 65 && report.entities["Photo"]?.inserted == 65)
        #expect(try context.fetchCount("Photo") == 95)
        #expect(try checkpoint() == nil)
        #expect(try contents().count == 95)
    }

    @Test func theCheckpointIsSavedWithItsChunkOrNotAtAll() throws {
        var text = photos(45)
        text = text.replacingOccurrences(of: #""views": 75"#, with: #""views": "many""#)  // record 25, in the third chunk
        let url = try file("bad.json", text)
        #expect {
            _ = try importer(strict: true).importStream(.file(url), into: "Photo", format: .json(root: "photos.photo"))
        } throws: { error in
            (error as? ImportError)?.code == .recordRejected
        }
        #expect(try context.fetchCount("Photo") == 20)
        #expect(try checkpoint()?.records == 20, "the failed chunk wrote neither its records nor its checkpoint")

        // Resuming reaches the same record again and stops there again.
        let again = #expect(throws: ImportError.self) {
            _ = try importer(strict: true).importStream(.file(url), into: "Photo", format: .json(root: "photos.photo"))
        }
        #expect(again?.report?.resumedAt?.records == 20)
        #expect(again?.report?.rejected.first?.index == 24, "indexes count from the input's first record")
    }

    /// Imports `url` and cancels after `chunks` chunks; returns the error's report.
    func cancelled(_ url: URL, after chunks: Int, batchSize: Int = 10, strict: Bool = false) throws -> ImportReport? {
        var done = 0
        let error = #expect(throws: ImportError.self) {
            _ = try importer(batchSize: batchSize, strict: strict).importStream(
                .file(url), into: "Photo", format: .json(root: "photos.photo"), isCancelled: {
                    done += 1
                    return done == chunks
                })
        }
        #expect(error?.code == .cancelled)
        return error?.report
    }

    @Test func anotherInputOrOtherOptionsOrRestartStartOver() throws {
        let url = try file("photos.json", photos(45))
        _ = try cancelled(url, after: 1)
        #expect(try checkpoint()?.records == 10)

        let strict = try cancelled(url, after: 1, strict: true)
        #expect(strict?.resumedAt == nil, "other options start over")
        #expect(try checkpoint()?.options == "json at photos.photo, strict")

        _ = try cancelled(url, after: 2)
        #expect(try checkpoint()?.records == 20)
        let restarted = try importer().importStream(.file(url), into: "Photo", format: .json(root: "photos.photo"), resume: .restart)
        #expect(restarted.resumedAt == nil && restarted.recordsRead == 45)
        #expect(try checkpoint() == nil)

        let other = try file("other.json", photos(45, titled: "u"))
        _ = try cancelled(url, after: 2)
        let replaced = try importer().importStream(.file(other), into: "Photo", format: .json(root: "photos.photo"))
        #expect(replaced.resumedAt == nil && replaced.recordsRead == 45, "another input starts over")
        #expect(try contents().first == #"1 "u1" 3 Optional("o1")"#)
        #expect(try checkpoint() == nil)
    }

    @Test func aFileChangedPastItsFirst64KiBIsNoticedByTheLastRecordsDigest() throws {
        let url = try file("large.json", photos(1500))
        _ = try cancelled(url, after: 1, batchSize: 1000)
        let saved = try #require(try checkpoint())
        #expect(saved.records == 1000 && saved.lastRecordOffset > 64 * 1024)

        // Same size, same first 64 KiB; the checkpoint's last record differs.
        try Data(photos(1500).replacingOccurrences(of: #""title": "t1000""#, with: #""title": "x1000""#).utf8).write(to: url)
        let report = try importer(batchSize: 1000).importStream(.file(url), into: "Photo", format: .json(root: "photos.photo"))
        #expect(report.resumedAt == nil && report.recordsRead == 1500)
        #expect(try context.fetchFirst("Photo", whereKey: "id", equals: 1000)?.value(forKey: "title") == "x1000")
    }

    @Test func invalidJSONInTheMiddleKeepsEverythingBeforeIt() throws {
        let text = photos(35, ndjson: true).replacingOccurrences(of: #"{"id": "23", "#, with: #"{"id": "23",, "#)
        let url = try file("bad.ndjson", text)
        let error = #expect(throws: ImportError.self) {
            _ = try importer().importStream(.file(url), into: "Photo", format: .ndjson)
        }
        #expect(error?.code == .invalidJSON)
        #expect(error?.message.hasPrefix("invalid JSON at line 23, column 13 (byte ") == true)
        #expect(error?.message.hasSuffix("expected a string key, found ','; the 22 records before it were imported") == true)
        #expect(error?.report?.recordsImported == 22)
        #expect(try context.fetchCount("Photo") == 22)
        #expect(try checkpoint()?.records == 22)
    }

    @Test func aSyncScopeStartsOverAndWritesNoCheckpoint() throws {
        let url = try file("photos.json", photos(25))
        var options = ImportOptions(batchSize: 10)
        options.syncScope = try ObjectPredicate(format: "views > %d", 0)
        var saved: [ImportCheckpoint?] = []
        let report = try Importer(context: context, options: options).importStream(
            .file(url), into: "Photo", format: .json(root: "photos.photo"), progress: { _ in saved.append(try? self.checkpoint()) })
        #expect(report.recordsImported == 25)
        #expect(saved.count == 3 && saved.allSatisfy { $0 == nil })
    }
}

/// Imports on their own thread, with progress as an `AsyncSequence`, cancellation, and the
/// view context kept up to date.
@Suite struct BackgroundImportTests {
    let dir: TemporaryDirectory
    let container: Container

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(store: SQLiteStore(url: dir.file("flickr.trove"), model: SampleModels.flickr()))
    }

    func photos(_ count: Int) throws -> URL {
        let url = dir.file("photos-\(count).ndjson")
        let lines = (1...count).map { #"{"id": \#($0), "title": "t\#($0)", "owner": {"nsid": "o\#($0 % 5)"}}"# }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
        return url
    }

    @MainActor @Test func progressArrivesAsItGoesAndTheViewContextMergesTheChunks() async throws {
        let view = container.viewContext
        let early = try view.insert("Photo")
        _ = try early.setValue(1, forKey: "id")
        _ = try early.setValue("before", forKey: "title")
        try view.save()

        let job = container.startImport(.file(try photos(250)), into: "Photo", format: .ndjson, options: ImportOptions(batchSize: 50))
        var seen: [Int] = []
        for await progress in job.progress { seen.append(progress.recordsRead) }
        let report = try await job.report()
        #expect(seen == [50, 100, 150, 200, 250])
        #expect(report.entities["Photo"]?.inserted == 249 && report.entities["Photo"]?.updated == 1)

        // The view context merges each save on the main actor, after the import's thread made it.
        for _ in 0..<1000 where try early.value(forKey: "title") != "t1" { await Task.yield() }
        #expect(try early.value(forKey: "title") == "t1")
        #expect(try view.fetchCount("Photo") == 250)
    }

    @Test func cancellingStopsAtAChunkBoundaryWithTheCheckpointKept() async throws {
        let url = try photos(3000)
        let job = container.startImport(.file(url), into: "Photo", format: .ndjson, options: ImportOptions(batchSize: 10))
        job.cancel()  // asked after each chunk: the first chunk lands, then the import stops
        var seen: [Int] = []
        for await progress in job.progress { seen.append(progress.recordsRead) }
        #expect(seen == [10])
        let error = await #expect(throws: ImportError.self) { try await job.report() }
        #expect(error?.code == .cancelled)
        let saved = try #require(try ImportCheckpoint.all(in: container.store).first)
        #expect(saved.records == 10)
        let count = try await container.performBackgroundTask { try $0.fetchCount("Photo") }
        #expect(count == saved.records, "what was saved is what the checkpoint says")

        let rest = try await container.startImport(.file(url), into: "Photo", format: .ndjson).report()
        #expect(rest.resumedAt?.records == saved.records)
        #expect(rest.recordsRead == 3000 - saved.records)
        #expect(try await container.performBackgroundTask { try $0.fetchCount("Photo") } == 3000)
    }
}
