import Foundation
import Testing
import TroveModel

/// Structural problems of model files: syntax, unknown keys, JSON kinds, unknown values.
@Suite struct ModelFileErrorTests {
    @Test func syntaxErrorGivesLineAndColumn() {
        let issues = fileIssues("""
            {
              "entities": [
                { "name": "Photo" },
              ]
            }
            """)
        #expect(issues.map(\.description) == [
            "$: invalid JSON at line 4, column 3 (byte 45): trailing comma before ']'; fix the JSON syntax",
        ])
    }

    @Test func unknownTopLevelKey() {
        let issues = fileIssues(#"{ "keyStlye": "snake_case", "entities": [] }"#)
        #expect(issues.map(\.description) == [
            #"keyStlye: unknown key "keyStlye" in the model file; did you mean "keyStyle"?"#,
        ])
    }

    @Test func unknownEntityKey() {
        let issues = fileIssues(#"{ "entities": [ { "name": "Photo", "uniqueby": ["id"] } ] }"#)
        #expect(issues.map(\.description) == [
            #"entities[0].uniqueby: unknown key "uniqueby" in entity 'Photo'; did you mean "uniqueBy"?"#,
        ])
    }

    @Test func unknownAttributeKeySuggestsTheClosest() {
        let issues = fileIssues(photoFile(attributes: """
            [ { "name": "title", "type": "string" }, { "name": "id", "tyep": "string" } ]
            """))
        #expect(issues.map(\.description) == [
            #"entities[0].attributes[1].tyep: unknown key "tyep" in attribute 'id' of entity 'Photo'; did you mean "type"?"#,
            #"entities[0].attributes[1].type: attribute 'id' of entity 'Photo' has no "type"; add it"#,
        ])
    }

    @Test func unknownRelationshipKey() {
        let issues = fileIssues(photoFile(attributes: "[]", relationships: """
            [ { "name": "album", "destination": "Photo", "inverse": "album", "cascade": true } ]
            """))
        #expect(issues.map(\.description) == [
            "entities[0].relationships[0].cascade: unknown key \"cascade\" in relationship 'album' of entity 'Photo';"
                + " known keys: name, destination, toMany, inverse, deleteRule, ordered, optional, remoteKey, minCount,"
                + " maxCount, importPolicy, referenceKey, renamedFrom",
        ])
    }

    @Test func keyThatIsNoIdentifierIsQuotedInThePath() {
        let issues = fileIssues(#"{ "entities": [], "my key": 1 }"#)
        #expect(issues.map(\.path) == [#"["my key"]"#])
    }

    @Test func unknownTypeListsTheAllowedValues() {
        let issues = fileIssues(photoFile(attributes: #"[ { "name": "id", "type": "strng", "default": 3 } ]"#))
        #expect(issues.map(\.description) == [
            "entities[0].attributes[0].type: attribute 'id' of entity 'Photo': unknown type \"strng\""
                + " (did you mean \"string\"?); use one of: string, integer16, integer32, integer64, double, float,"
                + " decimal, boolean, date, binary, uuid, uri, character, json",
        ])
    }

    @Test func unknownDeleteRuleImportPolicyAndKeyStyle() {
        let issues = fileIssues("""
            { "keyStyle": "camelCase",
              "entities": [ { "name": "Photo", "relationships": [
                { "name": "tags", "destination": "Photo", "toMany": true, "inverse": "tags",
                  "deleteRule": "destroy", "importPolicy": "merge" } ] } ] }
            """)
        #expect(issues.map(\.path) == [
            "entities[0].relationships[0].deleteRule",
            "entities[0].relationships[0].importPolicy",
            "keyStyle",
        ])
        #expect(issues[0].message.hasSuffix("use one of: nullify, cascade, deny, noAction"))
        #expect(issues[1].message.hasSuffix("use one of: replace, union, replaceDeletingOrphans"))
        #expect(issues[2].message.hasSuffix("use one of: exact, snake_case"))
    }

    @Test func wrongJSONKindsAreReportedWithTheirPath() {
        let issues = fileIssues("""
            { "entities": [
                { "name": "Photo", "abstract": "no", "uniqueBy": ["id", ["a"]],
                  "attributes": [ { "name": "id", "type": "string", "optional": "yes", "remoteKey": 3 } ],
                  "relationships": { "name": "x" } },
                "Album" ] }
            """)
        #expect(issues.map(\.description) == [
            #"entities[0].abstract: entity 'Photo': "abstract" must be true or false, not the string "no""#,
            #"entities[0].attributes[0].optional: attribute 'id' of entity 'Photo': "optional" must be true or false, not the string "yes""#,
            #"entities[0].attributes[0].remoteKey: attribute 'id' of entity 'Photo': "remoteKey" must be a string or a list of strings, not the number 3"#,
            #"entities[0].relationships: entity 'Photo': "relationships" must be a list, not an object"#,
            "entities[0].uniqueBy[0]: entity 'Photo': uniqueBy must be a list of attribute names, or a list of such lists"
                + #" for several constraints, not a mix; found the string "id""#,
            #"entities[1]: entity 1 must be a JSON object, not the string "Album""#,
        ])
    }

    @Test func missingRequiredKeys() {
        let issues = fileIssues(#"{ "entities": [ { "relationships": [ { "name": "x" } ] } ] }"#)
        #expect(issues.map(\.description) == [
            #"entities[0].name: the entity at entities[0] has no "name"; add it"#,
            "entities[0].relationships[0].destination: relationship 'x' of the entity at entities[0] has no"
                + #" "destination"; add it"#,
        ])
        #expect(fileIssues("{}").map(\.description) == [#"entities: the model file has no "entities"; add it"#])
        #expect(fileIssues("[]").map(\.description) == ["$: the model file must be a JSON object, not a list"])
    }

    @Test func countsMustBeIntegers() {
        let issues = fileIssues(photoFile(attributes: "[]", relationships: """
            [ { "name": "tags", "destination": "Photo", "toMany": true, "inverse": "tags", "minCount": 1.5 } ]
            """))
        #expect(issues.map(\.description) == [
            "entities[0].relationships[0].minCount: relationship 'tags' of entity 'Photo': \"minCount\" must be an"
                + " integer, not the number 1.5",
        ])
    }

    @Test func structuralProblemsAreAllReportedInFileOrder() {
        let issues = fileIssues("""
            { "entities": [
                { "name": "A", "attributes": [ { "name": "x", "type": "int" } ], "colour": 1 },
                { "name": "B", "attributes": [ { "name": "y", "type": "string", "optinal": true } ] },
                { "name": "C", "abstract": 1 } ],
              "version": 2 }
            """)
        #expect(issues.map(\.path) == [
            "entities[0].attributes[0].type",
            "entities[0].colour",
            "entities[1].attributes[0].optinal",
            "entities[2].abstract",
            "version",
        ])
    }
}
