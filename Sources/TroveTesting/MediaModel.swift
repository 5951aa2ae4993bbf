public import Trove

extension SampleModels {
    /// A hierarchy (Media, its sub-entities Image and Video, Image's sub-entity Thumbnail) on an
    /// ordered to-many, and two entities with an attribute of every type: `Thing`'s all
    /// optional, `RequiredThing`'s all required. `Media.default` is named with a Swift keyword;
    /// `Shelf.itemCount` is derived and `Shelf.label` transient.
    /// The typed-class tests use the classes generated from it (`MediaClasses`).
    public static func media() throws -> Model {
        try Model {
            Entity("Media", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("caption", .string)
                Attribute("default", .boolean, default: .boolean(false))
                Relationship("shelf", to: "Shelf", inverse: "items")
            }
            Entity("Image", parent: "Media") {
                Attribute("width", .integer32, default: .integer(0))
                Attribute("height", .integer32, default: .integer(0))
                Relationship("posterOf", to: "Video", inverse: "poster")
            }
            Entity("Thumbnail", parent: "Image") {
                Attribute("scale", .float, default: .double(1))
            }
            Entity("Video", parent: "Media") {
                Attribute("seconds", .double)
                Relationship("poster", to: "Image", inverse: "posterOf")
            }
            Entity("Shelf") {
                Attribute("name", .string)
                Attribute("itemCount", .integer64, derivation: "items.@count")
                Attribute("label", .string, transient: true)
                Relationship("items", to: "Media", toMany: true, ordered: true, inverse: "shelf")
            }
            Entity("Thing") {
                for type in AttributeType.allCases {
                    Attribute(type.rawValue + "Value", type)
                }
            }
            Entity("RequiredThing") {
                for type in AttributeType.allCases {
                    Attribute(type.rawValue + "Value", type, optional: false)
                }
            }
        }
    }
}
