import Foundation
import Testing
import TroveModel

/// Transient and derived attributes in model files and models built in code: round trips,
/// the version hash, and every error with its path.
@Suite struct DerivedAttributeModelTests {
    /// A model file with a file's worth of the supported derivations and a transient attribute.
    static let file = """
        { "entities": [
          { "name": "Agency", "attributes": [ { "name": "name", "type": "string" } ],
            "relationships": [ { "name": "members", "destination": "Photographer", "toMany": true, "inverse": "agency" } ] },
          { "name": "Photographer", "uniqueBy": ["id"],
            "attributes": [
              { "name": "id", "type": "string", "optional": false },
              { "name": "name", "type": "string" },
              { "name": "photoCount", "type": "integer64", "derivation": "photos.@count" },
              { "name": "totalViews", "type": "integer64", "derivation": "photos.@sum.views" },
              { "name": "meanViews", "type": "double", "derivation": "photos.@avg.views" },
              { "name": "firstTitle", "type": "string", "derivation": "photos.@min.title" },
              { "name": "selected", "type": "boolean", "default": false, "transient": true } ],
            "relationships": [
              { "name": "photos", "destination": "Photo", "toMany": true, "inverse": "whoTook" },
              { "name": "agency", "destination": "Agency", "inverse": "members" } ] },
          { "name": "Photo",
            "attributes": [
              { "name": "title", "type": "string" },
              { "name": "views", "type": "integer16", "default": 0 },
              { "name": "ownerName", "type": "string", "derivation": "whoTook.name" },
              { "name": "agencyName", "type": "string", "derivation": "whoTook.agency.name" },
              { "name": "note", "type": "string", "transient": true, "regex": "[a-z]*" } ],
            "relationships": [ { "name": "whoTook", "destination": "Photographer", "inverse": "photos" } ] } ] }
        """

    @Test func aModelFileWithBothKindsLoadsAndRoundTrips() throws {
        let model = try Model(fileData: Data(Self.file.utf8))
        let photographer = try #require(model.entity(named: "Photographer"))
        #expect(photographer.attribute(named: "photoCount")?.derivation == "photos.@count")
        #expect(photographer.attribute(named: "photoCount")?.isStored == false)
        #expect(photographer.attribute(named: "selected")?.isTransient == true)
        #expect(photographer.attribute(named: "selected")?.defaultValue == .boolean(false))
        #expect(photographer.attribute(named: "name")?.isStored == true)

        let written = model.fileData()
        let text = String(decoding: written, as: UTF8.self)
        #expect(text.contains(#""derivation" : "whoTook.agency.name""#) || text.contains(#""derivation": "whoTook.agency.name""#))
        #expect(text.contains("\"transient\""))
        let reread = try Model(fileData: written)
        #expect(reread == model)
        #expect(reread.fileData() == written)
    }

    @Test func theDSLDeclaresBothKinds() throws {
        let model = try Model {
            Entity("Owner") {
                Attribute("count", .integer64, derivation: "items.@count")
                Attribute("scratch", .string, transient: true)
                Relationship("items", to: "Item", toMany: true, inverse: "owner")
            }
            Entity("Item") {
                Relationship("owner", to: "Owner", inverse: "items")
            }
        }
        let owner = try #require(model.entity(named: "Owner"))
        #expect(owner.attributes.map(\.isDerived) == [true, false])
        #expect(owner.attributes.map(\.isTransient) == [false, true])
        // A generated class's property of a derived attribute is read-only: its signature says so.
        #expect(owner.classSignature == "count:integer64?:derived scratch:string? | items:{Item}")
    }

    /// Neither kind shapes the store: a store made with the plain model opens with the richer one.
    @Test func neitherKindChangesTheVersionHash() throws {
        func model(extras: Bool) throws -> Model {
            try Model {
                Entity("Owner") {
                    Attribute("name", .string)
                    if extras {
                        Attribute("count", .integer64, derivation: "items.@count")
                        Attribute("scratch", .string, transient: true)
                    }
                    Relationship("items", to: "Item", toMany: true, inverse: "owner")
                }
                Entity("Item") {
                    Attribute("size", .integer32)
                    if extras { Attribute("ownerName", .string, derivation: "owner.name") }
                    Relationship("owner", to: "Owner", inverse: "items")
                }
            }
        }
        let plain = try model(extras: false), rich = try model(extras: true)
        #expect(plain.versionHash == rich.versionHash)
        #expect(rich.differences(from: plain).isEmpty)
        // A stored attribute that becomes transient does change the store's shape.
        let stored = try Model { Entity("Owner") { Attribute("scratch", .string) } }
        let transient = try Model { Entity("Owner") { Attribute("scratch", .string, transient: true) } }
        #expect(stored.versionHash != transient.versionHash)
        #expect(transient.differences(from: stored) == ["attribute Owner.scratch is only in the store"])
    }

    // MARK: Errors

