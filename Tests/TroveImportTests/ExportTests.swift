import Foundation
import Testing
import Trove
@testable import TroveImport
import TroveTesting

/// What the exporter writes: keys, values, relationship forms, framing, bad options; and the
/// round trip of the Photos sample.
@Suite struct ExportTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A store of the Photos sample model holding `Examples/Photos/photos.json`.
    static func photosStore(in dir: TemporaryDirectory, name: String) throws -> Container {
        let model = try Model(contentsOf: packageRoot.appendingPathComponent("Examples/Photos/model.json"))
        let container = try Container(store: SQLiteStore(url: dir.file(name), model: model))
        let payload = try Data(contentsOf: packageRoot.appendingPathComponent("Examples/Photos/photos.json"))
        let report = try Importer(context: container.newBackgroundContext()).importJSON(payload, into: "Photo", root: "photos.photo")
        #expect(report.entities["Photo"]?.inserted == 1992)
        return container
    }

    static func records(_ data: Data) throws -> [JSONValue] {
        try #require(JSONValue(parsing: data).arrayValue)
    }

    // MARK: The Photos sample

    @Test func photosSampleRecordsUseTheRemoteKeysAndKeyStyle() throws {
        let dir = try TemporaryDirectory()
        let container = try Self.photosStore(in: dir, name: "photos.trove")
        let exporter = Exporter(context: container.newBackgroundContext())
        let photos = try Self.records(exporter.exportJSON(FetchRequest(entityName: "Photo", predicate: ObjectPredicate(format: "id == '5200000020'"))))
        let photo = try #require(photos.first?.objectValue)
        #expect(photos.count == 1)
        #expect(photo["id"] == "5200000020")
        // The first remote key; the attribute's name in snake_case; dates in UTC with milliseconds.
        #expect(photo["upload_date"] == "2018-10-17T00:33:55.966Z")
        #expect(photo["is_public"] == nil && photo["ispublic"] == true)
        #expect(photo["views"] == 15320)
        #expect(photo["owner"] == "10023757@N03")
        #expect(photo["tags"] == [])
        #expect(Set(photo.keys) == ["id", "title", "upload_date", "views", "o_width", "o_height", "latitude", "longitude", "ispublic", "url_m", "owner", "tags"])

        let owner = try Self.records(exporter.exportJSON(FetchRequest(entityName: "Photographer", predicate: ObjectPredicate(format: "id == '10023757@N03'"))))
        let photographer = try #require(owner.first?.objectValue)
        #expect(photographer["nsid"] == "10023757@N03" && photographer["username"] == "Hiro Larsen")
        #expect(photographer["photos"]?.arrayValue?.contains("5200000020") == true)
    }

    @Test func photosSampleRoundTrips() throws {
        let dir = try TemporaryDirectory()
        let source = try Self.photosStore(in: dir, name: "source.trove")
        let target = try Container(store: SQLiteStore(url: dir.file("target.trove"), model: source.model))
        // One pass: the sample has no hierarchies, so the objects an import makes for keys take their records later.
        _ = try ExportRoundTrip.importAll(try ExportRoundTrip.export(source, relationships: .keys), into: target)
        #expect(try ExportRoundTrip.contents(of: target) == ExportRoundTrip.contents(of: source))

        let store = try #require(source.store as? SQLiteStore)
        let token = try store.changeToken()
        let report = try ExportRoundTrip.importAll(try ExportRoundTrip.export(source, relationships: .keys), into: source)
        #expect(report.entities.values.allSatisfy { $0.inserted == 0 && $0.updated == 0 && $0.stubs == 0 })
        #expect(report.entities["Photo"]?.unchanged == 1992)
        #expect(try store.changeToken() == token)
    }

    // MARK: Keys, values and relationships

    /// People with a compound key, notes without a key, ordered and dotted remote keys.
    static func model() throws -> Model {
        try Model {
            Entity("Person", uniqueBy: [["first", "last"]]) {
                Attribute("first", .string, optional: false)
                Attribute("last", .string, optional: false)
                Attribute("city", .string, remoteKey: ["address.city"])
                Attribute("zip", .string, remoteKey: ["address.zip"])
                Relationship("notes", to: "Note", toMany: true, ordered: true, inverse: "person")
                Relationship("team", to: "Team", inverse: "members")
            }
            Entity("Note") {
                Attribute("text", .string)
                Relationship("person", to: "Person", inverse: "notes")
            }
            Entity("Team", uniqueBy: [["code"]]) {
                Attribute("code", .integer64, optional: false)
                Relationship("members", to: "Person", toMany: true, ordered: true, inverse: "team")
            }
        }
    }

    /// A team of two people, Ada with three notes in order.
    static func filled(_ dir: TemporaryDirectory, name: String = "people.trove") throws -> Container {
        let container = try Container(store: SQLiteStore(url: dir.file(name), model: model()))
        let context = container.newBackgroundContext()
        let team = try context.insert("Team")
        _ = try team.setValue(Int64(7), forKey: "code")
        var people: [ManagedObject] = []
        for (first, city) in [("Grace", "Arlington"), ("Ada", "London")] {
            let person = try context.insert("Person")
            _ = try person.setValue(first, forKey: "first")
            _ = try person.setValue("X", forKey: "last")
            _ = try person.setValue(city, forKey: "city")
            people.append(person)
        }
        try team.setRelatedObjects(people, forKey: "members")
        let notes = try ["c", "a", "b"].map { text in
            let note = try context.insert("Note")
            _ = try note.setValue(text, forKey: "text")
            return note
        }
        try people[1].setRelatedObjects(notes, forKey: "notes")
        try context.save()
        return container
    }

    @Test func keysAreValuesOrCompoundObjectsInOrderAndKeylessDestinationsAreLeftOut() throws {
        let dir = try TemporaryDirectory()
        let exporter = Exporter(context: try Self.filled(dir).newBackgroundContext())
        let team = try Self.records(exporter.exportJSON(FetchRequest(entityName: "Team")))
        #expect(team == [["code": 7, "members": [["first": "Grace", "last": "X"], ["first": "Ada", "last": "X"]]]])
        let people = try Self.records(exporter.exportJSON(FetchRequest(entityName: "Person", sortDescriptors: [SortKey("first")])))
        // A dotted remote key is a nested object; notes (no unique key) cannot be named, so are left out.
        #expect(people == [["first": "Ada", "last": "X", "address": ["city": "London", "zip": nil], "team": 7],
                           ["first": "Grace", "last": "X", "address": ["city": "Arlington", "zip": nil], "team": 7]])
        let notes = try Self.records(exporter.exportJSON(FetchRequest(entityName: "Note", sortDescriptors: [SortKey("text")])))
        #expect(notes.first == ["text": "a", "person": ["first": "Ada", "last": "X"]])
    }

    @Test func nestedRecordsGoToTheDepthWithoutTheWayBack() throws {
        let dir = try TemporaryDirectory()
        let context = try Self.filled(dir).newBackgroundContext()
        let ada = try #require(try context.fetchFirst("Person", where: "#first == 'Ada'"))
        let one = try Exporter(context: context, options: ExportOptions(relationships: .nested)).record(of: ada)
        // Depth 1: the notes as records, in order, without their way back to Ada; the team's
        // members (its other relationship) as keys.
        #expect(one.objectValue?["notes"] == [["text": "c"], ["text": "a"], ["text": "b"]])
        #expect(one.objectValue?["team"] == ["code": 7])
        let two = try Exporter(context: context, options: ExportOptions(relationships: .nested, depth: 2)).record(of: ada)
        #expect(two.objectValue?["team"] == ["code": 7])
        let none = try Exporter(context: context, options: ExportOptions(relationships: .none)).record(of: ada)
        #expect(none == ["first": "Ada", "last": "X", "address": ["city": "London", "zip": nil]])
    }

    /// Objects without a unique key: an export into an empty store gives them back, with their
    /// links to objects that have keys; importing it again makes them again.
    @Test func keylessObjectsComeBackOnceAndAgainOnEachImport() throws {
        let dir = try TemporaryDirectory()
        let source = try Self.filled(dir)
        let target = try Container(store: SQLiteStore(url: dir.file("copy.trove"), model: source.model))
        let exports = try ExportRoundTrip.export(source, relationships: .keys)
        _ = try ExportRoundTrip.importAll(exports, into: target)
        let notes = { (container: Container) in try ExportRoundTrip.contents(of: container).filter { $0.hasPrefix("Note") } }
        #expect(try notes(target) == notes(source))
        _ = try ExportRoundTrip.importAll(exports, into: target)
        #expect(try target.newBackgroundContext().fetchCount("Note") == 6)
    }

    @Test func everyValueReadsBackAsItself() throws {
        let values: [(Attribute, AttributeValue)] = [
            (Attribute("s", .string), "line\n\"q\" é"),
            (Attribute("i", .integer64), .integer(.min)),
            (Attribute("d", .double), .double(1.0 / 3)),
            (Attribute("f", .float), .double(Double(Float(0.1)))),
            (Attribute("m", .decimal), .decimal(Decimal(string: "-12345678901234567890.123") ?? 0)),
            (Attribute("b", .boolean), false),
            (Attribute("t", .date), .date(Date(timeIntervalSinceReferenceDate: 12.000123))),
            (Attribute("t", .date, dateFormat: .epochSeconds), .date(Date(timeIntervalSinceReferenceDate: 1_000_000.25))),
            (Attribute("t", .date, dateFormat: .epochMilliseconds), .date(Date(timeIntervalSinceReferenceDate: 7))),
            (Attribute("t", .date, dateFormat: .pattern("dd/MM/yyyy HH:mm")), .date(Date(timeIntervalSinceReferenceDate: 600))),
            (Attribute("x", .binary), .binary(Data([0, 255, 7]))),
            (Attribute("u", .uuid), .uuid(UUID())),
            (Attribute("r", .uri), .uri(URL(string: "https://a.example/é?q=1") ?? URL(fileURLWithPath: "/"))),
            (Attribute("c", .character), .character("👍🏽")),
            (Attribute("j", .json), .json(["a": [1, nil, "2.50"]])),
        ]
        for (attribute, value) in values {
            let json = AttributeWriter(attribute).json(value)
            #expect(try AttributeCoercer(attribute).coerce(json).get().value == value, "\(attribute.name): \(json.serialized())")
        }
        #expect(AttributeWriter(Attribute("t", .date)).json(.date(Date(timeIntervalSince1970: 1_311_460_240))) == "2011-07-23T22:30:40.000Z")
        #expect(AttributeWriter(Attribute("d", .double)).json(.double(.infinity)) == nil)
    }

    // MARK: Framing and bad input

    @Test func jsonIsOneArrayAndNDJSONARecordPerLine() throws {
        let dir = try TemporaryDirectory()
        let exporter = Exporter(context: try Self.filled(dir).newBackgroundContext())
        let request = FetchRequest(entityName: "Team")
        #expect(String(decoding: try exporter.exportJSON(request, format: .ndjson), as: UTF8.self)
                    == #"{"code":7,"members":[{"first":"Grace","last":"X"},{"first":"Ada","last":"X"}]}"# + "\n")
        #expect(String(decoding: try exporter.exportJSON(FetchRequest(entityName: "Team", predicate: ObjectPredicate(format: "code == 8"))), as: UTF8.self) == "[]\n")
        var pieces = 0
        #expect(try exporter.export(FetchRequest(entityName: "Note"), format: .json) { _ in pieces += 1 } == 3)
        #expect(pieces == 1, "pieces of 64 KiB: three records and the array's end in one")
    }

    @Test func badOptionsAndUnknownEntitiesWriteNothing() throws {
        let dir = try TemporaryDirectory()
        let context = try Self.filled(dir).newBackgroundContext()
        var written: [UInt8] = []
        #expect { try Exporter(context: context).export(FetchRequest(entityName: "Photo"), format: .json) { written += $0 } } throws: { error in
            (error as? ExportError)?.code == .unknownEntity && "\(error)".contains("Person, Note, Team")
        }
        for options in [ExportOptions(relationships: .nested, depth: 0), ExportOptions(depth: 17), ExportOptions(batchSize: 0)] {
            #expect { try Exporter(context: context, options: options).export(FetchRequest(entityName: "Team"), format: .json) { written += $0 } } throws: { error in
                (error as? ExportError)?.code == .invalidOptions
            }
        }
        #expect(written.isEmpty)
    }
}
