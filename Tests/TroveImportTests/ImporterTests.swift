import Foundation
import Testing
import Trove
import TroveTesting

/// The importer on a Flickr-like model: mapping, coercion, find-or-create, nesting, reports.
@Suite struct ImporterTests {
    let dir: TemporaryDirectory
    let recorder = SQLRecorder()
    let container: Container
    let context: ObjectContext

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(store: SQLiteStore(url: dir.file("flickr.trove"), model: SampleModels.flickr(),
                                                     options: .init(statementObserver: recorder.observer)))
        context = container.newBackgroundContext()
    }

    func run(_ json: String, into entity: String = "Photo", options: ImportOptions = ImportOptions()) throws -> ImportReport {
        try Importer(context: context, options: options).importJSON(Data(json.utf8), into: entity)
    }

    func photo(_ id: Int64, in context: ObjectContext? = nil) throws -> ManagedObject {
        try #require(try (context ?? self.context).fetchFirst("Photo", whereKey: "id", equals: id))
    }

    @Test func theModelDrivesMessyRecordsIn() throws {
        let report = try run("""
            [{"id": "42", "title": 8, "views": "1200", "dateupload": "1311460240", "ispublic": "yes",
              "size": "30-32", "grade": "Abc", "sizes": {"o": {"width": "640"}}, "farm": 3, "server": "x",
              "owner": {"nsid": "7@N0", "username": "ann", "user_id": "12", "location": "Oslo"},
              "tags": ["sea", "sky"]}]
            """)
        let p = try photo(42)
        #expect(try p.value(forKey: "title") == "8")
        #expect(try p.value(forKey: "views") == 1200)
        #expect(try p.value(forKey: "uploadDate") == .date(Date(timeIntervalSince1970: 1_311_460_240)))
        #expect(try p.value(forKey: "isPublic") == true)
        #expect(try p.value(forKey: "size") == "30-32")
        #expect(try p.value(forKey: "grade") == .character("A"))
        #expect(try p.value(forKey: "width") == 640)
        let owner = try #require(try p.relatedObject(forKey: "owner"))
        #expect(try owner.value(forKey: "userName") == "ann")
        #expect(try owner.value(forKey: "userID") == 12, "keyStyle snake_case maps userID to user_id")
        #expect(try Set(p.relatedObjects(forKey: "tags").map { try $0.value(forKey: "name") }) == ["sea", "sky"])

        #expect(report.recordsRead == 1 && report.recordsImported == 1 && report.rejected.isEmpty)
        #expect(report.entities["Photo"]?.inserted == 1)
        #expect(report.entities["Owner"]?.inserted == 1)
        #expect(report.entities["Tag"]?.stubs == 2, "tags named by key that are not stored yet become stubs")
        #expect(report.unknownKeys == ["Photo.farm": 1, "Photo.server": 1, "Owner.location": 1])
        #expect(report.coercions[.numberToString] == 1 && report.coercions[.stringToInteger] == 4)
        #expect(report.coercions[.stringToBoolean] == 1 && report.coercions[.stringToCharacter] == 1)
    }

    @Test func manyDistinctUnknownKeysAreAllCounted() throws {
        // More distinct unknown keys than the tally's short list holds (16), some repeated.
        let extra = (0..<20).map { "\"x\($0)\": \($0)" }.joined(separator: ", ")
        let report = try run("[{\"id\": 1, \(extra)}, {\"id\": 2, \"x3\": 0, \"x19\": 0}]")
        var expected = Dictionary(uniqueKeysWithValues: (0..<20).map { ("Photo.x\($0)", 1) })
        expected["Photo.x3"] = 2
        expected["Photo.x19"] = 2
        #expect(report.unknownKeys == expected)
    }

    @Test func absentKeysLeaveValuesAndNullClears() throws {
        _ = try run(#"[{"id": 1, "title": "kept", "views": 5, "size": "M", "tags": ["a"]}]"#)
        let report = try run(#"[{"id": 1, "views": 6, "size": null, "tags": null}]"#)
        let p = try photo(1)
        #expect(try p.value(forKey: "title") == "kept")
        #expect(try p.value(forKey: "views") == 6)
        #expect(try p.value(forKey: "size") == .null)
        #expect(try p.relatedObjects(forKey: "tags").isEmpty, "null empties a to-many")
        #expect(report.entities["Photo"]?.updated == 1)
    }

    @Test func duplicatesInOnePayloadBecomeOneObjectLaterValuesWin() throws {
        let report = try run(#"[{"id": 7, "title": "first"}, {"id": "7", "title": "second"}, {"id": 7.0, "views": 3}]"#)
        #expect(try context.fetchCount("Photo") == 1)
        let p = try photo(7)
        #expect(try p.value(forKey: "title") == "second")
        #expect(try p.value(forKey: "views") == 3)
        #expect(report.entities["Photo"]?.inserted == 1)
    }

    @Test func reimportingTheSamePayloadWritesNothing() throws {
        let payload = """
            [{"id": 1, "title": "a", "owner": {"nsid": "o1", "username": "ann"}, "tags": ["x", "y"], "notes": [{"text": "hi"}]},
             {"id": 2, "title": "b", "owner": "o1", "tags": ["y"]}]
            """
        _ = try run(payload)
        recorder.reset()
        let again = try run(payload.replacingOccurrences(of: #", "notes": [{"text": "hi"}]"#, with: ""))
        let writes = recorder.statements.filter { $0.hasPrefix("INSERT") || $0.hasPrefix("UPDATE") || $0.hasPrefix("DELETE") }
        #expect(writes.isEmpty, "\(writes)")
        #expect(again.entities["Photo"]?.unchanged == 2 && again.entities["Photo"]?.updated == 0)
        #expect(again.entities["Owner"]?.unchanged == 1)
    }

    @Test func aBadValueRejectsItsRecordWithPathAndTheRestLand() throws {
        var records: [String] = []
        for i in 0..<1000 {
            let views = i % 20 == 7 ? "\"lots\"" : "\(i)"
            records.append(#"{"id": \#(i), "views": \#(views), "owner": {"nsid": "o\#(i % 5)"}}"#)
        }
        let report = try run("[" + records.joined(separator: ",") + "]", options: ImportOptions(batchSize: 300))
        #expect(report.recordsRead == 1000 && report.recordsImported == 950 && report.rejected.count == 50)
        #expect(try context.fetchCount("Photo") == 950)
        let first = try #require(report.rejected.first)
        #expect(first.index == 7 && first.path == "views" && first.excerpt == #""lots""# && first.expected == "integer32")
        #expect(first.reason.contains("Photo.views"))
        #expect(first.record == #"{"id":7,"owner":{"nsid":"o2"},"views":"lots"}"#)
        #expect(try context.fetchCount("Owner") == 5)
    }

    @Test func rejectionsCoverTheRules() throws {
        let report = try run("""
            [{"id": 1, "views": 3000000000},
             {"id": 2, "views": 3.7},
             {"title": "no key"},
             {"id": null},
             {"id": 5, "owner": {"username": "nsid missing"}},
             {"id": 6, "tags": "sea"},
             {"id": 7, "owner": ["o1"]},
             "not an object",
             {"id": 9, "grade": ""},
             {"id": 10, "notes": [{"text": null}]},
             {"id": 11, "title": "fine", "owner": {"nsid": "o1"}}]
            """)
        #expect(report.rejected.map(\.index) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(report.rejected.map(\.path) == ["views", "views", "", "id", "owner", "tags", "owner", "", "grade", "notes[0].text"])
        #expect(report.rejected[2].reason.contains("needs its unique key id"))
        #expect(report.rejected[4].reason.contains("Owner record needs its unique key nsid"))
        #expect(try context.fetchCount("Photo") == 1)
        #expect(try context.fetchCount("Owner") == 1, "a rejected record leaves no part of itself behind")
    }

    @Test func aNewObjectMissingARequiredAttributeIsRejected() throws {
        let report = try run(#"[{"id": 1, "albums": [{"code": "a1"}]}, {"id": 2, "albums": [{"code": "a2", "name": "Trips"}]}]"#)
        #expect(report.rejected.map(\.index) == [0])
        #expect(report.rejected[0].reason.contains("name is required"))
        #expect(try context.fetchCount("Album") == 1 && context.fetchCount("Photo") == 1)
    }

    @Test func nestedGraphsThreeLevelsDeepAndReferencesBeforeTheirTargets() throws {
        let report = try run("""
            [{"id": 1, "owner": {"nsid": "o1", "profile": {"bio": "hello"},
                                 "photos": [{"id": 2, "tags": ["t1"]}, {"id": 3, "owner": "o1"}]}},
             {"id": 4, "owner": "o2"}]
            """)
        #expect(report.rejected.isEmpty)
        let owner = try #require(try context.fetchFirst("Owner", whereKey: "nsid", equals: "o1"))
        #expect(try owner.relatedObject(forKey: "profile")?.value(forKey: "bio") == "hello")
        #expect(try Set(owner.relatedObjects(forKey: "photos").map { try $0.value(forKey: "id", as: Int.self) }) == [1, 2, 3])
        #expect(report.entities["Owner"]?.stubs == 1, "o2 is referenced before it exists")
        let stub = try #require(try context.fetchFirst("Owner", whereKey: "nsid", equals: "o2"))
        #expect(try stub.value(forKey: "userName") == .null)

        let later = try run(#"[{"nsid": "o2", "username": "bob"}]"#, into: "Owner")
        #expect(later.entities["Owner"]?.updated == 1)
        #expect(try stub.value(forKey: "userName") == "bob")
        #expect(try stub.relatedObjects(forKey: "photos").count == 1)
    }

    @Test func toManyPolicies() throws {
        _ = try run("""
            [{"id": 1, "tags": ["a", "b"], "notes": [{"text": "n1"}, {"text": "n2"}],
              "albums": [{"code": "x", "name": "X"}]}]
            """)
        let report = try run(#"[{"id": 1, "tags": ["b", "c"], "notes": [{"text": "n3"}], "albums": [{"code": "y", "name": "Y"}]}]"#)
        let p = try photo(1)
        #expect(try Set(p.relatedObjects(forKey: "tags").map { try $0.value(forKey: "name") }) == ["b", "c"], "replace")
        #expect(try context.fetchCount("Tag") == 3, "replace unlinks, it does not delete")
        #expect(try p.relatedObjects(forKey: "notes").map { try $0.value(forKey: "text") } == ["n3"])
        #expect(try context.fetchCount("Note") == 1, "replaceDeletingOrphans deletes what it unlinks")
        #expect(report.entities["Note"]?.deleted == 2)
        #expect(try Set(p.relatedObjects(forKey: "albums").map { try $0.value(forKey: "code") }) == ["x", "y"], "union")
    }

    @Test func strictModeStopsWithNothingOfTheBatchWritten() throws {
        let payload = #"[{"id": 1}, {"id": 2}, {"id": "two"}, {"id": 4}]"#
        let error = try #require(throws: ImportError.self) {
            try run(payload, options: ImportOptions(batchSize: 2, strict: true))
        }
        #expect(error.code == .recordRejected)
        #expect(error.message.contains("record 2 at id"))
        #expect(error.report?.recordsImported == 2)
        #expect(try context.fetchCount("Photo") == 2, "the first batch landed; the failing one wrote nothing")
    }

    @Test func syncScopeDeletesWhatThePayloadNoLongerHas() throws {
        _ = try run(#"[{"id": 1, "views": 1}, {"id": 2, "views": 1}, {"id": 3, "views": 9}]"#)
        let scope = try ObjectPredicate(format: "views < %d", 5)
        let report = try run(#"[{"id": 1, "views": 1}]"#, options: ImportOptions(syncScope: scope))
        #expect(report.entities["Photo"]?.deleted == 1)
        #expect(try context.fetch("Photo", sortedBy: "id").map { try $0.value(forKey: "id", as: Int.self) } == [1, 3])

        let skipped = try run(#"[{"id": "x"}]"#, options: ImportOptions(syncScope: scope))
        #expect(skipped.syncScopeSkipped?.contains("nothing was deleted") == true)
        #expect(try context.fetchCount("Photo") == 2)
    }

    @Test func hooksAndKeyHandlers() throws {
        var hooks = ImportHooks()
        hooks.beforeRecord(of: "Photo") { record in
            guard case .object(var members) = record else { return record }
            if members["private"] == true { return nil }
            members["title"] = members["caption"]
            return .object(members)
        }
        hooks.afterRecord(of: "Photo") { photo, record in
            try photo.setValue(Int64(record.objectValue?.count ?? 0), forKey: "views")
        }
        hooks.handleKey("colour", of: "Photo") { photo, value in
            try photo.setValue("colour:" + (value.stringValue ?? "?"), forKey: "size")
        }
        let report = try run(#"[{"id": 1, "caption": "Hi", "colour": "red"}, {"id": 2, "private": true}]"#,
                             options: ImportOptions(hooks: hooks))
        #expect(report.recordsSkipped == 1 && report.recordsImported == 1)
        let p = try photo(1)
        #expect(try p.value(forKey: "title") == "Hi")
        #expect(try p.value(forKey: "size") == "colour:red")
        #expect(try p.value(forKey: "views") == 4)
        #expect(report.unknownKeys["Photo.colour"] == nil, "a handled key is not unknown")
    }

    @Test func inputErrorsComeBeforeAnyWrite() throws {
        let trailing = try #require(throws: ImportError.self) { try run(#"[{"id": 1}, {"id": 2},]"#) }
        #expect(trailing.code == .invalidJSON)
        #expect(trailing.message.contains("trailing comma") && trailing.message.contains("byte 22"))
        #expect(try context.fetchCount("Photo") == 0)
        // The fault at the very end, after many batches the importer reads ahead while it checks.
        let long = "[" + (1...50).map { #"{"id": \#($0)}"# }.joined(separator: ", ") + ",]"
        let late = try #require(throws: ImportError.self) { try run(long, options: ImportOptions(batchSize: 1)) }
        #expect(late.code == .invalidJSON && late.message.hasSuffix("nothing was imported"))
        #expect(try context.fetchCount("Photo") == 0)
        let rooted = try Importer(context: context).importJSON(Data(#"{"photos": {"photo": [{"id": 1}]}}"#.utf8), into: "Photo", root: "photos.photo")
        #expect(rooted.recordsImported == 1)
        #expect(throws: ImportError.self) { try Importer(context: context).importJSON(Data("{}".utf8), into: "Photo", root: "photos.photo") }
        #expect(throws: ImportError.self) { try run("[]", into: "Nope") }
        _ = try context.insert("Tag")
        let dirty = try #require(throws: ImportError.self) { try run("[]") }
        #expect(dirty.code == .contextHasChanges)
    }
}