    /// A Photographer/Photo model file whose Photographer has the extra attribute `json`.
    func issues(photographerAttribute json: String, photoAttributes: String = "") -> [String] {
        fileIssues("""
            { "entities": [
              { "name": "Photographer", "uniqueBy": ["id"],
                "attributes": [ { "name": "id", "type": "string", "optional": false }, { "name": "name", "type": "string" }, \(json) ],
                "relationships": [ { "name": "photos", "destination": "Photo", "toMany": true, "inverse": "whoTook" } ] },
              { "name": "Photo",
                "attributes": [ { "name": "views", "type": "integer64" }, { "name": "title", "type": "string" },
                                { "name": "data", "type": "binary" }\(photoAttributes) ],
                "relationships": [ { "name": "whoTook", "destination": "Photographer", "inverse": "photos" } ] } ] }
            """).map(\.description)
    }

    @Test func derivationErrorsNameThePathAndTheFix() {
        let cases: [(String, String)] = [
            ("photos.@count.views", "derivation 'photos.@count.views' names a key after @count, which counts objects; write photos.@count"),
            ("phots.@count", "derivation 'phots.@count' names 'phots', which is not a relationship of Photographer; did you mean 'photos'?"),
            ("photos.title", "derivation 'photos.title' goes through 'photos', a to-many relationship of Photographer, without aggregating it; use photos.@count, or photos.@sum, @avg, @min or @max of one of its attributes"),
            ("photos.@median.views", "derivation 'photos.@median.views' uses '@median', which is not a function; use one of @count, @sum, @avg, @min, @max"),
            ("photos.@sum", "derivation 'photos.@sum' needs the attribute to aggregate after @sum, as in photos.@sum.KEY"),
            ("photos.@sum.title", "derivation 'photos.@sum.title' applies @sum to string attribute 'title', which it cannot aggregate"),
            ("photos.@max.data", "derivation 'photos.@max.data' applies @max to binary attribute 'data', which it cannot aggregate"),
            ("photos.@sum.vews", "derivation 'photos.@sum.vews' names 'vews', which is not a key of Photo; did you mean 'views'?"),
            ("@count", "derivation '@count' starts with @count, which must follow a to-many relationship of the entity, as in photos.@count"),
            ("photos..title", "derivation 'photos..title' is not a key path: it has an empty key; write one such as photos.@count or whoTook.name"),
            ("name", "derivation 'name' names a key of the entity itself; derive through a relationship, as in whoTook.name or photos.@count"),
            ("photos.@count.@sum", "derivation 'photos.@count.@sum' has more than one function; a derivation aggregates once"),
            ("photos.whoTook.@count", "derivation 'photos.whoTook.@count' aggregates 'photos.whoTook'; aggregate a to-many relationship of the entity itself, as in photos.@count"),
        ]
        for (derivation, message) in cases {
            let json = #"{ "name": "derived", "type": "integer64", "derivation": "\#(derivation)" }"#
            #expect(issues(photographerAttribute: json) == [
                "entities[0].attributes[2].derivation: attribute 'derived' of entity 'Photographer': \(message)",
            ], "\(derivation)")
        }
    }

    @Test func aToOneDerivationMustEndInAStoredAttribute() {
        #expect(issues(photographerAttribute: #"{ "name": "x", "type": "string", "transient": true }"#,
                       photoAttributes: #", { "name": "ownerX", "type": "string", "derivation": "whoTook.x" }"#) == [
            "entities[1].attributes[3].derivation: attribute 'ownerX' of entity 'Photo': derivation 'whoTook.x' reads 'x' of"
                + " Photographer, which is transient; a derivation reads stored attributes only",
        ])
        #expect(issues(photographerAttribute: #"{ "name": "n", "type": "integer64", "derivation": "photos.@count" }"#,
                       photoAttributes: #", { "name": "ownerN", "type": "integer64", "derivation": "whoTook.n" }"#) == [
            "entities[1].attributes[3].derivation: attribute 'ownerN' of entity 'Photo': derivation 'whoTook.n' reads 'n' of"
                + " Photographer, which is derived; a derivation reads stored attributes only",
        ])
        #expect(issues(photographerAttribute: #"{ "name": "n", "type": "integer64", "derivation": "photos.@count" }"#,
                       photoAttributes: #", { "name": "owner", "type": "integer64", "derivation": "whoTook" }"#) == [
            "entities[1].attributes[3].derivation: attribute 'owner' of entity 'Photo': derivation 'whoTook' names a key of"
                + " the entity itself; derive through a relationship, as in whoTook.name or photos.@count",
        ])
        #expect(issues(photographerAttribute: #"{ "name": "n", "type": "integer64", "derivation": "photos.@count" }"#,
                       photoAttributes: #", { "name": "owner", "type": "integer64", "derivation": "whoTook.photos" }"#) == [
            "entities[1].attributes[3].derivation: attribute 'owner' of entity 'Photo': derivation 'whoTook.photos' goes"
                + " through 'photos', a to-many relationship of Photographer, without aggregating it; use photos.@count,"
                + " or photos.@sum, @avg, @min or @max of one of its attributes",
        ])
        #expect(issues(photographerAttribute: #"{ "name": "n", "type": "integer64", "derivation": "photos.@count" }"#,
                       photoAttributes: #", { "name": "o", "type": "string", "derivation": "whoTook.name.first" }"#) == [
            "entities[1].attributes[3].derivation: attribute 'o' of entity 'Photo': derivation 'whoTook.name.first' goes on"
                + " after 'name', an attribute of Photographer; an attribute must come last",
        ])
    }

    @Test func theDeclaredTypeMustHoldTheDerivedValues() {
        #expect(issues(photographerAttribute: #"{ "name": "n", "type": "integer16", "derivation": "photos.@count" }"#) == [
            "entities[0].attributes[2].type: attribute 'n' of entity 'Photographer': derivation 'photos.@count' gives integer64"
                + " values, which an integer16 attribute cannot hold; declare it integer64",
        ])
        #expect(issues(photographerAttribute: #"{ "name": "n", "type": "integer64", "derivation": "photos.@avg.views" }"#) == [
            "entities[0].attributes[2].type: attribute 'n' of entity 'Photographer': derivation 'photos.@avg.views' gives double"
                + " values, which an integer64 attribute cannot hold; declare it double",
        ])
        // A wider integer holds a narrower one's values; a string maximum keeps its type.
        #expect(issues(photographerAttribute: #"{ "name": "n", "type": "string", "derivation": "photos.@max.title" }"#).isEmpty)
    }

    /// A derived attribute is computed, never set or checked: no default, rules or import hints.
    @Test func aDerivedAttributeTakesNoDefaultRulesOrImportHints() {
        let json = #"""
            { "name": "n", "type": "integer64", "derivation": "photos.@count", "default": 0, "optional": false,
              "min": 0, "remoteKey": "photo_count" }
            """#
        let stub = "attribute 'n' of entity 'Photographer' is derived: the store computes it and nothing sets or checks it, so"
        #expect(issues(photographerAttribute: json) == [
            "entities[0].attributes[2].default: \(stub) default has no use; remove it",
            "entities[0].attributes[2].min: \(stub) min has no use; remove it",
            "entities[0].attributes[2].optional: \(stub) optional has no use; remove it",
            "entities[0].attributes[2].remoteKey: \(stub) remoteKey has no use; remove it",
        ])
    }

    @Test func aTransientAttributeIsNotDerivedImportedOrUnique() {
        let json = #"{ "name": "t", "type": "string", "transient": true, "derivation": "photos.@min.title", "remoteKey": "x" }"#
        #expect(issues(photographerAttribute: json) == [
            "entities[0].attributes[2].remoteKey: attribute 't' of entity 'Photographer' is transient: the importer never sets it,"
                + " so remoteKey has no use; remove it",
            "entities[0].attributes[2].transient: attribute 't' of entity 'Photographer' is both transient and derived; a derived"
                + " attribute is computed by the store, a transient one kept in memory: remove \"transient\" or \"derivation\"",
        ])
        let unique = fileIssues("""
            { "entities": [ { "name": "Photo", "uniqueBy": [["id", "scratch"], ["n"]],
              "attributes": [ { "name": "id", "type": "string" }, { "name": "scratch", "type": "string", "transient": true },
                              { "name": "n", "type": "integer64", "derivation": "tags.@count" } ],
              "relationships": [ { "name": "tags", "destination": "Photo", "toMany": true, "inverse": "tags" } ] } ] }
            """).map(\.description)
        #expect(unique == [
            "entities[0].uniqueBy[0][1]: entity 'Photo': uniqueBy names 'scratch', which is transient: the store keeps no value"
                + " of it to compare; name stored attributes only",
            "entities[0].uniqueBy[1][0]: entity 'Photo': uniqueBy names 'n', which is derived: the store keeps no value of it"
                + " to compare; name stored attributes only",
        ])
    }

    @Test func aReferenceKeyMustBeStored() {
        let issues = fileIssues("""
            { "entities": [
              { "name": "City", "attributes": [ { "name": "code", "type": "string", "transient": true } ] },
              { "name": "Trip", "relationships": [ { "name": "to", "destination": "City", "referenceKey": "code" } ] } ] }
            """).filter { !$0.path.hasSuffix("inverse") }.map(\.description)
        #expect(issues == [
            "entities[1].relationships[0].referenceKey: relationship 'to' of entity 'Trip': referenceKey 'code' is a transient"
                + " attribute of entity 'City', which the store keeps no value of to match; name a stored attribute",
        ])
    }

    @Test func theKindsAreCheckedInModelsBuiltInCode() {
        do {
            _ = try Model {
                Entity("Owner") {
                    Attribute("count", .integer64, derivation: "items.@count")
                }
            }
            Issue.record("a derivation through a missing relationship must not load")
        } catch {
            #expect(error.issues.map(\.description) == [
                "entities[0].attributes[0].derivation: attribute 'count' of entity 'Owner': derivation 'items.@count' names"
                    + " 'items', which is not a relationship of Owner",
            ])
        }
    }
}
