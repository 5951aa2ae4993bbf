import Foundation
import Testing
import Trove
import TroveTesting

/// `trove import` end to end: the built binary on a store made by `trove init` from the sample
/// model (Examples/Photos/model.json), run in a temporary folder so paths print as given.
@Suite struct ImportCommandTests {
    let dir: TemporaryDirectory

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let sampleModel = repository.appendingPathComponent("Examples/Photos/model.json")

    /// Five records the way a web service sends them: numbers and dates as strings, unknown
    /// keys, nested and referenced owners, tags by name, a duplicate, and one bad value.
    static let messy = """
        [{"id": "p1", "title": "Sunset", "views": "1200", "dateupload": "1311460240", "ispublic": 1,
          "o_width": "640", "farm": 3, "owner": {"nsid": "ann", "username": "Ann", "location": "Oslo"}, "tags": ["sea", "sky"]},
         {"id": 2, "title": 1984, "upload_date": "2011-07-23T22:30:40.5+02:00", "views": 5, "ispublic": "true", "owner": "ann", "secret": "x"},
         {"id": "p3", "views": "lots", "owner": {"nsid": "bob"}},
         {"id": "p1", "views": 1300, "tags": ["sea"]},
         {"id": "p4", "latitude": "47.6", "longitude": -122.3, "owner": {"id": "carl"}, "url_m": "https://example.com/p4.jpg", "farm": 1}]
        """

    init() throws {
        dir = try TemporaryDirectory()
        let created = try run("init", "photos.trove", "--model", Self.sampleModel.path)
        try #require(created.status == 0, "\(created.stderr)")
    }

    /// Runs `trove` in the temporary folder.
    func run(_ arguments: String..., input: String = "") throws -> CLIRunner.Result {
        try CLIRunner.run(arguments, input: Data(input.utf8), in: dir.url)
    }

