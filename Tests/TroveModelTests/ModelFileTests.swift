import Foundation
import Testing
import TroveModel

@Suite struct ModelFileTests {
    @Test func loadsTheDesignExample() throws {
        let model = try Model(fileData: Data(designExample.utf8))
        #expect(model.keyStyle == .snakeCase)
        #expect(model.warnings.isEmpty)
        #expect(model.entities.map(\.name) == ["Photographer", "Photo"])

        let photographer = try #require(model.entity(named: "Photographer"))
        #expect(photographer.uniqueBy == [["id"]])
        #expect(photographer.attributes == [Attribute("id", .string, optional: false), Attribute("name", .string)])
        #expect(photographer.relationships == [
            Relationship("photos", to: "Photo", toMany: true, inverse: "whoTook", deleteRule: .cascade),
        ])

        let photo = try #require(model.entity(named: "Photo"))
        #expect(photo.uniqueBy == [["id"]])
        #expect(photo.attributes == [
            Attribute("id", .string, optional: false),
            Attribute("title", .string),
            Attribute("uploadDate", .date, remoteKey: ["upload_date"], dateFormat: .iso8601),
            Attribute("views", .integer64, default: 0),
        ])
        #expect(photo.relationships == [
            Relationship("whoTook", to: "Photographer", inverse: "photos", deleteRule: .nullify, remoteKey: ["owner"]),
        ])
    }

    @Test func designExampleEqualsTheSameModelBuiltInCode() throws {
        let fromFile = try Model(fileData: Data(designExample.utf8))
        let inCode = try Model(keyStyle: .snakeCase) {
            Entity("Photographer", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("name", .string)
                Relationship("photos", to: "Photo", toMany: true, inverse: "whoTook", deleteRule: .cascade)
            }
            Entity("Photo", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("title", .string)
                Attribute("uploadDate", .date, remoteKey: ["upload_date"], dateFormat: .iso8601)
                Attribute("views", .integer64, default: 0)
                Relationship("whoTook", to: "Photographer", inverse: "photos", remoteKey: ["owner"])
            }
        }
        #expect(fromFile == inCode)
        #expect(fromFile.versionHash == inCode.versionHash)
    }

    @Test func roundTripKeepsEveryKeyAndType() throws {
        let model = try everythingModel()
        let data = model.fileData()
        let reloaded = try Model(fileData: data)
        #expect(reloaded == model)
        #expect(reloaded.fileData() == data)
        #expect(reloaded.warnings == model.warnings)
        #expect(!model.warnings.isEmpty)
    }

    @Test func writesOnlyDeclaredPropertiesAndNonDefaultKeys() throws {
        let model = try everythingModel()
        let json = try JSONValue(parsing: model.fileData())
        let entities = try #require(json.objectValue?["entities"]?.arrayValue)
        let ebook = try #require(entities.first { $0.objectValue?["name"] == "Ebook" }?.objectValue)
        #expect(ebook["parent"] == "Book")
        #expect(ebook["attributes"]?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue } == ["fileSize"])
        #expect(ebook["relationships"] == nil)
        #expect(ebook["uniqueBy"] == nil)
        let author = try #require(entities.first { $0.objectValue?["name"] == "Author" }?.objectValue)
        let name = try #require(author["attributes"]?.arrayValue?.first)
        #expect(name == ["name": "name", "type": "string"])
        let item = try #require(entities.first { $0.objectValue?["name"] == "Item" }?.objectValue)
        #expect(item["uniqueBy"] == [["code"], ["region", "serial"]])
        let book = try #require(entities.first { $0.objectValue?["name"] == "Book" }?.objectValue)
        #expect(book["uniqueBy"] == ["isbn"])
        #expect(json.objectValue?["keyStyle"] == "snake_case")
    }

    @Test func fileTextIsCanonical() throws {
        let model = try Model(fileData: Data(designExample.utf8))
        let text = String(decoding: model.fileData(), as: UTF8.self)
        #expect(text.hasPrefix("{\n  \"entities\": [\n    {\n      \"attributes\": ["))
        #expect(text.hasSuffix("\n  \"keyStyle\": \"snake_case\"\n}\n"))
        #expect(!text.contains("\"toMany\": false"))
        #expect(!text.contains("nullify"))
    }

    @Test func loadsFromAURL() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trove-model-\(UUID().uuidString).json")
        try Data(designExample.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try Model(contentsOf: url) == Model(fileData: Data(designExample.utf8)))
    }

    @Test func unreadableFileIsAnIssueAtTheRoot() {
        let url = URL(fileURLWithPath: "/nonexistent/trove/model.json")
        let error = #expect(throws: ModelError.self) { try Model(contentsOf: url) }
        #expect(error?.issues.map(\.path) == ["$"])
        #expect(error?.issues.first?.message.hasPrefix("cannot read the model file /nonexistent/trove/model.json") == true)
    }

    @Test func fileValuesConvertByAttributeType() throws {
        let model = try Model(fileData: Data(photoFile(attributes: """
            [ { "name": "small", "type": "integer16", "default": 3.0, "min": -32768 },
              { "name": "ratio", "type": "double", "default": 2, "max": 1e3 },
              { "name": "price", "type": "decimal", "default": 12345678901234567890.123 },
              { "name": "taken", "type": "date", "default": "2024-01-31T10:30:00.250+01:00",
                "min": "2000-01-01", "max": "2100-01-01T00:00:00Z" },
              { "name": "blob", "type": "binary", "default": "AAEC/w==", "max": 16 },
              { "name": "key", "type": "uuid", "default": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f" },
              { "name": "link", "type": "uri", "default": "https://example.com/a?b=c" },
              { "name": "grade", "type": "character", "default": "B" },
              { "name": "flag", "type": "boolean", "default": true },
              { "name": "extra", "type": "json", "default": {"a": [1, null]} },
              { "name": "none", "type": "json", "default": null },
              { "name": "plain", "type": "string", "default": null } ]
            """).utf8))
        let values = try #require(model.entity(named: "Photo")).attributes.map(\.defaultValue)
        #expect(values[0] == .integer(3))
        #expect(values[1] == .double(2))
        #expect(values[2] == .decimal(try #require(Decimal(string: "12345678901234567890.123"))))
        #expect(values[3] == .date(Date(timeIntervalSince1970: 1_706_693_400.25)))
        #expect(values[4] == .binary(Data([0, 1, 2, 255])))
        #expect(values[5] == .uuid(try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))))
        #expect(values[6] == .uri(try #require(URL(string: "https://example.com/a?b=c"))))
        #expect(values[7] == .character("B"))
        #expect(values[8] == .boolean(true))
        #expect(values[9] == .json(["a": [1, nil]]))
        #expect(values[10] == .json(.null))
        #expect(values[11] == .null)
        let taken = try #require(model.entity(named: "Photo")?.attribute(named: "taken"))
        #expect(taken.minimum == .date(Date(timeIntervalSince1970: 946_684_800)))
        #expect(taken.maximum == .date(Date(timeIntervalSince1970: 4_102_444_800)))
        #expect(model.entity(named: "Photo")?.attribute(named: "small")?.minimum == .integer(-32768))
        #expect(model.entity(named: "Photo")?.attribute(named: "ratio")?.maximum == .double(1000))
    }

    @Test(arguments: [
        1_700_000_000.0, 1_700_000_000.123, 1_700_000_000.000_123_4, -1_234_567_890.5, 0.25, -0.75, 978_307_200.0,
        253_402_300_799.999, -62_135_596_800.0,
    ])
    func datesRoundTripExactly(secondsSince1970: Double) throws {
        let date = Date(timeIntervalSince1970: secondsSince1970)
        let model = try Model { Entity("Event") { Attribute("at", .date, default: .date(date)) } }
        let reloaded = try Model(fileData: model.fileData())
        #expect(reloaded == model)
        #expect(reloaded.entity(named: "Event")?.attributes[0].defaultValue == .date(date))
    }

    @Test func versionHashIsStableAcrossCodeAndFile() throws {
        let fromFile = try Model(fileData: Data(designExample.utf8))
        let again = try Model(fileData: Data(designExample.utf8))
        #expect(fromFile.versionHash == again.versionHash)
        #expect(fromFile.versionHash.count == 16)

        let retyped = try Model(fileData: Data(designExample.replacingOccurrences(
            of: #""type": "integer64", "default": 0"#, with: #""type": "integer32", "default": 0"#).utf8))
        #expect(retyped.versionHash != fromFile.versionHash)

        let remapped = try Model(fileData: Data(designExample.replacingOccurrences(
            of: #""remoteKey": "upload_date""#, with: #""remoteKey": ["uploaded_at", "meta.uploadDate"]"#).utf8))
        #expect(remapped != fromFile)
        #expect(remapped.versionHash == fromFile.versionHash)
    }
}

/// A model that uses every key of the model file and every attribute type.
func everythingModel() throws -> Model {
    let price = try #require(Decimal(string: "12345678901234567890.125"))
    let key = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    let link = try #require(URL(string: "https://example.com/a?b=c#d"))
    return try Model(keyStyle: .snakeCase) {
        Entity("Item", abstract: true, uniqueBy: [["code"], ["region", "serial"]], remoteName: "item") {
            Attribute("code", .string, optional: false, default: "ABC", min: 1, max: 20, regex: "^[A-Z]+$",
                      remoteKey: ["code", "meta.code"], transformer: "uppercase")
            Attribute("region", .integer16, default: 3, min: -5, max: 300)
            Attribute("serial", .integer32, default: 70000)
            Attribute("count", .integer64, default: .integer(.max), min: .integer(.min))
            Attribute("ratio", .double, default: 0, min: -1.5, max: 1e300)
            Attribute("weight", .float, default: 0.1)
            Attribute("price", .decimal, default: .decimal(price), min: 0, max: 1e30)
            Attribute("active", .boolean, default: true)
            Attribute("created", .date, default: .date(Date(timeIntervalSince1970: 1_700_000_000.123)),
                      min: .date(Date(timeIntervalSince1970: 0)), dateFormat: .pattern("yyyy-MM-dd HH:mm:ss"))
            Attribute("updated", .date, dateFormat: .epochMilliseconds)
            Attribute("seen", .date, remoteKey: ["seen_at"], dateFormat: .epochSeconds)
            Attribute("blob", .binary, default: .binary(Data([0, 1, 2, 255])), max: 1024)
            Attribute("key", .uuid, default: .uuid(key))
            Attribute("link", .uri, default: .uri(link))
            Attribute("grade", .character, default: "A")
            Attribute("extra", .json, default: .json(["a": [1, "two", nil, true], "b": ["c": .number("2.5")]]))
            Attribute("nothing", .json, default: .json(.null))
        }
        Entity("Book", parent: "Item", uniqueBy: [["isbn"]]) {
            Attribute("isbn", .string)
            Relationship("authors", to: "Author", toMany: true, ordered: true, inverse: "books", deleteRule: .deny,
                         optional: false, minCount: 1, maxCount: 10, remoteKey: ["authors", "writers"],
                         importPolicy: .union, referenceKey: "name")
            Relationship("sequel", to: "Book", inverse: "prequel", deleteRule: .noAction, remoteKey: ["next"])
            Relationship("prequel", to: "Book", inverse: "sequel")
        }
        Entity("Author") {
            Attribute("name", .string)
            Relationship("books", to: "Book", toMany: true, inverse: "authors", deleteRule: .cascade,
                         importPolicy: .replaceDeletingOrphans)
            Relationship("friends", to: "Author", toMany: true, inverse: "friends")
            Relationship("fans", to: "Item", toMany: true)
        }
        Entity("Ebook", parent: "Book") {
            Attribute("fileSize", .integer64)
        }
    }
}
