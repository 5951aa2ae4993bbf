import Foundation
import Testing
import Trove
import TroveModel
import TroveTesting

/// A record key that is the model name of a property read under another key (its remoteKey):
/// warned about, and a rejection in strict mode (issue 21, item 7).
@Suite struct MisnamedKeyTests {
    let dir: TemporaryDirectory
    let context: ObjectContext

    init() throws {
        dir = try TemporaryDirectory()
        context = try Container(store: SQLiteStore(url: dir.file("photos.trove"), model: SampleModels.photos())).newBackgroundContext()
    }

    /// `uploadDate` (read from `upload_date`) and `whoTook` (read from `owner`) named as in the model.
    static let misnamed = """
        [{"id": "p1", "title": "sea", "uploadDate": "2020-01-02T03:04:05Z", "whoTook": {"id": "ann"}, "farm": 3},
         {"id": "p2", "upload_date": "2021-01-02T03:04:05Z", "owner": {"id": "bob"}},
         {"id": "p3", "uploadDate": "2022-01-02T03:04:05Z"}]
        """

    @Test(arguments: [false, true]) func aPropertysOwnNameIsAWarning(asValues: Bool) throws {
        let importer = Importer(context: context)
        let report = asValues
            ? try importer.importRecords(try JSONValue(parsing: Data(Self.misnamed.utf8)).arrayValue ?? [], into: "Photo")
            : try importer.importJSON(Data(Self.misnamed.utf8), into: "Photo")
        #expect(report.recordsImported == 3 && report.rejectedCount == 0)
        #expect(report.unknownKeys == ["Photo.uploadDate": 2, "Photo.whoTook": 1, "Photo.farm": 1])
        #expect(report.misnamedKeys == [
            "Photo.uploadDate": MisnamedKey(entity: "Photo", property: "uploadDate", kind: "attribute", remoteKeys: ["upload_date"]),
            "Photo.whoTook": MisnamedKey(entity: "Photo", property: "whoTook", kind: "relationship", remoteKeys: ["owner"]),
        ])
        #expect(report.warnings == [
            "the key 'uploadDate' of Photo records was ignored: the attribute uploadDate is read from 'upload_date' only; rename the key to 'upload_date', or add 'uploadDate' to the attribute's remoteKey (seen 2 times)",
            "the key 'whoTook' of Photo records was ignored: the relationship whoTook is read from 'owner' only; rename the key to 'owner', or add 'whoTook' to the relationship's remoteKey (seen 1 time)",
        ])
        #expect(report.description.contains("\n  warning: the key 'uploadDate' of Photo records was ignored"))
        let p1 = try #require(try context.fetchFirst("Photo", whereKey: "id", equals: "p1"))
        #expect(try p1.value(forKey: "uploadDate") == .null, "the misnamed value is still ignored")
        #expect(try p1.relatedObject(forKey: "whoTook") == nil)
    }

    @Test func nestedObjectsAreCheckedToo() throws {
        let json = #"[{"id": "ann", "photos": [{"id": "p1"}, {"id": "p2", "uploadDate": "2020-01-02T03:04:05Z"}]}]"#
        let report = try Importer(context: context).importJSON(Data(json.utf8), into: "Photographer")
        #expect(report.misnamedKeys.keys.sorted() == ["Photo.uploadDate"])
        #expect(report.recordsImported == 1)

        let strict = Importer(context: context, options: ImportOptions(strict: true))
        let error = try #require(throws: ImportError.self) { try strict.importJSON(Data(json.utf8), into: "Photographer") }
        #expect(error.code == .recordRejected)
        let rejected = try #require(error.report?.rejected.first)
        #expect(rejected.path == "photos[1].uploadDate")
        #expect(rejected.expected == "the key 'upload_date'")
    }

    @Test func keysThatNameNoPropertyOrAreReadAsTheyAreAreNotWarnedAbout() throws {
        let json = #"[{"id": "p1", "upload_date": "2020-01-02T03:04:05Z", "views": 3, "owner": "ann", "farm": 1}]"#
        let report = try Importer(context: context, options: ImportOptions(strict: true)).importJSON(Data(json.utf8), into: "Photo")
        #expect(report.misnamedKeys.isEmpty && report.warnings.isEmpty)
        #expect(report.unknownKeys == ["Photo.farm": 1])
        #expect(report.recordsImported == 1)
    }

    @Test func strictRejectsTheRecordWritingNothingOfItsBatch() throws {
        let seen = Locked<[RejectedRecord]>([])
        var options = ImportOptions(strict: true)
        options.onRejected = { record in seen.withLock { $0.append(record) } }
        let error = try #require(throws: ImportError.self) {
            try Importer(context: context, options: options).importJSON(Data(Self.misnamed.utf8), into: "Photo")
        }
        #expect(error.code == .recordRejected)
        let rejected = try #require(seen.withLock { $0 }.first)
        #expect(rejected.index == 0 && rejected.path == "uploadDate")
        #expect(rejected.excerpt == #""2020-01-02T03:04:05Z""#)
        #expect(rejected.reason == "the key 'uploadDate' of Photo records was ignored: the attribute uploadDate is read from 'upload_date' only; rename the key to 'upload_date', or add 'uploadDate' to the attribute's remoteKey (a strict import rejects the record)")
        #expect(rejected.record.contains(#""id":"p1""#))
        #expect(try context.store.count(of: "Photo") == 0, "nothing of the batch was written")
    }
}
