import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct QueryTests {
    let fixture: QueryFixture
    let fields = "id,title,taken,views,price,isPublic,whoTook.name,tags.name"

    init() throws {
        fixture = try QueryFixture()
    }

    // MARK: Formats

    @Test func jsonPrintsOneArrayWithKeysAsGiven() throws {
        let result = try fixture.run("query", "Photo", "--fields", fields, "--format", "json")
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout == """
            [
              {"id":"p1","title":"Sunset, \\"golden\\"\\nhour","taken":"2011-07-23T22:30:40.000Z","views":9007199254740993,"price":12345678901234567890.05,"isPublic":true,"whoTook.name":"Ann Ödegaard","tags.name":["zebra","apple"]},
              {"id":"p2","title":"Café ☕ 東京","taken":null,"views":5,"price":0.1,"isPublic":false,"whoTook.name":null,"tags.name":[]},
              {"id":"p3","title":"Mountain","taken":"2020-02-29T12:00:00.250Z","views":42,"price":null,"isPublic":null,"whoTook.name":null,"tags.name":["apple"]}
            ]

            """)
        let parsed = try JSONValue(parsing: result.stdout).arrayValue ?? []
        #expect(parsed.count == 3)
        #expect(parsed.first?.objectValue?["views"]?.int64Value == 9_007_199_254_740_993)
    }

    @Test func ndjsonPrintsOneObjectPerLine() throws {
        let result = try fixture.run("query", "Photo", "--fields", fields, "--format", "ndjson")
        #expect(result.status == 0)
        #expect(result.stdout == """
            {"id":"p1","title":"Sunset, \\"golden\\"\\nhour","taken":"2011-07-23T22:30:40.000Z","views":9007199254740993,"price":12345678901234567890.05,"isPublic":true,"whoTook.name":"Ann Ödegaard","tags.name":["zebra","apple"]}
            {"id":"p2","title":"Café ☕ 東京","taken":null,"views":5,"price":0.1,"isPublic":false,"whoTook.name":null,"tags.name":[]}
            {"id":"p3","title":"Mountain","taken":"2020-02-29T12:00:00.250Z","views":42,"price":null,"isPublic":null,"whoTook.name":null,"tags.name":["apple"]}

            """)
    }

    @Test func csvQuotesWhatNeedsQuotingAndLeavesNilEmpty() throws {
        let result = try fixture.run("query", "Photo", "--fields", fields, "--format", "csv")
        #expect(result.status == 0)
        let lines = [
            "id,title,taken,views,price,isPublic,whoTook.name,tags.name",
            "p1,\"Sunset, \"\"golden\"\"\nhour\",2011-07-23T22:30:40.000Z,9007199254740993,12345678901234567890.05,true,Ann Ödegaard,\"[\"\"zebra\"\",\"\"apple\"\"]\"",
            "p2,Café ☕ 東京,,5,0.1,false,,[]",
            "p3,Mountain,2020-02-29T12:00:00.250Z,42,,,,\"[\"\"apple\"\"]\"",
        ]
        #expect(result.stdout == lines.map { $0 + "\r\n" }.joined())
    }

    @Test func tableAlignsColumnsForPeople() throws {
        let result = try fixture.run("query", "Photo", "--fields", "id,title,views,whoTook.name,tags.name")
        #expect(result.status == 0)
        #expect(result.stdout == """
            id  title                   views             whoTook.name  tags.name
            --  ----------------------  ----------------  ------------  ------------
            p1  Sunset, "golden"\\nhour  9007199254740993  Ann Ödegaard  zebra, apple
            p2  Café ☕ 東京                           5
            p3  Mountain                              42                apple

            """)
    }

    @Test func tableCutsLongCells() throws {
        let context = try Container(store: SQLiteStore(url: URL(fileURLWithPath: fixture.storePath))).newBackgroundContext()
        let photo = try context.insert("Photo")
        try photo.setValue("p4", forKey: "id")
        try photo.setValue(String(repeating: "x", count: 60), forKey: "title")
        try context.save()
        let result = try fixture.run("query", "Photo", "--fields", "id,title", "--where", "id = 'p4'")
        #expect(result.stdout == "id  title\n--  \(String(repeating: "-", count: 40))\np4  \(String(repeating: "x", count: 39))…\n")
    }

    @Test func withoutFieldsEveryAttributePrintsInModelOrder() throws {
        let result = try fixture.run("query", "Photo", "--where", "id == 'p2'", "--format", "ndjson")
        #expect(result.stdout == "{\"id\":\"p2\",\"title\":\"Café ☕ 東京\",\"taken\":null,\"views\":5,\"price\":0.1,\"isPublic\":false}\n")
    }

    @Test func toManyKeyPathsFollowPrimaryKeyOrderWhenUnordered() throws {
        let result = try fixture.run("query", "Photographer", "--fields", "id,photos.id,studio.city", "--format", "ndjson")
        #expect(result.stdout == """
            {"id":"ann","photos.id":["p1"],"studio.city":null}
            {"id":"bob","photos.id":["p3"],"studio.city":"Oslo"}

            """)
    }

    @Test func emptyResults() throws {
        let none = ["--where", "views < 0"]
        #expect(try fixture.run("query", "Photo", "--format", "json", none[0], none[1]).stdout == "[]\n")
        #expect(try fixture.run("query", "Photo", "--format", "ndjson", none[0], none[1]).stdout == "")
        #expect(try fixture.run("query", "Photo", "--format", "csv", "--fields", "id,views", none[0], none[1]).stdout == "id,views\r\n")
        #expect(try fixture.run("query", "Photo", "--fields", "id,views", none[0], none[1]).stdout == "id  views\n--  -----\n")
    }

    @Test func everyAttributeTypeInJSON() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("things.trove").path
        let context = try Container(model: SampleModels.everyType(), url: URL(fileURLWithPath: path)).newBackgroundContext()
        let thing = try context.insert("Thing")
        let values: [String: AttributeValue] = [
            "stringValue": "s", "integer16Value": -7, "integer32Value": 70000, "integer64Value": .integer(.max),
            "doubleValue": 0.1, "floatValue": .double(Double(Float(0.1))),
            "decimalValue": .decimal(Decimal(string: "3.14159265358979323846") ?? 0), "booleanValue": true,
            "dateValue": .date(Date(timeIntervalSince1970: 0.001)), "binaryValue": .binary(Data([0, 1, 2, 255])),
            "uuidValue": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()),
            "uriValue": .uri(URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/")),
            "characterValue": .character("é"), "jsonValue": .json(["b": [1, 2], "a": nil]),
        ]
        for (key, value) in values { try thing.setValue(value, forKey: key) }
        try context.insert("Thing")
        try context.save()

        let result = try CLIRunner.run(["query", path, "Thing", "--format", "ndjson"])
        #expect(result.status == 0)
        #expect(result.stdout == """
            {"stringValue":"s","integer16Value":-7,"integer32Value":70000,"integer64Value":9223372036854775807,"doubleValue":0.1,"floatValue":0.1,"decimalValue":3.14159265358979323846,"booleanValue":true,"dateValue":"1970-01-01T00:00:00.001Z","binaryValue":"AAEC/w==","uuidValue":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","uriValue":"https://example.com/a?b=c","characterValue":"é","jsonValue":{"a":null,"b":[1,2]}}
            {"stringValue":null,"integer16Value":null,"integer32Value":null,"integer64Value":null,"doubleValue":null,"floatValue":null,"decimalValue":null,"booleanValue":null,"dateValue":null,"binaryValue":null,"uuidValue":null,"uriValue":null,"characterValue":null,"jsonValue":null}

            """)
    }

    // MARK: Arguments, order, window

    @Test(arguments: [
        ("taken > %@", "2015-01-01", "p3"),
        ("taken = %@", "2011-07-23T22:30:40Z", "p1"),
        ("views > %@", "41", "p1,p3"),
        ("views <= %@", "5.5", "p2"),
        ("price < %@", "1", "p2"),
        ("isPublic = %@", "false", "p2"),
        ("isPublic == %@", "TRUE", "p1"),
        ("title CONTAINS[cd] %@", "cafe", "p2"),
        ("whoTook.name BEGINSWITH %@", "Ann", "p1"),
        ("ANY tags.name = %@", "apple", "p1,p3"),
        ("%@ = views", "42", "p3"),
        ("views IN {%@, %@}", "5", "p2"),
    ])
    func argumentsAreReadAsTheTypeOfTheirKey(predicate: String, argument: String, expected: String) throws {
        var arguments = ["--where", predicate, "--arg", argument]
        if predicate.contains("IN {") { arguments += ["--arg", "42"] }
        let result = try CLIRunner.run(["query", fixture.storePath, "Photo", "--fields", "id", "--format", "csv"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let ids = result.stdout.split(separator: "\r\n").dropFirst().joined(separator: ",")
        #expect(ids == (predicate.contains("IN {") ? "p2,p3" : expected))
    }

    @Test func sortLimitAndOffset() throws {
        let byViews = try fixture.run("query", "Photo", "--fields", "id", "--format", "ndjson", "--sort", "-views", "--limit", "2", "--offset", "1")
        #expect(byViews.stdout == "{\"id\":\"p3\"}\n{\"id\":\"p2\"}\n")
        let byTitle = try fixture.run("query", "Photo", "--fields", "title", "--format", "csv", "--sort", "title:ci")
        #expect(byTitle.stdout.split(separator: "\r\n").map(String.init) == ["title", "Café ☕ 東京", "Mountain", "\"Sunset, \"\"golden\"\"\nhour\""])
        let byOwner = try fixture.run("query", "Photo", "--fields", "id", "--format", "ndjson", "--sort", "whoTook.name,-id", "--offset", "1")
        #expect(byOwner.stdout == "{\"id\":\"p2\"}\n{\"id\":\"p1\"}\n", "nil names first (p3, p2 by -id), then ascending")
    }

    // MARK: Errors

    @Test func malformedPredicateShowsACaretAndExitsWithOne() throws {
        let result = try fixture.run("query", "Photo", "--where", "views > > 3")
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == """
            trove: --where: syntax error at column 9: expected a value after '>', found '>'
              views > > 3
                      ^

            """)
    }

    @Test func unknownKeysNameTheEntityAndSuggest() throws {
        let result = try fixture.run("query", "Photo", "--where", "veiws > 3")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("trove: --where: invalid predicate at column 1: Photo has no key 'veiws'; did you mean 'views'?\n"))

        let sort = try fixture.run("query", "Photo", "--sort", "titel")
        #expect(sort.status == 1)
        #expect(sort.stderr == "trove: --sort: Photo has no key 'titel'; did you mean 'title'?\n")

        let field = try fixture.run("query", "Photo", "--fields", "id,whoTook.nmae")
        #expect(field.status == 1)
        #expect(field.stderr == "trove: --fields: Photographer has no key 'nmae' (in 'whoTook.nmae'); did you mean 'name'?\n")
    }

    @Test func argumentsThatDoNotFitTheirKey() throws {
        let date = try fixture.run("query", "Photo", "--where", "taken > %@", "--arg", "soon")
        #expect(date.status == 1)
        #expect(date.stderr.hasPrefix("""
            trove: --where: invalid predicate at column 7: argument 1 ("soon") does not fit date attribute 'taken': expected an ISO 8601 date such as 2011-07-23 or 2011-07-23T22:30:40Z
            """))
        let number = try fixture.run("query", "Photo", "--where", "id = %@ OR views > %@", "--arg", "p1", "--arg", "many")
        #expect(number.status == 1)
        #expect(number.stderr.contains("argument 2 (\"many\") does not fit integer64 attribute 'views': expected a whole number such as 42"))
        let bool = try fixture.run("query", "Photo", "--where", "isPublic = %@", "--arg", "maybe")
        #expect(bool.stderr.contains("argument 1 (\"maybe\") does not fit boolean attribute 'isPublic': expected true or false"))

        let missing = try fixture.run("query", "Photo", "--where", "views > %@")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("missing argument for %@ (it is argument 1; 0 given)"))
        let extra = try fixture.run("count", "Photo", "--where", "views > %@", "--arg", "1", "--arg", "2")
        #expect(extra.status == 1)
        #expect(extra.stderr.contains("2 arguments given, but the format uses 1"))
        let withoutWhere = try fixture.run("query", "Photo", "--arg", "1")
        #expect(withoutWhere.status == 1)
        #expect(withoutWhere.stderr.contains("--arg fills the %@ placeholders of --where"))
    }

    @Test func commandLineMistakesExitWithOne() throws {
        let entity = try fixture.run("query", "Photos")
        #expect(entity.status == 1)
        #expect(entity.stderr == "trove: \(fixture.storePath) has no entity 'Photos'; its entities are: Photographer, Photo, Tag, Studio\n")
        let relationship = try fixture.run("query", "Photo", "--fields", "whoTook")
        #expect(relationship.stderr == "trove: --fields: 'whoTook' is a relationship; name one of its attributes, such as whoTook.id\n")
        let twice = try fixture.run("query", "Photo", "--fields", "id,id")
        #expect(twice.stderr == "trove: --fields: 'id' is listed twice\n")
        let sortSyntax = try fixture.run("query", "Photo", "--sort", "views,,id")
        #expect(sortSyntax.status == 1)
        #expect(sortSyntax.stderr.contains("--sort: syntax error at column 7: expected a key to sort by\n  views,,id\n        ^"))
        let toMany = try fixture.run("query", "Photo", "--sort", "tags.name")
        #expect(toMany.stderr.contains("cannot sort by 'tags.name': it goes through a to-many relationship"))
        #expect(try fixture.run("query", "Photo", "--limit", "0").status == 1)
        #expect(try fixture.run("query", "Photo", "--offset", "-1").status == 1)
        #expect(try fixture.run("query", "Photo", "--format", "xml").status == 1)
    }

    @Test func aMissingStoreExitsWithThree() throws {
        let missing = fixture.dir.file("none.trove").path
        let result = try CLIRunner.run(["query", missing, "Photo"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("no store at \(missing)"))
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
