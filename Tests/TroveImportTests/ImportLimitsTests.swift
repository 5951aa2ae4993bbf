import Foundation
import TroveModel
import Testing
import Trove
@testable import TroveImport
import TroveTesting

/// What an import holds and accepts: batch sizes within their range, a report that keeps the
/// count of rejected records and the first few, every one handed over as the import goes.
extension StreamingImportTests {
    @Test(arguments: [0, -1, ImportOptions.batchSizes.upperBound + 1, 1_000_000_000, Int.max])
    func aBatchSizeOutOfRangeIsRefusedBeforeAnythingIsRead(size: Int) throws {
        let importer = Importer(context: context, options: ImportOptions(batchSize: size))
        let data = Data(#"[{"id": 1}]"#.utf8)
        let url = dir.file("photos.json")
        try data.write(to: url)
        for run in [{ try importer.importJSON(data, into: "Photo") },
                    { try importer.importRecords([["id": 1]], into: "Photo") },
                    { try importer.importStream(.file(url), into: "Photo") }] {
            let error = try #require(throws: ImportError.self) { try run() }
            #expect(error.code == .invalidOptions)
            #expect(error.message == "the batch size must be from 1 to 100000 records, not \(size)")
        }
        #expect(try context.fetchCount("Photo") == 0)
    }

    @Test func theReportKeepsTheCountAndTheFirstRejectionsAndTheHandlerSeesEveryOne() throws {
        let count = ImportReport.rejectedKept * 3 + 5
        let seen = Locked<[Int]>([])
        var options = ImportOptions(batchSize: 9)
        options.onRejected = { record in seen.withLock { $0.append(record.index) } }
        // Every other record lacks its key.
        let records: [JSONValue] = (0..<(count * 2)).map { $0 % 2 == 0 ? ["title": "no key"] : ["id": .integer(Int64($0))] }
        let report = try Importer(context: context, options: options).importRecords(records, into: "Photo")
        #expect(report.rejectedCount == count)
        #expect(report.rejected.count == ImportReport.rejectedKept)
        #expect(report.rejected.map(\.index) == (0..<ImportReport.rejectedKept).map { $0 * 2 }, "the first ones, in input order")
        #expect(seen.withLock { $0 } == (0..<count).map { $0 * 2 }, "every one, once, in input order")
        #expect(report.recordsImported == count && report.recordsRead == count * 2)
        #expect(report.description.hasSuffix("  … and \(count - ImportReport.rejectedKept) more rejected records"))
    }

    @Test func mergingKeepsTheFirstRejectionsAndCountsThemAll() throws {
        var total = ImportReport()
        for batch in 0..<3 {
            var part = ImportReport()
            part.rejected = (0..<60).map { RejectedRecord(index: batch * 60 + $0, path: "", excerpt: "", expected: "", reason: "r", record: "{}") }
            part.rejectedCount = 60
            total.merge(part)
        }
        #expect(total.rejectedCount == 180)
        #expect(total.rejected.map(\.index) == Array(0..<ImportReport.rejectedKept))
    }

    @Test func aHandlerThatThrowsStopsTheImport() throws {
        struct Full: Error {}
        var options = ImportOptions(batchSize: 2)
        options.onRejected = { _ in throw Full() }
        let records: [JSONValue] = [["id": 1], ["id": 2], ["title": "no key"], ["id": 4], ["id": 5]]
        #expect(throws: Full.self) { try Importer(context: context, options: options).importRecords(records, into: "Photo") }
        #expect(try context.fetchCount("Photo") == 3, "the batches up to the rejected record's are saved; the rest are not read")
    }

    @Test func aValueOfTheWrongKindGivesAReason() throws {
        let report = try Importer(context: context).importRecords([["id": 1, "views": true], ["id": 2, "title": ["a"]]], into: "Photo")
        #expect(report.rejected.map(\.reason) == ["Photo.views: a boolean is never converted to integer32",
                                                  "Photo.title: an array is never converted to string"])
    }
}
