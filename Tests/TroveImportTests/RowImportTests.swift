import Foundation
import Testing
import Trove
import TroveTesting

/// The importer's two ways of applying records — rows written directly (the fast path) and
/// managed objects (taken when a hook or a to-many needs objects) — give the same store, the
/// same report and the same messages to other contexts.
@Suite struct RowImportTests {
    let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory()
    }

    /// Photos and their owners: to-one links kept in the photo's row, a rule on each entity.
    static func model() throws -> Model {
        try Model(keyStyle: .snakeCase) {
            Entity("Owner", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("name", .string)
                Attribute("location", .string, max: .integer(12))
                Relationship("photos", to: "Photo", toMany: true, inverse: "owner")
            }
            Entity("Photo", uniqueBy: [["id"]]) {
                Attribute("id", .integer64, optional: false)
                Attribute("title", .string)
                Attribute("views", .integer64, default: 0, min: .integer(0))
                Attribute("uploadDate", .date)
                Attribute("isPublic", .boolean)
                Attribute("latitude", .double)
                Relationship("owner", to: "Owner", inverse: "photos")
            }
        }
    }

    /// Messy on purpose: strings for numbers, a reference before its target exists, a
    /// duplicate across batches, an owner changed within a batch, rejections by coercion, by
    /// a missing key and by the model's rules (on the photo, and on a nested owner).
    static let fresh = """
        [{"id": 1, "title": "one", "views": "10", "upload_date": "2024-01-02T03:04:05Z", "is_public": "yes",
          "latitude": "59.9", "owner": {"id": "ann", "name": "Ann", "location": "Oslo"}, "farm": 3},
         {"id": "2", "title": 2, "owner": "bob"},
         {"id": 3, "title": "three", "owner": {"id": "ann", "name": "Ann B."}},
         {"id": 4, "views": -5},
         {"id": 5, "title": {"x": 1}},
         {"title": "no id"},
         {"id": 1, "views": 11, "owner": null},
         {"id": 6, "owner": {"id": "bob", "name": "Bob", "location": "a place far too long"}},
         {"id": 7, "owner": {"id": "bob", "name": "Bob"}},
         {"id": 8, "is_public": 1, "latitude": 1e3, "owner": {"id": "cy"}},
         {"id": 9, "title": null, "views": null}]
        """

    /// Changes, relinks, a new owner, and values equal to the stored ones in another spelling.
    static let update = """
        [{"id": 1, "title": "one!", "owner": "ann"},
         {"id": 2, "title": "2"},
         {"id": 3, "owner": {"id": "dan", "name": "Dan"}},
         {"id": 7, "views": "12"},
         {"id": 10, "owner": "ann"},
         {"id": 8, "latitude": "1000"}]
        """

    /// A store of the model, with the SQL it runs recorded.
    struct Store {
        let container: Container
        let context: ObjectContext
        let recorder: SQLRecorder

        init(_ url: URL) throws {
            let recorder = SQLRecorder()
            container = try Container(store: SQLiteStore(url: url, model: RowImportTests.model(),
                                                         options: .init(statementObserver: recorder.observer)))
            context = container.newBackgroundContext()
            self.recorder = recorder
        }

        /// Imports `json` three records a batch (or `batchSize`); with `asObjects`, through an
        /// after-record hook that does nothing but makes the importer use objects.
        func run(_ json: String, asObjects: Bool, batchSize: Int = 3) throws -> ImportReport {
            var options = ImportOptions(batchSize: batchSize)
            if asObjects { options.hooks.afterRecord(of: "Photo") { _, _ in } }
            return try Importer(context: context, options: options).importJSON(Data(json.utf8), into: "Photo")
        }

        /// Every photo and owner, as text, in key order.
        func contents() throws -> [String] {
            let reader = container.newBackgroundContext()
            let photos = try reader.fetch("Photo", sortedBy: "id").map { photo in
                let owner = try photo.relatedObject(forKey: "owner")?.value(forKey: "id")
                return try ["id", "title", "views", "uploadDate", "isPublic", "latitude"]
                    .map { "\(try photo.value(forKey: $0))" }.joined(separator: " ") + " owner=\(owner.map { "\($0)" } ?? "-")"
            }
            let owners = try reader.fetch("Owner", sortedBy: "id").map { owner in
                try ["id", "name", "location"].map { "\(try owner.value(forKey: $0))" }.joined(separator: " ")
                    + " photos=\(try owner.relatedObjects(forKey: "photos").count)"
            }
            return photos + owners
        }
    }

    @Test func rowsAndObjectsGiveTheSameStoreAndReport() throws {
        let rows = try Store(dir.file("rows.trove"))
        let objects = try Store(dir.file("objects.trove"))
        for payload in [Self.fresh, Self.update, Self.update] {
            rows.recorder.reset()
            objects.recorder.reset()
            var byRows = try rows.run(payload, asObjects: false)
            let byObjects = try objects.run(payload, asObjects: true)
            #expect(byRows.appliedAsObjects == nil, "this model and payload need no objects")
            #expect(byObjects.appliedAsObjects == "Photo has an after-record hook")
            byRows.appliedAsObjects = byObjects.appliedAsObjects
            #expect(byRows == byObjects)
            #expect(try rows.contents() == objects.contents())
            #expect(rows.recorder.statements.filter { $0.hasPrefix("INSERT") || $0.hasPrefix("UPDATE") }.count
                    == objects.recorder.statements.filter { $0.hasPrefix("INSERT") || $0.hasPrefix("UPDATE") }.count)
        }

        // What the payloads left, checked once by hand (both stores are equal).
        let report = try rows.run(Self.update, asObjects: false)
        #expect(report.entities["Photo"]?.unchanged == 6 && report.entities["Owner"]?.unchanged == 1,
                "dan is described again; ann is only referred to")
        #expect(!rows.recorder.statements.contains { $0.hasPrefix("INSERT") || $0.hasPrefix("UPDATE") },
                "re-importing the same payload writes nothing")
        #expect(try rows.contents() == [
            #"1 "one!" 11 2024-01-02T03:04:05Z true 59.9 owner="ann""#,
            #"2 "2" 0 nil nil nil owner="bob""#,
            #"3 "three" 0 nil nil nil owner="dan""#,
            #"7 nil 12 nil nil nil owner="bob""#,
            #"8 nil 0 nil true 1000.0 owner="cy""#,
            #"9 nil nil nil nil nil owner=-"#,
            #"10 nil 0 nil nil nil owner="ann""#,
            #""ann" "Ann B." "Oslo" photos=2"#,
            #""bob" "Bob" nil photos=2"#,
            #""cy" nil nil photos=1"#,
            #""dan" "Dan" nil photos=1"#,
        ])
    }

    @Test func longBatchesWriteManyRowsAStatementWithTheirLinks() throws {
        let rows = try Store(dir.file("rows.trove"))
        let objects = try Store(dir.file("objects.trove"))
        // 300 photos of 7 owners in one batch: inserts run many rows a statement.
        let payload = "[" + (1...300).map { n in
            #"{"id": \#(n), "title": "t\#(n)", "views": \#(n * 3), "owner": {"id": "o\#(n % 7)", "name": "Owner \#(n % 7)"}}"#
        }.joined(separator: ", ") + "]"
        var byRows = try rows.run(payload, asObjects: false, batchSize: 1000)
        let byObjects = try objects.run(payload, asObjects: true, batchSize: 1000)
        byRows.appliedAsObjects = byObjects.appliedAsObjects
        #expect(byRows == byObjects)
        #expect(byRows.entities["Photo"]?.inserted == 300 && byRows.entities["Owner"]?.inserted == 7)
        #expect(try rows.contents() == objects.contents())
        #expect(try rows.contents().contains(#"299 "t299" 897 nil nil nil owner="o5""#))
    }

    @Test func rowsRecordsShareAreReadOnceThenKeptFromBatchToBatch() throws {
        let rows = try Store(dir.file("rows.trove"))
        let objects = try Store(dir.file("objects.trove"))
        // Three batches of three; Ann's name changes in the second.
        let payload = "[" + (1...9).map { n in
            #"{"id": \#(n), "owner": {"id": "ann", "name": "\#(n < 4 ? "Ann" : "Ann B.")"}, "title": "t\#(n)"}"#
        }.joined(separator: ", ") + "]"
        for round in 1...2 {
            rows.recorder.reset()
            var byRows = try rows.run(payload, asObjects: false)
            let byObjects = try objects.run(payload, asObjects: true)
            let ownerReads = rows.recorder.selects.filter { $0.contains(#"FROM "Owner""#) }
            #expect(ownerReads.count == 1, "round \(round): Ann is read by the first batch only, then kept")
            byRows.appliedAsObjects = byObjects.appliedAsObjects
            #expect(byRows == byObjects)
            #expect(try rows.contents() == objects.contents())
            if round == 2 {
                #expect(byRows.entities["Owner"]?.updated == 2, "the first batch sets Ann's name back, the second changes it again")
            }
        }
        let ann = try #require(try rows.container.newBackgroundContext().fetchFirst("Owner", whereKey: "id", equals: "ann"))
        #expect(try ann.value(forKey: "name") == "Ann B.")
    }

    @Test func anotherWriterBetweenBatchesIsSeenNotOverlookedByTheKeptRows() throws {
        let store = try Store(dir.file("rows.trove"))
        let input = dir.file("photos.json")
        let payload = "[" + (1...6).map { n in #"{"id": \#(n), "owner": {"id": "ann", "name": "Ann"}}"# }.joined(separator: ", ") + "]"
        try Data(payload.utf8).write(to: input)
        let other = store.container.newBackgroundContext()
        var renamed = false
        let report = try Importer(context: store.context, options: ImportOptions(batchSize: 3))
            .importStream(.file(input), into: "Photo", progress: { _ in
                guard !renamed else { return }
                renamed = true
                // After the first batch, someone else renames Ann; the second batch names her Ann again.
                do {
                    let ann = try other.fetchFirst("Owner", whereKey: "id", equals: "ann")
                    _ = try ann?.setValue("Someone else's name", forKey: "name")
                    try other.save()
                } catch {
                    Issue.record("the other writer failed: \(error)")
                }
            })
        #expect(renamed)
        #expect(report.entities["Owner"]?.updated == 1, "the second batch found the other writer's name and put Ann back")
        let ann = try #require(try store.container.newBackgroundContext().fetchFirst("Owner", whereKey: "id", equals: "ann"))
        #expect(try ann.value(forKey: "name") == "Ann")
    }

    @Test func rejectionsNameTheRecordAndTheRuleAsObjectsWould() throws {
        let store = try Store(dir.file("rows.trove"))
        let report = try store.run(Self.fresh, asObjects: false)
        #expect(report.appliedAsObjects == nil)
        #expect(report.rejected.map(\.index) == [3, 4, 5, 7], "record 8 sets Bob's name, not the location at fault")
        #expect(report.rejected[0].description == "record 3 at views: Photo.views: -5 is below the minimum 0")
        #expect(report.rejected[3].path == "owner.location")
        #expect(report.rejected[3].reason.contains("Owner.location: the length 20 of \"a place far too long\" is above the maximum 12"))
        #expect(try store.context.fetchCount("Photo") == 6, "the other records of the rejected records' batches landed")
    }

    @Test func aRowSaveTellsOtherContextsWhatChanged() async throws {
        let store = try Store(dir.file("rows.trove"))
        _ = try store.run(Self.fresh, asObjects: false)
        let holder = store.container.newBackgroundContext()
        let ann = try #require(try holder.fetchFirst("Owner", whereKey: "id", equals: "ann"))
        #expect(try ann.relatedObjects(forKey: "photos").count == 1)

        var saves = store.container.didSave.makeAsyncIterator()
        _ = try store.run(#"[{"id": 20, "owner": "ann"}, {"id": 3, "title": "three!"}, {"id": 8, "views": 80}, {"id": 7, "title": "seven"}]"#,
                          asObjects: false, batchSize: 10)
        let event = try #require(await saves.next())
        #expect(event.changes.inserted.count == 1)
        let three = try #require(try holder.fetchFirst("Photo", whereKey: "id", equals: 3))
        let eight = try #require(try holder.fetchFirst("Photo", whereKey: "id", equals: 8))
        let seven = try #require(try holder.fetchFirst("Photo", whereKey: "id", equals: 7))
        #expect(event.changes.updated == [ann.objectID, three.objectID, eight.objectID, seven.objectID])
        #expect(event.changes.changedKeys[ann.objectID] == ["photos"], "a link made from the photo's side changes the owner's photos")
        #expect(event.changes.changedKeys[three.objectID] == ["title"])
        #expect(event.changes.changedKeys[eight.objectID] == ["views"], "rows of another shape in the batch name their own keys")
        #expect(event.changes.changedKeys[seven.objectID] == ["title"])

        try holder.mergeChanges(from: event.changes)
        #expect(try ann.relatedObjects(forKey: "photos").count == 2)
        #expect(try three.value(forKey: "title") == "three!")
    }

    @Test func theImportingContextsOwnObjectsTakeTheImportedValues() throws {
        let store = try Store(dir.file("rows.trove"))
        _ = try store.run(Self.fresh, asObjects: false)
        let one = try #require(try store.context.fetchFirst("Photo", whereKey: "id", equals: 1))
        let report = try store.run(#"[{"id": 1, "title": "renamed"}]"#, asObjects: false)
        #expect(report.appliedAsObjects == nil && report.entities["Photo"]?.updated == 1)
        #expect(try one.value(forKey: "title") == "renamed")
        #expect(!store.context.hasChanges)
    }

    @Test func aRequiredLinkIsCheckedAsObjectsWould() throws {
        let model = try Model {
            Entity("Owner", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Relationship("photos", to: "Photo", toMany: true, inverse: "owner")
            }
            Entity("Photo", uniqueBy: [["id"]]) {
                Attribute("id", .integer64, optional: false)
                Relationship("owner", to: "Owner", inverse: "photos", optional: false)
            }
        }
        let payload = #"[{"id": 1, "owner": "ann"}, {"id": 2}, {"id": 3, "owner": {"id": "bob"}}, {"id": 1, "owner": null}]"#
        var reports: [ImportReport] = []
        for asObjects in [false, true] {
            let container = try Container(model: model, url: dir.file("required-\(asObjects).trove"))
            var options = ImportOptions()
            if asObjects { options.hooks.afterRecord(of: "Photo") { _, _ in } }
            var report = try Importer(context: container.newBackgroundContext(), options: options)
                .importJSON(Data(payload.utf8), into: "Photo")
            #expect(report.appliedAsObjects == (asObjects ? "Photo has an after-record hook" : nil))
            report.appliedAsObjects = nil
            reports.append(report)
        }
        #expect(reports[0] == reports[1])
        #expect(reports[0].rejected.map(\.description) == [
            "record 1 at owner: Photo.owner: owner is required but nil",
            "record 3 at owner: Photo.owner: owner is required but nil",
        ])
        #expect(reports[0].entities["Photo"]?.inserted == 2)
    }

    @Test func whatNeedsObjectsIsNamedInTheReport() throws {
        let store = try Store(dir.file("rows.trove"))
        store.context.undoManager = ContextUndoManager()
        let report = try store.run(#"[{"id": 1}]"#, asObjects: false)
        #expect(report.appliedAsObjects == "the context records undo")
        #expect(report.entities["Photo"]?.inserted == 1)
    }
}
