import Foundation
import Testing
import Trove
import TroveTesting

/// The cases the reference texts walk through, imported end to end.
@Suite struct ReferenceCasesTests {
    /// "Handling incoming JSON redux": clothing sizes arrive as "30-32" or as the bare number 8,
    /// both for a string attribute; a char attribute takes the first character of a string.
    @Test func clothingSizesAndCharacters() throws {
        let model = try Model {
            Entity("Garment", uniqueBy: [["sku"]]) {
                Attribute("sku", .string, optional: false)
                Attribute("size", .string)
                Attribute("fit", .character)
                Attribute("price", .decimal)
            }
        }
        let context = try Container(store: SQLiteStore(inMemoryWith: model)).newBackgroundContext()
        let report = try Importer(context: context).importJSON(Data("""
            [{"sku": "j1", "size": "30-32", "fit": "Slim", "price": "49.90"},
             {"sku": "j2", "size": 8, "fit": "R", "price": 19.9},
             {"sku": 3, "size": 10.5}]
            """.utf8), into: "Garment")
        #expect(report.rejected.isEmpty)
        let sizes = try context.fetch("Garment", sortedBy: "sku").map { try $0.value(forKey: "size") }
        #expect(sizes == ["10.5", "30-32", "8"])
        #expect(try context.fetchFirst("Garment", whereKey: "sku", equals: "j1")?.value(forKey: "fit") == .character("S"))
        #expect(try context.fetchFirst("Garment", whereKey: "sku", equals: "3") != nil, "a number for a string key finds \"3\"")
        #expect(try context.fetchFirst("Garment", whereKey: "sku", equals: "j1")?.value(forKey: "price") == .decimal(Decimal(string: "49.90")!))
        #expect(report.coercions[.numberToString] == 3 && report.coercions[.stringToCharacter] == 1)
    }

    /// DCTCoreData: the service sends `id` and `description` (names a managed object cannot
    /// use), mapped to `groupID` and `groupDescription`; a date in seconds since 1970 through a
    /// transformer; items found by their unique `theID`; nested objects hooked up.
    @Test func dctGroupsAndItems() throws {
        let model = try Model {
            Entity("Group", uniqueBy: [["groupID"]]) {
                Attribute("groupID", .integer64, optional: false, remoteKey: ["id"])
                Attribute("groupDescription", .string, remoteKey: ["description"])
                Attribute("created", .date, transformer: "secondsSince1970")
                Relationship("items", to: "Item", toMany: true, inverse: "group", deleteRule: .cascade)
            }
            Entity("Item", uniqueBy: [["theID"]]) {
                Attribute("theID", .string, optional: false, remoteKey: ["id"])
                Attribute("name", .string)
                Relationship("group", to: "Group", inverse: "items")
            }
        }
        let context = try Container(store: SQLiteStore(inMemoryWith: model)).newBackgroundContext()
        let payload = Data("""
            {"id": 7, "description": "Cyclists", "created": 1285800000,
             "items": [{"id": "1234", "name": "Helmet"}, {"id": 1235, "name": "Pump"}]}
            """.utf8)
        let report = try Importer(context: context).importJSON(payload, into: "Group")
        #expect(report.rejected.isEmpty)
        let group = try #require(try context.fetchFirst("Group", whereKey: "groupID", equals: 7))
        #expect(try group.value(forKey: "groupDescription") == "Cyclists")
        #expect(try group.value(forKey: "created") == .date(Date(timeIntervalSince1970: 1_285_800_000)))
        #expect(try Set(group.relatedObjects(forKey: "items").map { try $0.value(forKey: "theID") }) == ["1234", "1235"])

        // The same item arrives again with a changed name: found by theID == '1234', updated.
        let again = try Importer(context: context).importJSON(Data(#"[{"id": "1234", "name": "Blue helmet"}]"#.utf8), into: "Item")
        #expect(again.entities["Item"]?.updated == 1 && again.entities["Item"]?.inserted == 0)
        #expect(try context.fetchCount("Item") == 2)
        #expect(try context.fetchFirst("Item", whereKey: "theID", equals: "1234")?.relatedObject(forKey: "group") === group)
    }

    /// Plain Swift types get the same coercion rules and report through the lenient decoder.
    @Test func plainSwiftTypesToo() throws {
        struct Garment: Decodable { let sku: String; let size: String; let views: Int; let added: Date }
        let decoded = try LenientDecoder().decodeRecords(Garment.self, from: Data("""
            [{"sku": 1, "size": 8, "views": "12", "added": "2011-07-23T22:30:40Z"},
             {"sku": "x", "size": "M", "views": "lots", "added": 0}]
            """.utf8))
        #expect(decoded.values.map(\.size) == ["8"])
        #expect(decoded.values.first?.views == 12)
        #expect(decoded.report.rejections.map(\.path) == ["views"])
        #expect(decoded.report.counts[.numberToString] == 2)
    }
}
