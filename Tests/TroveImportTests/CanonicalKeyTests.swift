import Foundation
import PropertyBased
import Testing
import Trove
import TroveTesting

/// Text is compared by its UTF-8 bytes everywhere (SQLite, predicates, the importer, change
/// detection): `"e\u{301}"` and `"\u{e9}"` are two keys whatever the batch size and the write
/// path, each findable, and changing one into the other is an update.
@Suite struct CanonicalKeyTests {
    let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory()
    }

    static let decomposed = "e\u{301}"
    static let precomposed = "\u{e9}"

    static func model() throws -> Model {
        try Model {
            Entity("Owner", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("title", .string)
            }
        }
    }

    /// A fresh store of ``model()``.
    func store(_ name: String) throws -> Container {
        try Container(store: SQLiteStore(url: dir.file(name), model: Self.model()))
    }

    /// Imports `records` (JSON objects) with `batchSize`; `asObjects` adds an after-record hook
    /// that does nothing but makes the importer apply records as objects.
    static func run(_ records: [String], into container: Container, batchSize: Int, asObjects: Bool) throws -> ImportReport {
        var options = ImportOptions(batchSize: batchSize)
        if asObjects { options.hooks.afterRecord(of: "Owner") { _, _ in } }
        let importer = Importer(context: container.newBackgroundContext(), options: options)
        return try importer.importJSON(Data(("[" + records.joined(separator: ",") + "]").utf8), into: "Owner")
    }

    /// Every owner as the bytes of its id and title, in byte order.
    static func contents(of container: Container) throws -> [[UInt8]] {
        try container.newBackgroundContext().fetch("Owner").map { owner in
            let id = try owner.value(forKey: "id").text ?? "-"
            let title = try owner.value(forKey: "title").text ?? "-"
            return Array(id.utf8) + [0] + Array(title.utf8)
        }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// `text` as JSON with every non-ASCII scalar escaped, so the JSON keeps its exact scalars.
    static func json(_ text: String) -> String {
        "\"" + text.unicodeScalars.map { $0.isASCII ? String($0) : String(format: "\\u%04x", $0.value) }.joined() + "\""
    }

    static func record(_ id: String, _ title: String? = nil) -> String {
        "{\"id\": \(json(id))" + (title.map { ", \"title\": \(json($0))" } ?? "") + "}"
    }

    @Test(arguments: [false, true], [1, 1000])
    func equivalentKeysAreTwoObjectsWhateverTheBatchAndPath(asObjects: Bool, batchSize: Int) throws {
        let container = try store("keys.trove")
        let records = [Self.record(Self.decomposed, "nfd"), Self.record(Self.precomposed, "nfc")]
        let report = try Self.run(records, into: container, batchSize: batchSize, asObjects: asObjects)
        #expect(report.entities["Owner"]?.inserted == 2)
        let context = container.newBackgroundContext()
        #expect(try context.fetchCount("Owner") == 2)
        for (key, title) in [(Self.decomposed, "nfd"), (Self.precomposed, "nfc")] {
            let owner = try #require(try context.fetchFirst("Owner", whereKey: "id", equals: key), "\(Self.json(key)) is findable")
            #expect(try owner.value(forKey: "title") == .string(title))
            #expect(Array(try owner.value(forKey: "id").text?.utf8 ?? "".utf8) == Array(key.utf8))
        }
    }

    @Test(arguments: [false, true])
    func changingATitleToAnEquivalentSpellingIsAnUpdate(asObjects: Bool) throws {
        let container = try store("titles.trove")
        _ = try Self.run([Self.record("a", "caf" + Self.decomposed)], into: container, batchSize: 10, asObjects: asObjects)
        let report = try Self.run([Self.record("a", "caf" + Self.precomposed)], into: container, batchSize: 10, asObjects: asObjects)
        #expect(report.entities["Owner"]?.updated == 1 && report.entities["Owner"]?.unchanged == 0)
        let owner = try #require(try container.newBackgroundContext().fetchFirst("Owner", whereKey: "id", equals: "a"))
        #expect(Array(try owner.value(forKey: "title").text?.utf8 ?? "".utf8) == Array(("caf" + Self.precomposed).utf8))
        let again = try Self.run([Self.record("a", "caf" + Self.precomposed)], into: container, batchSize: 10, asObjects: asObjects)
        #expect(again.entities["Owner"]?.unchanged == 1, "the same bytes again change nothing")
    }

    @Test func settingAnEquivalentSpellingIsAChange() throws {
        let container = try store("set.trove")
        let context = container.newBackgroundContext()
        let owner = try context.insert("Owner")
        try owner.setValue("a", forKey: "id")
        try owner.setValue(Self.decomposed, forKey: "title")
        try context.save()
        #expect(try owner.setValue(Self.precomposed, forKey: "title"), "other bytes are another value")
        #expect(owner.isUpdated)
        #expect(try !owner.setValue(Self.precomposed, forKey: "title"), "the same bytes are not")
        try context.save()
        let stored = try #require(try container.newBackgroundContext().fetchFirst("Owner", whereKey: "title", equals: Self.precomposed))
        #expect(try stored.value(forKey: "id") == "a")
    }

    /// Records read straight from their bytes, and records parsed whole (an entity with a
    /// before-record hook), match member keys to remote keys the same way: byte for byte.
    @Test(arguments: [false, true])
    func recordKeysMatchRemoteKeysByBytes(parsedWhole: Bool) throws {
        let model = try Model {
            Entity("Owner", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("title", .string, remoteKey: ["caf" + Self.precomposed])
            }
        }
        let container = try Container(store: SQLiteStore(url: dir.file("remote.trove"), model: model))
        var options = ImportOptions()
        if parsedWhole { options.hooks.beforeRecord(of: "Owner") { $0 } }
        let json = "[" + ["{\"id\": \"a\", \(Self.json("caf" + Self.decomposed)): \"nfd\"}",
                          "{\"id\": \"b\", \(Self.json("caf" + Self.precomposed)): \"nfc\"}"].joined(separator: ",") + "]"
        let report = try Importer(context: container.newBackgroundContext(), options: options).importJSON(Data(json.utf8), into: "Owner")
        #expect(report.unknownKeys.values.reduce(0, +) == 1, "the decomposed key is not the remote key")
        let context = container.newBackgroundContext()
        #expect(try context.fetchFirst("Owner", whereKey: "id", equals: "a")?.value(forKey: "title") == .null)
        #expect(try context.fetchFirst("Owner", whereKey: "id", equals: "b")?.value(forKey: "title") == "nfc")
    }

    /// One record holding both spellings of a key: two members, so the remote key's value is
    /// the one under its own bytes, the other an unknown key — read from bytes or parsed whole,
    /// in either order. (Parsed whole, the record once kept one of the two, the last, under the
    /// first's spelling, so the remote key got the other's value or none.)
    @Test(arguments: [false, true], [false, true])
    func bothSpellingsInOneRecordAreTwoKeys(parsedWhole: Bool, decomposedFirst: Bool) throws {
        let model = try Model {
            Entity("Owner", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("title", .string, remoteKey: [Self.precomposed])
                Attribute("notes", .json)
            }
        }
        let container = try Container(store: SQLiteStore(url: dir.file("both-\(parsedWhole)-\(decomposedFirst).trove"), model: model))
        var options = ImportOptions()
        if parsedWhole { options.hooks.beforeRecord(of: "Owner") { $0 } }
        var members = ["\(Self.json(Self.precomposed)): \"nfc\"", "\(Self.json(Self.decomposed)): \"nfd\""]
        if decomposedFirst { members.reverse() }
        let json = "[{\"id\": \"a\", \(members.joined(separator: ", ")), \"notes\": {\(members.joined(separator: ", "))}}]"
        let report = try Importer(context: container.newBackgroundContext(), options: options).importJSON(Data(json.utf8), into: "Owner")
        #expect(report.rejectedCount == 0)
        #expect(report.unknownKeys.map { Array($0.key.utf8) } == [Array("Owner.\(Self.decomposed)".utf8)], "the decomposed key is not the remote key")
        let owner = try #require(try container.newBackgroundContext().fetchFirst("Owner", whereKey: "id", equals: "a"))
        #expect(try owner.value(forKey: "title") == "nfc")
        // A json value keeps both members.
        #expect(try owner.value(forKey: "notes") == .json(.object([Self.precomposed: "nfc", Self.decomposed: "nfd"])))
    }

    @Test func valuesCompareByBytes() {
        #expect(AttributeValue.string(Self.decomposed) != .string(Self.precomposed))
        #expect(AttributeValue.string(Self.decomposed) == .string("e" + "\u{301}"))
        #expect(AttributeValue.character(Character(Self.decomposed)) != .character(Character(Self.precomposed)))
        #expect(AttributeValue.json(["k": .string(Self.decomposed)]) != .json(["k": .string(Self.precomposed)]))
        #expect(AttributeValue.json([.string(Self.decomposed)]) != .json([.string(Self.precomposed)]))
        #expect(JSONValue.object([Self.decomposed: 1]) != .object([Self.precomposed: 1]), "object keys too")
        #expect(JSONValue.object([Self.decomposed: 1, "b": [true, nil]]) == .object(["b": [true, nil], Self.decomposed: 1]))
    }

    // MARK: Property

    /// Letters with canonically equivalent spellings (precomposed, decomposed, and a singleton
    /// such as the Ångström sign), and plain ones.
    static let pieces = ["\u{e9}", "e\u{301}", "\u{c5}", "A\u{30a}", "\u{212b}", "\u{1e69}", "s\u{323}\u{307}", "s\u{307}\u{323}",
                         "\u{ac00}", "\u{1100}\u{1161}", "a", "e"]

    /// Records whose keys and titles are one or two of ``pieces``: many keys are equivalent
    /// spellings of each other, and some repeat byte for byte.
    static let records = Generator<[String], Shrink.None<[String]>> { rng in
        let count = Int.random(in: 1...14, using: &rng)
        return (0..<count).map { _ in
            let key = (0..<Int.random(in: 1...2, using: &rng)).map { _ in pieces.randomElement(using: &rng) ?? "a" }.joined()
            let title = pieces.randomElement(using: &rng) ?? "a"
            return record(key, title)
        }
    }

    /// Whatever the batch size and the write path, the store holds one object per distinct key
    /// bytes, with the title of the key's last record, as importing the records one at a time does.
    @Test func anyBatchSizeAndPathGivesTheStoreOfOneRecordAtATime() async throws {
        var round = 0
        await propertyCheck(count: 25, input: Self.records) { records in
            round += 1
            let reference = try store("one-at-a-time-\(round).trove")
            for record in records {
                _ = try Self.run([record], into: reference, batchSize: 1, asObjects: false)
            }
            let expected = try Self.contents(of: reference)
            var keys: [[UInt8]: [UInt8]] = [:]
            for record in records {
                guard case .object(let members) = try JSONValue(parsing: record),
                      let id = members["id"]?.stringValue, let title = members["title"]?.stringValue else { continue }
                keys[Array(id.utf8)] = Array(title.utf8)
            }
            #expect(expected == keys.map { $0.key + [0] + $0.value }.sorted { $0.lexicographicallyPrecedes($1) })
            for batchSize in [1, 2, 3, 1000] {
                var reports: [ImportReport] = []
                for asObjects in [false, true] {
                    let container = try store("batch-\(round)-\(batchSize)-\(asObjects).trove")
                    var report = try Self.run(records, into: container, batchSize: batchSize, asObjects: asObjects)
                    report.appliedAsObjects = nil
                    reports.append(report)
                    #expect(try Self.contents(of: container) == expected, "batch size \(batchSize), as objects: \(asObjects)")
                }
                #expect(reports[0] == reports[1], "batch size \(batchSize): rows and objects report alike")
            }
        }
    }
}
