import Foundation
import Testing
import Trove
import TroveTesting

/// `trove import`'s limits and output files: option ranges, output paths checked before any
/// work, rejected records streamed to `--rejects` and `--report`, and messages that say what
/// happened.
extension ImportCommandTests {
    func photoCount() throws -> Int {
        try context().fetchCount("Photo")
    }

    @Test(arguments: ["1000000000", "100001", "0", "-3"])
    func aBatchSizeOutOfRangeExits1NamingTheRange(size: String) throws {
        let result = try importing("-", "--entity", "Photo", "--batch-size=\(size)", input: #"[{"id": "a"}]"#)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: --batch-size must be from 1 to 100000, not \(size)\n"), "\(result.stderr)")
        #expect(try photoCount() == 0)
    }

    @Test func theLargestBatchSizeImports() throws {
        let result = try importing("-", "--entity", "Photo", "--batch-size", "100000", "--quiet", input: #"[{"id": "a"}, {"id": "b"}]"#)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try photoCount() == 2)
    }

    @Test func anOutputPathThatCannotBeWrittenStopsTheCommandBeforeAnyWork() throws {
        try FileManager.default.createDirectory(at: dir.file("folder"), withIntermediateDirectories: false)
        try Data("[]".utf8).write(to: dir.file("file.json"))
        let input = #"[{"id": "a"}]"#

        let folder = try importing("-", "--entity", "Photo", "--rejects", "folder", input: input)
        #expect(folder.status == 1)
        #expect(folder.stderr == "trove: cannot write --rejects folder: it is a directory; give a file path, such as folder/rejects.ndjson; nothing was imported\n")

        let report = try importing("-", "--entity", "Photo", "--report", dir.file("folder").path, input: input)
        #expect(report.status == 1)
        #expect(report.stderr.contains("cannot write --report \(dir.file("folder").path): it is a directory"), "\(report.stderr)")

        let underAFile = try importing("-", "--entity", "Photo", "--rejects", "file.json/rejects.ndjson", input: input)
        #expect(underAFile.status == 1)
        #expect(underAFile.stderr == "trove: cannot write --rejects file.json/rejects.ndjson: a part of the path is not a folder; nothing was imported\n")

        let goodRejectsBadReport = try importing("-", "--entity", "Photo", "--rejects", "rejects.ndjson", "--report", "none/report.json", input: input)
        #expect(goodRejectsBadReport.status == 1)
        #expect(goodRejectsBadReport.stderr.contains("there is no folder"))
        #expect(!goodRejectsBadReport.stderr.contains("NSCocoaErrorDomain"))
        #expect(try photoCount() == 0, "nothing was imported")
    }

    @Test func aBooleanIntoAnIntegerSaysWhy() throws {
        let result = try importing("-", "--entity", "Photo", "--rejects", "rejects.ndjson", input: #"[{"id": "a", "views": true}]"#)
        #expect(result.status == 2)
        #expect(result.stderr.contains("record 0 at views: Photo.views: a boolean is never converted to integer64 (got true, expected integer64)\n"),
                "\(result.stderr)")
    }

    @Test func aFaultAfterOnlyRejectedRecordsDoesNotSayTheyWereImported() throws {
        let result = try importing("-", "--entity", "Photo", input: #"["",]"#)
        #expect(result.status == 2)
        #expect(result.stderr.hasSuffix("of the record before it, none was imported (1 rejected); fix the input and import it again\n"),
                "\(result.stderr)")

        let mixed = try importing("-", "--entity", "Photo", input: #"[{"id": "a"}, 7, {"id": "b"},]"#)
        #expect(mixed.status == 2)
        #expect(mixed.stderr.hasSuffix("of the 3 records before it, 2 were imported (1 rejected); fix the input and import it again\n"),
                "\(mixed.stderr)")
    }

    @Test func everyRejectedRecordReachesTheRejectsFileAndTheReportInOrder() throws {
        let count = ImportReport.rejectedKept * 2 + 17
        // Records without their key, and a few good ones.
        let records = (0..<count).map { #"{"title": "untitled \#($0)"}"# } + [#"{"id": "kept"}"#]
        let result = try importing("-", "--entity", "Photo", "--batch-size", "7", "--rejects", "rejects.ndjson", "--report", "report.json",
                                   input: "[" + records.joined(separator: ",\n") + "]")
        #expect(result.status == 2)
        #expect(result.stderr.contains("rejected \(count) records; the first 5:\n"))
        #expect(result.stderr.contains("  … and \(count - 5) more (all in rejects.ndjson)\n"))
        #expect(result.stderr.hasSuffix("trove: standard input: \(count) of \(count + 1) records were rejected and the other 1 imported; fix them in rejects.ndjson and import that file again\n"))

        let lines = try String(decoding: Data(contentsOf: dir.file("rejects.ndjson")), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == count)
        #expect(lines.first == #"{"title":"untitled 0"}"# && lines.last == #"{"title":"untitled \#(count - 1)"}"#)

        let text = try String(decoding: Data(contentsOf: dir.file("report.json")), as: UTF8.self)
        let report = try JSONDecoder().decode(ImportReport.self, from: Data(text.utf8))
        #expect(report.rejectedCount == count && report.recordsImported == 1)
        #expect(report.rejected.map(\.index) == Array(0..<count), "the report file lists every rejection, in input order")
        #expect(text.contains("\n  \"rejected\" : [\n    {\n      \"excerpt\" : "), "pretty, as the rest of the report")
        #expect(text.hasSuffix("}\n"))
    }

    @Test func aReportWithNoRejectionHasAnEmptyList() throws {
        let result = try importing("-", "--entity", "Photo", "--report", "report.json", "--quiet", input: #"[{"id": "a"}]"#)
        #expect(result.status == 0)
        let report = try JSONDecoder().decode(ImportReport.self, from: Data(contentsOf: dir.file("report.json")))
        #expect(report.rejected.isEmpty && report.rejectedCount == 0 && report.recordsImported == 1)
    }
}
