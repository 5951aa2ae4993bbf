import Foundation
import Testing
import Trove
import TroveTesting

/// A streamed import reads each chunk's stored rows ahead, on its reading thread, while the
/// chunks before it are saved. Rows read before a later save wrote them must not be used:
/// the result is the same as reading every chunk's rows just before saving it.
@Suite struct RowsReadAheadTests {
    let dir: TemporaryDirectory
    let container: Container

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(store: SQLiteStore(url: dir.file("s.trove"), model: RowImportTests.model()))
    }

    /// Imports `records` (JSON objects) one a chunk, so that reading ahead overlaps the saves of
    /// the chunks just before.
    func importOneAChunk(_ records: [String], progress: ((ImportProgress) -> Void)? = nil) throws -> ImportReport {
        let url = dir.file("in-\(UUID().uuidString).json")
        try Data(("[" + records.joined(separator: ",\n") + "]").utf8).write(to: url)
        let importer = Importer(context: container.newBackgroundContext(), options: ImportOptions(batchSize: 1))
        return try importer.importStream(.file(url), into: "Photo", progress: progress)
    }

    /// Every photo as `id "title" views`, in id order.
    func photos() throws -> [String] {
        try container.newBackgroundContext().fetch("Photo", sortedBy: "id").map { photo in
            "\(try photo.value(forKey: "id")) \(try photo.value(forKey: "title")) \(try photo.value(forKey: "views"))"
        }
    }

    @Test func aKeyTheChunksJustBeforeWroteIsReadAgain() throws {
        // Two photos, each named every second record, their titles going a, b, a, b: a chunk
        // whose rows were read before the last save of its photo would see the title it sets
        // as stored, count it unchanged and leave the other one in place.
        let records = (0..<400).map { i in #"{"id": \#(i % 2 + 1), "title": "\#((i / 2) % 2 == 0 ? "a" : "b")", "views": 7}"# }
        let report = try importOneAChunk(records)
        #expect(report.rejected.isEmpty)
        #expect(report.entities["Photo"]?.inserted == 2)
        #expect(report.entities["Photo"]?.updated == 398)
        #expect(report.entities["Photo"]?.unchanged == 0)
        #expect(try photos() == [#"1 "b" 7"#, #"2 "b" 7"#])
    }

    @Test func aKeyInsertedByTheChunkJustBeforeIsNotInsertedAgain() throws {
        // Each photo named by three chunks in a row: read ahead, the second and third would find
        // no row yet.
        let records = (0..<300).map { i in #"{"id": \#(i / 3 + 1), "title": "t\#(i)"}"# }
        let report = try importOneAChunk(records)
        #expect(report.rejected.isEmpty)
        #expect(report.entities["Photo"]?.inserted == 100)
        #expect(report.entities["Photo"]?.updated == 200)
        let titles = try photos()
        #expect(titles.count == 100)
        #expect(titles.first == #"1 "t2" 0"# && titles.last == #"100 "t299" 0"#)
    }

    @Test func aRowAnotherStoreWritesBetweenChunksIsSeen() throws {
        // After the second chunk, another store on the same file inserts photo 50, which a later
        // chunk names: rows read ahead before that write must not be used.
        let other = try Container(store: SQLiteStore(url: dir.file("s.trove"), model: RowImportTests.model()))
        let records = (1...60).map { #"{"id": \#($0), "title": "imported", "views": 1}"# }
        var wrote = false
        let report = try importOneAChunk(records) { progress in
            guard progress.recordsRead == 2, !wrote else { return }
            wrote = true
            let context = other.newBackgroundContext()
            do {
                let photo = try context.insert("Photo")
                try photo.setValue(50, forKey: "id")
                try photo.setValue("theirs", forKey: "title")
                try context.save()
            } catch {
                Issue.record("the other store's write failed: \(error)")
            }
        }
        #expect(wrote)
        #expect(report.rejected.isEmpty)
        #expect(report.entities["Photo"]?.inserted == 59)
        #expect(report.entities["Photo"]?.updated == 1)
        let all = try photos()
        #expect(all.count == 60)
        #expect(all.allSatisfy { $0.hasSuffix(#" "imported" 1"#) })
    }

    @Test func aNestedRowTheChunkJustBeforeChangedIsReadAgain() throws {
        // 25,000 owners, more than the importer keeps between chunks (RowCache.limit): the rows of
        // the last ones met are read ahead with each chunk. The chunk before the last renames
        // o22000, the last names it as it was: its row read ahead before that rename would count
        // it unchanged.
        var records = (0..<25_000).map { #"{"id": \#($0), "owner": {"id": "o\#($0)", "name": "n"}}"# }
        records += (25_000..<26_000).map { #"{"id": \#($0), "owner": {"id": "o22000", "name": "renamed"}}"# }
        records += (26_000..<27_000).map { #"{"id": \#($0), "owner": {"id": "o22000", "name": "n"}}"# }
        let url = dir.file("nested.json")
        try Data(("[" + records.joined(separator: ",\n") + "]").utf8).write(to: url)
        let importer = Importer(context: container.newBackgroundContext(), options: ImportOptions(batchSize: 1000))
        // The saving thread lingers after the last chunks, so that the reading one runs ahead.
        let report = try importer.importStream(.file(url), into: "Photo") { progress in
            if progress.recordsRead >= 24_000 { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(report.rejected.isEmpty)
        #expect(report.entities["Owner"]?.inserted == 25_000)
        #expect(report.entities["Owner"]?.updated == 2)
        let owner = try #require(try container.newBackgroundContext().fetch("Owner", where: "id == %@", "o22000").first)
        #expect(try owner.value(forKey: "name") == .string("n"))
    }

    @Test func onceAnImportReturnedItsReadingThreadHoldsNoStore() throws {
        // The reading thread may still be reading the next chunk when the import stops (here: a
        // strict import stopped by a rejected record); it must let the store go at once, so that
        // the caller's last reference closes it (and nothing reads it after).
        weak var released: SQLiteStore?
        try {
            let store = try SQLiteStore(url: dir.file("own.trove"), model: RowImportTests.model())
            released = store
            let container = try Container(store: store)
            let records = (1...5000).map { $0 == 1500 ? #"{"id": "x"}"# : #"{"id": \#($0), "title": "t"}"# }
            let url = dir.file("strict.json")
            try Data(("[" + records.joined(separator: ",") + "]").utf8).write(to: url)
            // Records past the rejected one are read slowly: the reading thread is still busy
            // with a chunk when the import stops.
            var hooks = ImportHooks()
            hooks.beforeRecord(of: "Photo") { record in
                if let id = record.objectValue?["id"]?.int64Value, id > 1500 { Thread.sleep(forTimeInterval: 0.002) }
                return record
            }
            let importer = Importer(context: container.newBackgroundContext(),
                                    options: ImportOptions(batchSize: 100, strict: true, hooks: hooks))
            #expect(throws: ImportError.self) { try importer.importStream(.file(url), into: "Photo") }
        }()
        #expect(released == nil)
    }
}