    /// Runs `trove import photos.trove` with `arguments`.
    func importing(_ arguments: String..., input: String = "") throws -> CLIRunner.Result {
        try CLIRunner.run(["import", "photos.trove"] + arguments, input: Data(input.utf8), in: dir.url)
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: dir.file(name))
    }

    func read(_ name: String) throws -> String {
        try String(decoding: Data(contentsOf: dir.file(name)), as: UTF8.self)
    }

    /// A fresh context on the store, to look at what the command wrote.
    func context() throws -> ObjectContext {
        try Container(store: SQLiteStore(url: dir.file("photos.trove"))).newBackgroundContext()
    }

    // MARK: Importing

    @Test func aMessyFileLandsWithExactCountsAndExit2ForItsRejection() throws {
        try write("messy.json", Self.messy)
        let result = try importing("messy.json", "--entity", "Photo")
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty, "stdout carries data only")
        #expect(result.stderr == """
            imported messy.json into Photo: 5 records read, 4 imported, 1 rejected
                            inserted  updated  unchanged  deleted  stubs
              Photo                3        0          0        0      0
              Photographer         2        0          0        0      0
              Tag                  0        0          0        0      2
            coercions: numberToString 2, stringToInteger 2, epochSecondsToDate 1, numberToBoolean 1, stringToBoolean 1, stringToDate 1, and 2 more kinds
            unknown keys (ignored): Photo.farm 2, Photo.secret 1
            rejected 1 record:
              record 2 at views: Photo.views: not a number (got "lots", expected integer64)
            applied through objects, the slower path, because Photo records set to-many relationships
            trove: messy.json: 1 of 5 records was rejected and the other 4 imported; --rejects FILE writes them out to fix and import again

            """)

        let context = try context()
        #expect(try context.fetchCount("Photo") == 3)
        let p1 = try #require(try context.fetchFirst("Photo", whereKey: "id", equals: "p1"))
        #expect(try p1.value(forKey: "views") == 1300, "later values win")
        #expect(try p1.value(forKey: "width") == 640)
        #expect(try p1.value(forKey: "uploadDate") == .date(Date(timeIntervalSince1970: 1_311_460_240)))
        #expect(try p1.relatedObjects(forKey: "tags").map { try $0.value(forKey: "name") } == ["sea"])
        let p2 = try #require(try context.fetchFirst("Photo", whereKey: "id", equals: "2"))
        #expect(try p2.value(forKey: "title") == "1984")
        #expect(try p2.value(forKey: "uploadDate") == .date(Date(timeIntervalSince1970: 1_311_453_040.5)))
        #expect(try p2.relatedObject(forKey: "whoTook")?.value(forKey: "name") == "Ann")
        #expect(try context.fetchFirst("Photographer", whereKey: "id", equals: "bob") == nil,
                "a rejected record leaves nothing of itself")

        let clean = try importing("-", "--entity", "Photographer", input: #"[{"nsid": "bob", "username": "Bob"}]"#)
        #expect(clean.status == 0)
        #expect(clean.stderr == """
            imported standard input into Photographer: 1 record read, 1 imported, 0 rejected
                            inserted  updated  unchanged  deleted  stubs
              Photographer         1        0          0        0      0

            """)
    }

    @Test func theRejectsFileHoldsTheOriginalRecordsToFixAndImportAgain() throws {
        try write("messy.json", Self.messy.replacingOccurrences(of: #""ispublic": "true""#, with: #""ispublic": "maybe""#))
        let result = try importing("messy.json", "--entity", "Photo", "--rejects", "rejects.ndjson")
        #expect(result.status == 2)
        #expect(result.stderr.contains("rejected 2 records:\n  record 1 at ispublic: Photo.isPublic: a boolean is one of true, false, yes, no, 1, 0 (got \"maybe\", expected boolean)\n  record 2 at views:"))
        #expect(result.stderr.contains("wrote rejected records (NDJSON) in rejects.ndjson\n"))
        #expect(result.stderr.hasSuffix("trove: messy.json: 2 of 5 records were rejected and the other 3 imported; fix them in rejects.ndjson and import that file again\n"))

        let lines = try read("rejects.ndjson").split(separator: "\n").map(String.init)
        let originals = try #require(try JSONValue(parsing: Data(Self.messy.utf8)).arrayValue)
        #expect(lines.count == 2)
        #expect(try lines.map { try JSONValue(parsing: Data($0.utf8)) } == [
            originals[1].replacing("ispublic", with: "maybe"), originals[2],
        ], "each line is one original record, as sent")
        #expect(lines[1] == #"{"id":"p3","owner":{"nsid":"bob"},"views":"lots"}"#)

        // Fixed, the lines import (as an array, until --ndjson lands) and the file empties.
        let fixed = "[" + lines.joined(separator: ",").replacingOccurrences(of: "maybe", with: "yes")
            .replacingOccurrences(of: "lots", with: "7") + "]"
        let again = try importing("-", "--entity", "Photo", "--rejects", "rejects.ndjson", "--quiet", input: fixed)
        #expect(again.status == 0 && again.stderr.isEmpty)
        #expect(try read("rejects.ndjson").isEmpty)
        let context = try context()
        #expect(try context.fetchCount("Photo") == 4)
        #expect(try context.fetchFirst("Photo", whereKey: "id", equals: "p3")?.value(forKey: "views") == 7)
        #expect(try context.fetchFirst("Photographer", whereKey: "id", equals: "bob") != nil)
    }

    @Test func theReportFileIsTheImportReportAsJSON() throws {
        try write("messy.json", Self.messy)
        let result = try importing("messy.json", "--entity", "Photo", "--report", "report.json")
        #expect(result.status == 2)
        #expect(result.stderr.contains("wrote report (JSON) in report.json\n"))
        let text = try read("report.json")
        #expect(text.hasPrefix("{\n  \"appliedAsObjects\" : \"Photo records set to-many relationships\",\n  \"coercions\" : {\n    \"epochSecondsToDate\" : 1,"),
                "pretty, keys sorted")
        let report = try JSONDecoder().decode(ImportReport.self, from: Data(text.utf8))
        #expect(report.recordsRead == 5 && report.recordsImported == 4 && report.recordsSkipped == 0)
        #expect(report.entities["Photo"]?.inserted == 3)
        #expect(report.entities["Photographer"]?.inserted == 2)
        #expect(report.entities["Tag"]?.stubs == 2)
        #expect(report.coercions == [.numberToString: 2, .stringToInteger: 2, .epochSecondsToDate: 1, .numberToBoolean: 1,
                                     .stringToBoolean: 1, .stringToDate: 1, .stringToDouble: 1, .stringToURL: 1])
        #expect(report.unknownKeys == ["Photo.farm": 2, "Photo.secret": 1])
        let rejected = try #require(report.rejected.first)
        #expect(report.rejected.count == 1)
        #expect(rejected.index == 2 && rejected.path == "views" && rejected.excerpt == #""lots""# && rejected.expected == "integer64")
        #expect(rejected.record == #"{"id":"p3","owner":{"nsid":"bob"},"views":"lots"}"#)
    }

    @Test func standardInputAndRoot() throws {
        let response = #"{"photos": {"page": 1, "photo": [{"id": "a"}, {"id": "b", "views": "3"}]}, "stat": "ok"}"#
        let rooted = try importing("-", "--entity", "Photo", "--root", "photos.photo", input: response)
        #expect(rooted.status == 0)
        #expect(rooted.stderr.hasPrefix("imported standard input (photos.photo) into Photo: 2 records read, 2 imported, 0 rejected\n"))
        #expect(try context().fetchCount("Photo") == 2)

        let single = try importing("-", "--entity", "Photo", "--quiet", input: #"{"id": "c"}"#)
        #expect(single.status == 0, "a single object is one record")
        #expect(try context().fetchCount("Photo") == 3)

        let lost = try importing("-", "--entity", "Photo", "--root", "photos.photos", input: response)
        #expect(lost.status == 2)
        #expect(lost.stderr == "trove: standard input: the input has no key path 'photos.photos': 'photos' is missing; check --root\n")
        let scalar = try importing("-", "--entity", "Photo", "--root", "stat", input: response)
        #expect(scalar.status == 2)
        #expect(scalar.stderr.contains("expected an array of records or one record at 'stat', found string"))
    }

    @Test func strictStopsWithNothingOfTheFailingBatchWritten() throws {
        try write("four.json", #"[{"id": "1"}, {"id": "2"}, {"id": "3", "views": "x"}, {"id": "4"}]"#)
        let result = try importing("four.json", "--entity", "Photo", "--strict", "--batch-size", "2", "--rejects", "rejects.ndjson")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("stopped (--strict) importing four.json into Photo: 3 records read, 2 imported, 1 rejected\n"))
        #expect(result.stderr.hasSuffix("trove: four.json: strict import stopped at record 2 at views: Photo.views: not a number (got \"x\", expected integer64); nothing of its batch was written; fix the record and import again\n"))
        #expect(try read("rejects.ndjson") == #"{"id":"3","views":"x"}"# + "\n")
        let context = try context()
        #expect(try context.fetch("Photo", sortedBy: "id").map { try $0.value(forKey: "id") } == ["1", "2"],
                "the first batch landed; record 3's batch wrote nothing, not even record 4")
    }

    @Test func syncScopeDeletesWhatTheInputNoLongerHas() throws {
        try write("three.json", #"[{"id": "a", "views": 1}, {"id": "b", "views": 2}, {"id": "c", "views": 9}]"#)
        #expect(try importing("three.json", "--entity", "Photo", "--quiet").status == 0)

        let synced = try importing("-", "--entity", "Photo", "--sync-scope", "views < 5", input: #"[{"id": "a", "views": 1}]"#)
        #expect(synced.status == 0)
        #expect(synced.stderr.contains("\n  Photo          0        0          1        1      0\n"))
        #expect(synced.stderr.hasSuffix("sync scope (views < 5): deleted 1 Photo object not in the input\n"))
        #expect(try context().fetch("Photo", sortedBy: "id").map { try $0.value(forKey: "id") } == ["a", "c"])

        let held = try importing("-", "--entity", "Photo", "--sync-scope", "views < 5", input: #"[{"id": "z", "views": "many"}]"#)
        #expect(held.status == 2)
        #expect(held.stderr.contains("sync scope (views < 5): 1 record(s) were rejected, so the payload is not the whole truth; nothing was deleted\n"))
        #expect(try context().fetchCount("Photo") == 2)
    }

    @Test func reimportingTheSameFileReportsEverythingUnchanged() throws {
        try write("messy.json", Self.messy)
        _ = try importing("messy.json", "--entity", "Photo", "--quiet")
        let again = try importing("messy.json", "--entity", "Photo", "--report", "again.json")
        #expect(again.stderr.contains("""
                            inserted  updated  unchanged  deleted  stubs
              Photo                0        0          3        0      0
              Photographer         0        0          2        0      0

            """))
        let report = try JSONDecoder().decode(ImportReport.self, from: Data(contentsOf: dir.file("again.json")))
        #expect(report.entities.values.allSatisfy { $0.inserted == 0 && $0.updated == 0 && $0.deleted == 0 && $0.stubs == 0 })
    }

    /// The documented limit of per-batch saves (the catalog's article "Importing JSON"): a key repeated with other
    /// values in a *later batch* is written again on re-import — each batch saves its own copy
    /// in turn — though later values still win. Within one batch a re-import writes nothing.
    @Test func aDuplicateInALaterBatchIsWrittenAgainOnReimportAndLaterValuesWin() throws {
        try write("dup.json", #"[{"id": "a", "views": 1}, {"id": "b"}, {"id": "a", "views": 2}]"#)
        _ = try importing("dup.json", "--entity", "Photo", "--quiet", "--batch-size", "2")
        let again = try importing("dup.json", "--entity", "Photo", "--report", "again.json", "--batch-size", "2")
        #expect(again.status == 0)
        let report = try JSONDecoder().decode(ImportReport.self, from: Data(contentsOf: dir.file("again.json")))
        #expect(report.entities["Photo"]?.updated == 2, "batch 1 sets views back to 1, batch 2 to 2")
        #expect(try context().fetchFirst("Photo", whereKey: "id", equals: "a")?.value(forKey: "views") == 2, "later values win")
        let together = try importing("dup.json", "--entity", "Photo", "--report", "one.json", "--batch-size", "10")
        #expect(together.status == 0)
        let oneBatch = try JSONDecoder().decode(ImportReport.self, from: Data(contentsOf: dir.file("one.json")))
        #expect(oneBatch.entities["Photo"]?.updated == 0, "in one batch the duplicate changes nothing")
    }

    @Test func anInterruptedImportOfStandardInputResumesAndInspectShowsTheCheckpoint() throws {
        let lines = (1...7).map { #"{"id": "\#($0)", "views": \#($0 == 6 ? "\"many\"" : "\($0)")}"# }
        let input = lines.joined(separator: "\n") + "\n"
        let first = try importing("-", "--entity", "Photo", "--ndjson", "--strict", "--batch-size", "2", input: input)
        #expect(first.status == 2)
        #expect(try context().fetchCount("Photo") == 4)
        let inspect = try run("inspect", "photos.trove")
        #expect(inspect.stdout.contains("import checkpoints (an interrupted import resumes here when run again):\n  Photo: 4 records (95 bytes) of standard input imported, ndjson, strict, saved "))

        let again = try importing("-", "--entity", "Photo", "--ndjson", "--strict", "--batch-size", "2", input: input)
        #expect(again.status == 2)
        #expect(again.stderr.hasPrefix("trove import standard input: resuming an interrupted import after record 4 (byte 95)\n"),
                "said before anything is read, so a run killed again has said it too")
        #expect(again.stderr.contains("\nresumed an interrupted import after record 4 (byte 95); the counts are this run's\n"))
        #expect(again.stderr.contains("strict import stopped at record 5 at views"), "record indexes count from the input's start")

        let restarted = try importing("-", "--entity", "Photo", "--ndjson", "--restart", input: input)
        #expect(restarted.status == 2)
        #expect(restarted.stderr.hasPrefix("imported standard input into Photo: 7 records read, 6 imported, 1 rejected\n"))
        #expect(!restarted.stderr.contains("resumed"))
        #expect(try context().fetchCount("Photo") == 6)
        #expect(!(try run("inspect", "photos.trove").stdout.contains("checkpoint")), "the last chunk removed it")
    }

    // MARK: Errors

    @Test func invalidJSONExits2WithLineColumnAndOffsetKeepingTheRecordsBeforeIt() throws {
        try write("bad.json", "[{\"id\": \"1\"},\n {\"id\": \"2\",}]")
        let result = try importing("bad.json", "--entity", "Photo", "--report", "report.json")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("stopped (invalid JSON) importing bad.json into Photo: 1 record read, 1 imported, 0 rejected\n"))
        #expect(result.stderr.hasSuffix("trove: bad.json: invalid JSON at line 2, column 13 (byte 26): trailing comma before '}'; the record before it was imported; fix the input and import it again\n"))
        #expect(try context().fetchCount("Photo") == 1)
        let report = try JSONDecoder().decode(ImportReport.self, from: Data(contentsOf: dir.file("report.json")))
        #expect(report.recordsImported == 1, "the report tells what landed before the fault")

        try write("first.json", "[{\"id\": \"3\",}]")
        let first = try importing("first.json", "--entity", "Photo", "--quiet")
        #expect(first.stderr == "trove: first.json: invalid JSON at line 1, column 13 (byte 12): trailing comma before '}'; nothing was imported; fix the input and import it again\n")
        #expect(try context().fetchCount("Photo") == 1)
    }

    @Test func usageErrorsExit1BeforeAnythingIsImported() throws {
        let entity = try importing("-", "--entity", "Photos", input: "[]")
        #expect(entity.status == 1)
        #expect(entity.stderr == "trove: photos.trove has no entity 'Photos'; its entities are: Photographer, Photo, Tag\n")

        let scope = try importing("-", "--entity", "Photo", "--sync-scope", "veiws < 5", input: #"[{"id": "a"}]"#)
        #expect(scope.status == 1)
        #expect(scope.stderr == "trove: --sync-scope: invalid predicate at column 1: Photo has no key 'veiws'; did you mean 'views'?\n  veiws < 5\n  ^\n")

        let missing = try importing("nowhere.json", "--entity", "Photo")
        #expect(missing.status == 1)
        #expect(missing.stderr == "trove: no input file at nowhere.json; give a JSON file, or - to read standard input\n")

        let batch = try importing("-", "--entity", "Photo", "--batch-size", "0", input: "[]")
        #expect(batch.status == 1)
        #expect(batch.stderr.hasPrefix("Error: --batch-size must be from 1 to 100000, not 0\n"))

        let noFolder = try importing("-", "--entity", "Photo", "--rejects", "no/such/rejects.ndjson", input: #"[{"id": "a"}]"#)
        #expect(noFolder.status == 1)
        #expect(noFolder.stderr.contains("there is no folder"))

        let both = try importing("-", "--entity", "Photo", "--ndjson", "--root", "photos", input: "{}")
        #expect(both.status == 1)
        #expect(both.stderr.hasPrefix("Error: --root picks an array inside JSON text; NDJSON has one record per line"))
        #expect(try context().fetchCount("Photo") == 0)
    }

    @Test func aMissingStoreExits3AndIsNotCreated() throws {
        let result = try run("import", "none.trove", "-", "--entity", "Photo", input: #"[{"id": "a"}]"#)
        #expect(result.status == 3)
        #expect(result.stderr.contains("no store at "))
        #expect(result.stderr.contains("create one with `trove init"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("none.trove").path))
    }

    @Test func quietPrintsNothingOnSuccessAndOneLineOnRejection() throws {
        let ok = try importing("-", "--entity", "Photo", "--quiet", input: #"[{"id": "a", "views": "3"}]"#)
        #expect(ok.status == 0)
        #expect(ok.stdout.isEmpty && ok.stderr.isEmpty)
        let bad = try importing("-", "--entity", "Photo", "--quiet", input: #"[{"id": "b", "views": "x"}]"#)
        #expect(bad.status == 2)
        #expect(bad.stderr == "trove: standard input: 1 of 1 records was rejected and the other 0 imported; --rejects FILE writes them out to fix and import again\n")
    }

    // MARK: The sample data

    /// What `./scripts/demo` imports and the article "Importing JSON" shows: run from the
    /// repository, as the demo does.
    @Test func theBundledSampleImportsAsTheDocumentationSays() throws {
        let store = dir.file("sample.trove").path
        #expect(try CLIRunner.run(["init", store, "--model", "Examples/Photos/model.json"], in: Self.repository).status == 0)
        let result = try CLIRunner.run(["import", store, "Examples/Photos/photos.json", "--entity", "Photo", "--root", "photos.photo"],
                                       in: Self.repository)
        #expect(result.status == 2)
        let summary = """
            imported Examples/Photos/photos.json (photos.photo) into Photo: 2040 records read, 2031 imported, 9 rejected
                            inserted  updated  unchanged  deleted  stubs
              Photo             1992       39          0        0      0
              Photographer        64        1         80        0      2
              Tag                  0        0          0        0     20
            """
        // A line of progress comes every 5 s of the import, so a slow machine prints some before
        // the summary: they depend on the time it took, the summary does not.
        let progress = "trove import Examples/Photos/photos.json: "
        let stderr = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix(progress) }.joined(separator: "\n")
        #expect(stderr.hasPrefix(summary + "\n"))
        let article = try String(decoding: Data(contentsOf: Self.repository.appendingPathComponent("Sources/Trove/Trove.docc/Importing.md")),
                                 as: UTF8.self)
        #expect(article.contains(summary), "the article shows the sample's summary as it is")
        let path = "applied through objects, the slower path, because Photo records set to-many relationships\n"
        #expect(result.stderr.contains(path) && article.contains(path), "the sample's tags need objects; both say so")

        let again = try CLIRunner.run(["import", store, "Examples/Photos/photos.json", "--entity", "Photo", "--root", "photos.photo",
                                       "--quiet", "--report", dir.file("sample.json").path], in: Self.repository)
        #expect(again.status == 2)
        let report = try JSONDecoder().decode(ImportReport.self, from: Data(contentsOf: dir.file("sample.json")))
        #expect(report.rejected.map(\.path) == ["views", "", "upload_date", "ispublic", "o_width", "views", "owner", "url_m", "tags"],
                "one record for each kind of rejection generate.py makes")
        let context = try Container(store: SQLiteStore(url: URL(fileURLWithPath: store))).newBackgroundContext()
        #expect(try context.fetchCount("Photo") == 1992)
        #expect(try context.fetchCount("Photographer") == 66)
        #expect(try context.fetchCount("Tag") == 20)
    }
}

extension JSONValue {
    /// This record with the value of `key` replaced by the string `replacement`.
    fileprivate func replacing(_ key: String, with replacement: String) -> JSONValue {
        guard case .object(var members) = self else { return self }
        members[key] = .string(replacement)
        return .object(members)
    }
}
