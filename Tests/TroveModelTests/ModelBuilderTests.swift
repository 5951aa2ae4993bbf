import Foundation
import Testing
import TroveModel

@Suite struct ModelBuilderTests {
    @Test func builderDeclaresEntitiesInOrder() throws {
        let includeTags = true
        let model = try Model(keyStyle: .snakeCase) {
            Entity("Photographer", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("name", .string)
                Relationship("photos", to: "Photo", toMany: true, inverse: "whoTook", deleteRule: .cascade)
            }
            Entity("Photo", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("views", .integer64, default: 0)
                Relationship("whoTook", to: "Photographer", inverse: "photos")
                if includeTags {
                    Relationship("tags", to: "Tag", toMany: true, inverse: "photos")
                }
            }
            if includeTags {
                Entity("Tag") {
                    Attribute("label", .string)
                    Relationship("photos", to: "Photo", toMany: true, inverse: "tags")
                }
            }
        }
        #expect(model.keyStyle == .snakeCase)
        #expect(model.entities.map(\.name) == ["Photographer", "Photo", "Tag"])
        let photo = try #require(model.entity(named: "Photo"))
        #expect(photo.attributes.map(\.name) == ["id", "views"])
        #expect(photo.relationships.map(\.name) == ["whoTook", "tags"])
        #expect(photo.attributeIndex(named: "views") == 1)
        #expect(photo.attribute(named: "views")?.defaultValue == .integer(0))
        #expect(photo.relationship(named: "tags")?.isToMany == true)
        #expect(model.warnings.isEmpty)
        #expect(model.rootEntities.count == 3)
    }

    @Test func defaultsAreNormalizedToTheAttributeType() throws {
        let model = try Model {
            Entity("Reading") {
                Attribute("value", .double, default: 0, min: -1, max: 1)
                Attribute("grade", .character, default: "A")
                Attribute("weight", .float, default: 0.1)
            }
        }
        let reading = try #require(model.entity(named: "Reading"))
        #expect(reading.attributes[0].defaultValue == .double(0))
        #expect(reading.attributes[0].minimum == .double(-1))
        #expect(reading.attributes[1].defaultValue == .character("A"))
        #expect(reading.attributes[2].defaultValue == .double(Double(Float(0.1))))
    }

    @Test func subEntityInheritsParentPropertiesFirst() throws {
        let model = try Model {
            Entity("Media", abstract: true, uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Relationship("album", to: "Album", inverse: "items")
            }
            Entity("Image", parent: "Media", uniqueBy: [["width", "height"]]) {
                Attribute("width", .integer32)
                Attribute("height", .integer32)
            }
            Entity("Thumbnail", parent: "Image") {
                Attribute("scale", .double)
            }
            Entity("Video", parent: "Media") {
                Attribute("duration", .double)
            }
            Entity("Album") {
                Relationship("items", to: "Media", toMany: true, inverse: "album")
            }
        }
        let thumbnail = try #require(model.entity(named: "Thumbnail"))
        #expect(thumbnail.attributes.map(\.name) == ["id", "width", "height", "scale"])
        #expect(thumbnail.relationships.map(\.name) == ["album"])
        #expect(thumbnail.uniqueBy == [["id"], ["width", "height"]])
        #expect(thumbnail.rootName == "Media")
        #expect(thumbnail.attributeIndex(named: "scale") == 3)
        let media = try #require(model.entity(named: "Media"))
        #expect(media.isAbstract)
        #expect(Set(media.subentityNames) == ["Image", "Thumbnail", "Video"])
        #expect(model.entity(named: "Image")?.subentityNames == ["Thumbnail"])
        #expect(thumbnail.isKind(of: media))
        #expect(!media.isKind(of: thumbnail))
        #expect(model.rootEntities.map(\.name) == ["Media", "Album"])
    }

    @Test func relationshipWithoutInverseIsAWarning() throws {
        let model = try Model {
            Entity("Note") {
                Relationship("links", to: "Note", toMany: true)
            }
        }
        #expect(model.warnings.map(\.path) == ["entities[0].relationships[0].inverse"])
        #expect(model.warnings.first?.severity == .warning)
        #expect(model.warnings.first?.message.hasPrefix(
            "relationship 'links' of entity 'Note' has no inverse; Trove cannot keep the other side consistent") == true)
    }

    @Test func reflexiveRelationshipMayBeItsOwnInverse() throws {
        let model = try Model {
            Entity("Person") {
                Relationship("friends", to: "Person", toMany: true, inverse: "friends")
            }
        }
        #expect(model.warnings.isEmpty)
    }

    @Test func inverseMayLeadBackToAnAncestor() throws {
        let model = try Model {
            Entity("Pet") {
                Attribute("name", .string)
            }
            Entity("Dog", parent: "Pet") {
                Relationship("walker", to: "Walker", inverse: "walked")
            }
            Entity("Walker") {
                Relationship("walked", to: "Pet", toMany: true)
            }
        }
        #expect(model.warnings.map(\.path) == ["entities[2].relationships[0].inverse"])
    }
}
