import Foundation
import Testing
import TroveModel

/// Semantic problems, found by the validators whether the model comes from code or from a file.
@Suite struct ModelValidatorTests {
    @Test func duplicateEntityNamesIgnoringCase() {
        let issues = fileIssues(#"{ "entities": [ { "name": "Photo" }, { "name": "Album" }, { "name": "photo" } ] }"#)
        #expect(issues.map(\.description) == [
            "entities[2].name: entity name 'photo' is already used by the entity at entities[0] ('Photo'); entity"
                + " names must differ ignoring case (they become table names), so rename one",
        ])
    }

    @Test func duplicateAttributeNames() {
        let issues = fileIssues(photoFile(attributes: """
            [ { "name": "title", "type": "string" }, { "name": "Title", "type": "string" } ]
            """))
        #expect(issues.map(\.description) == [
            "entities[0].attributes[1].name: attribute 'Title' of entity 'Photo': the name is already used by"
                + " attribute 'title' of entity 'Photo'; names must differ ignoring case within an entity, so rename one",
        ])
    }

    @Test func propertyNamesAreUniqueAcrossAHierarchy() {
        let issues = modelIssues([
            Entity("Media", attributes: [Attribute("id", .string)]),
            Entity("Image", parent: "Media", attributes: [Attribute("size", .integer64)]),
            Entity("Video", parent: "Media", attributes: [Attribute("size", .double), Attribute("ID", .string)]),
        ])
        #expect(issues.map(\.path) == ["entities[2].attributes[0].name", "entities[2].attributes[1].name"])
        #expect(issues[0].message == "attribute 'size' of entity 'Video': the name is already used by attribute 'size'"
            + " of entity 'Image'; names must differ ignoring case across an inheritance hierarchy, whose entities"
            + " share one table, so rename one")
    }

    @Test func namesMustBeIdentifiersNotStartingWithAnUnderscore() {
        let issues = modelIssues([
            Entity("my-photo", attributes: [Attribute("_id", .string), Attribute("", .string)],
                   relationships: [Relationship("1st", to: "my-photo", inverse: "1st")]),
        ])
        #expect(issues.map(\.description) == [
            "entities[0].attributes[0].name: attribute name '_id' starts with '_', which is reserved for Trove's own"
                + " columns; start it with a letter (in entity 'my-photo')",
            "entities[0].attributes[1].name: attribute name is empty; give a name of letters, digits and '_', starting"
                + " with a letter (in entity 'my-photo')",
            "entities[0].name: entity name 'my-photo' is not an identifier; use only ASCII letters, digits and '_',"
                + " starting with a letter",
            "entities[0].relationships[0].name: relationship name '1st' is not an identifier; use only ASCII letters,"
                + " digits and '_', starting with a letter (in entity 'my-photo')",
        ])
    }

    @Test func relationshipToAMissingEntity() {
        let issues = fileIssues(photoFile(attributes: "[]", relationships: """
            [ { "name": "album", "destination": "Albun", "inverse": "photos" },
              { "name": "owner", "destination": "Person", "inverse": "photos" } ]
            """).replacingOccurrences(of: "] } ] }", with: "] }, { \"name\": \"Album\" } ] }"))
        #expect(issues.map(\.description) == [
            "entities[0].relationships[0].destination: relationship 'album' of entity 'Photo': destination 'Albun' is"
                + #" not an entity of the model; did you mean "Album"?"#,
            "entities[0].relationships[1].destination: relationship 'owner' of entity 'Photo': destination 'Person' is"
                + " not an entity of the model; declare it or fix the name",
        ])
    }

    @Test func inverseThatDoesNotExist() {
        let issues = modelIssues([
            Entity("Photo", relationships: [Relationship("album", to: "Album", inverse: "photo")]),
            Entity("Album", relationships: [Relationship("photos", to: "Photo", toMany: true, inverse: "album")]),
        ])
        #expect(issues.map(\.description) == [
            "entities[0].relationships[0].inverse: relationship 'album' of entity 'Photo': inverse 'photo' is not a"
                + #" relationship of entity 'Album'; did you mean "photos"?"#,
            "entities[1].relationships[0].inverse: relationship 'photos' of entity 'Album': inverse 'album' of entity"
                + " 'Photo' names 'photo' as its inverse, not 'photos'; make the two relationships name each other",
        ])
    }

    @Test func inverseThatDoesNotPointBack() {
        let issues = modelIssues([
            Entity("Photo", relationships: [
                Relationship("album", to: "Album", inverse: "photos"),
                Relationship("cover", to: "Album", inverse: "tags"),
            ]),
            Entity("Album", relationships: [
                Relationship("photos", to: "Photo", toMany: true, inverse: "cover"),
                Relationship("tags", to: "Tag", toMany: true),
            ]),
            Entity("Tag"),
        ])
        #expect(issues.map(\.description) == [
            "entities[0].relationships[0].inverse: relationship 'album' of entity 'Photo': inverse 'photos' of entity"
                + " 'Album' names 'cover' as its inverse, not 'album'; make the two relationships name each other",
            "entities[0].relationships[1].inverse: relationship 'cover' of entity 'Photo': inverse 'tags' of entity"
                + " 'Album' leads to 'Tag', not back to 'Photo'; name a relationship that points back",
            "entities[1].relationships[0].inverse: relationship 'photos' of entity 'Album': inverse 'cover' of entity"
                + " 'Photo' names 'tags' as its inverse, not 'photos'; make the two relationships name each other",
        ])
    }

    @Test func uniqueByNamingAMissingAttribute() {
        let issues = modelIssues([
            Entity("Photo", uniqueBy: [["idd"], ["title", "title"], [], ["owner"]],
                   attributes: [Attribute("id", .string), Attribute("title", .string)]),
        ])
        #expect(issues.map(\.description) == [
            #"entities[0].uniqueBy[0][0]: entity 'Photo': uniqueBy names 'idd', which is not an attribute of the entity; did you mean "id"?"#,
            "entities[0].uniqueBy[1][1]: entity 'Photo': uniqueBy names 'title' twice in one constraint; remove the repeat",
            "entities[0].uniqueBy[2]: entity 'Photo': uniqueBy constraint 2 is empty; name at least one attribute",
            "entities[0].uniqueBy[3][0]: entity 'Photo': uniqueBy names 'owner', which is not an attribute of the"
                + " entity; name one of its attributes",
        ])
    }

    @Test func uniqueByMayNameAnInheritedAttribute() throws {
        let model = try Model(entities: [
            Entity("Media", attributes: [Attribute("id", .string)]),
            Entity("Image", parent: "Media", uniqueBy: [["id", "width"]], attributes: [Attribute("width", .integer32)]),
        ])
        #expect(model.entity(named: "Image")?.uniqueBy == [["id", "width"]])
    }

    @Test func defaultsThatDoNotFit() {
        let issues = fileIssues(photoFile(attributes: """
            [ { "name": "views", "type": "integer64", "default": "abc" },
              { "name": "width", "type": "integer16", "default": 70000 },
              { "name": "taken", "type": "date", "default": "abc" },
              { "name": "ratio", "type": "integer32", "default": 2.5 },
              { "name": "grade", "type": "character", "default": "AB" } ]
            """))
        #expect(issues.map(\.description) == [
            #"entities[0].attributes[0].default: attribute 'views' of entity 'Photo': default "abc" does not fit type"#
                + " integer64; use an integer from -9223372036854775808 to 9223372036854775807",
            "entities[0].attributes[1].default: attribute 'width' of entity 'Photo': default 70000 does not fit type"
                + " integer16; use an integer from -32768 to 32767",
            #"entities[0].attributes[2].default: attribute 'taken' of entity 'Photo': default "abc" does not fit type"#
                + #" date; use an ISO 8601 date string such as "2024-01-31T09:30:00Z""#,
            "entities[0].attributes[3].default: attribute 'ratio' of entity 'Photo': default 2.5 does not fit type"
                + " integer32; use an integer from -2147483648 to 2147483647",
            #"entities[0].attributes[4].default: attribute 'grade' of entity 'Photo': default "AB" does not fit type"#
                + " character; use a one-character string",
        ])
    }

    @Test func defaultsBuiltInCodeAreCheckedToo() {
        let issues = modelIssues([
            Entity("Photo", attributes: [
                Attribute("views", .integer16, default: 70000),
                Attribute("ratio", .double, default: .double(.infinity)),
                Attribute("ok", .decimal, default: 1.5),
            ]),
        ])
        #expect(issues.map(\.description) == [
            "entities[0].attributes[0].default: attribute 'views' of entity 'Photo': default 70000 does not fit type"
                + " integer16; use an integer from -32768 to 32767",
            "entities[0].attributes[1].default: attribute 'ratio' of entity 'Photo': default inf does not fit type"
                + " double; a model file cannot hold inf, use a finite number",
        ])
    }

    @Test func boundsMustSuitTheType() {
        let issues = modelIssues([
            Entity("Photo", attributes: [
                Attribute("title", .string, min: -1, max: "long"),
                Attribute("views", .integer64, min: 10, max: 5),
                Attribute("flag", .boolean, min: 0),
                Attribute("taken", .date, min: "2020"),
                Attribute("size", .binary, min: 1, max: 10),
            ]),
        ])
        #expect(issues.map(\.description) == [
            "entities[0].attributes[0].max: attribute 'title' of entity 'Photo': max \"long\" is not a length; for a"
                + " string attribute min and max are lengths, so use a non-negative integer",
            "entities[0].attributes[0].min: attribute 'title' of entity 'Photo': min -1 is not a length; for a string"
                + " attribute min and max are lengths, so use a non-negative integer",
            "entities[0].attributes[1].min: attribute 'views' of entity 'Photo': min 10 is greater than max 5; swap"
                + " them or fix one",
            "entities[0].attributes[2].min: attribute 'flag' of entity 'Photo': min 0 is not allowed on a boolean"
                + " attribute (min and max apply to numbers, dates, and the length of strings and binary data); remove it",
            "entities[0].attributes[3].min: attribute 'taken' of entity 'Photo': min \"2020\" does not fit type date;"
                + " use an ISO 8601 date string such as \"2024-01-31T09:30:00Z\"",
        ])
    }

    @Test func aRegexRuleLongerThanAPatternMayBeIsRefused() {
        let limit = RegexMatcher.maximumPatternLength
        let issues = fileIssues(photoFile(attributes: """
            [ { "name": "code", "type": "string", "regex": "\(String(repeating: "a", count: limit + 1))" } ]
            """))
        #expect(issues.map(\.description) == [
            "entities[0].attributes[0].regex: attribute 'code' of entity 'Photo': regex is \(limit + 1) UTF-16 units long,"
                + " over the \(limit) a pattern may have; shorten it",
        ])
    }

    @Test func invalidRegexAndMisplacedImportHints() {
        let issues = fileIssues(photoFile(attributes: """
            [ { "name": "code", "type": "string", "regex": "[A-Z", "remoteKey": ["code", "meta..code"] },
              { "name": "views", "type": "integer64", "regex": "^\\\\d+$", "dateFormat": "iso8601" },
              { "name": "taken", "type": "date", "dateFormat": "", "transformer": "" } ]
            """))
        #expect(issues.map(\.description) == [
            #"entities[0].attributes[0].regex: attribute 'code' of entity 'Photo': regex "[A-Z" is not a valid regular expression; fix its syntax"#,
            #"entities[0].attributes[0].remoteKey[1]: attribute 'code' of entity 'Photo': remoteKey "meta..code" has an empty key; give a JSON key or a dotted path such as "owner.id""#,
            "entities[0].attributes[1].dateFormat: attribute 'views' of entity 'Photo': dateFormat applies only to date"
                + " attributes, not integer64; remove it",
            "entities[0].attributes[1].regex: attribute 'views' of entity 'Photo': regex applies only to string"
                + " attributes, not integer64; remove it",
            "entities[0].attributes[2].dateFormat: attribute 'taken' of entity 'Photo': dateFormat is empty; use"
                + " iso8601, epochSeconds, epochMilliseconds or a pattern such as \"yyyy-MM-dd HH:mm:ss\"",
            "entities[0].attributes[2].transformer: attribute 'taken' of entity 'Photo': transformer is empty; give the"
                + " name of a registered transformer or remove it",
        ])
    }

    @Test func parentCycleAndMissingParent() {
        let issues = modelIssues([
            Entity("A", parent: "B"),
            Entity("B", parent: "C"),
            Entity("C", parent: "A"),
            Entity("D", parent: "D"),
            Entity("E", parent: "Nope"),
            Entity("F", parent: "A"),
        ])
        #expect(issues.map(\.description) == [
            "entities[0].parent: entity 'A': inheritance cycle A → B → C → A; an entity cannot be its own ancestor,"
                + " so remove one of these parents",
            "entities[1].parent: entity 'B': inheritance cycle B → C → A → B; an entity cannot be its own ancestor,"
                + " so remove one of these parents",
            "entities[2].parent: entity 'C': inheritance cycle C → A → B → C; an entity cannot be its own ancestor,"
                + " so remove one of these parents",
            "entities[3].parent: entity 'D': inheritance cycle D → D; an entity cannot be its own ancestor, so remove"
                + " one of these parents",
            #"entities[4].parent: entity 'E': parent 'Nope' is not an entity of the model; declare it or remove "parent""#,
        ])
    }

    @Test func toManyOnlyOptionsAndCounts() {
        let issues = modelIssues([
            Entity("Photo", relationships: [
                Relationship("album", to: "Photo", ordered: true, inverse: "album", minCount: 1, importPolicy: .union),
                Relationship("tags", to: "Photo", toMany: true, inverse: "tags", minCount: 5, maxCount: -2),
            ]),
        ])
        #expect(issues.map(\.description) == [
            "entities[0].relationships[0].importPolicy: relationship 'album' of entity 'Photo': importPolicy union"
                + " applies only to to-many relationships; remove it or set \"toMany\": true",
            "entities[0].relationships[0].minCount: relationship 'album' of entity 'Photo': minCount applies only to"
                + " to-many relationships; remove it or set \"toMany\": true",
            "entities[0].relationships[0].ordered: relationship 'album' of entity 'Photo': ordered applies only to"
                + " to-many relationships; remove it or set \"toMany\": true",
            "entities[0].relationships[1].maxCount: relationship 'tags' of entity 'Photo': maxCount -2 is negative;"
                + " use 0 or more",
            "entities[0].relationships[1].minCount: relationship 'tags' of entity 'Photo': minCount 5 is greater than"
                + " maxCount -2; swap them or fix one",
        ])
    }

    @Test func referenceKeyNamesADestinationAttribute() {
        let issues = modelIssues([
            Entity("Country", attributes: [Attribute("code", .string)]),
            Entity("City", relationships: [
                Relationship("country", to: "Country", referenceKey: "iso"),
                Relationship("twin", to: "Country", referenceKey: "cod"),
            ]),
        ])
        #expect(issues.filter { $0.severity == .error }.map(\.description) == [
            "entities[1].relationships[0].referenceKey: relationship 'country' of entity 'City': referenceKey 'iso' is"
                + " not an attribute of entity 'Country'; name one of its attributes",
            "entities[1].relationships[1].referenceKey: relationship 'twin' of entity 'City': referenceKey 'cod' is"
                + #" not an attribute of entity 'Country'; did you mean "code"?"#,
        ])
    }

    @Test func severalProblemsAreAllReportedInModelOrder() {
        let issues = fileIssues("""
            { "entities": [
                { "name": "Photo", "uniqueBy": ["uuid"],
                  "attributes": [
                    { "name": "id", "type": "string" },
                    { "name": "views", "type": "integer16", "default": 70000 } ],
                  "relationships": [ { "name": "album", "destination": "Album", "inverse": "pictures" } ] },
                { "name": "Album", "parent": "Album",
                  "relationships": [ { "name": "photos", "destination": "Photo", "toMany": true, "inverse": "album" } ] },
                { "name": "_Tag" },
                { "name": "E2" }, { "name": "E3" }, { "name": "E4" }, { "name": "E5" }, { "name": "E6" },
                { "name": "E7" }, { "name": "E8" }, { "name": "E9" },
                { "name": "E10", "parent": "Missing" } ] }
            """)
        #expect(issues.map(\.path) == [
            "entities[0].attributes[1].default",
            "entities[0].relationships[0].inverse",
            "entities[0].uniqueBy[0][0]",
            "entities[1].parent",
            "entities[1].relationships[0].inverse",
            "entities[2].name",
            "entities[11].parent",
        ])
    }
}
