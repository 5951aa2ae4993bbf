public import Trove

/// Models the test suites share.
public enum SampleModels {
    /// Photographer and Photo, as in DESIGN.md, with validation rules on Photo.
    public static func photos() throws -> Model {
        try Model(keyStyle: .snakeCase) {
            Entity("Photographer", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("name", .string)
                Relationship("photos", to: "Photo", toMany: true, inverse: "whoTook", deleteRule: .cascade)
            }
            Entity("Photo", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("title", .string, max: 80)
                Attribute("uploadDate", .date, remoteKey: ["upload_date"], dateFormat: .iso8601)
                Attribute("views", .integer64, default: 0, min: 0)
                Relationship("whoTook", to: "Photographer", inverse: "photos", remoteKey: ["owner"])
            }
        }
    }

    /// One entity with an attribute of every type, none required.
    public static func everyType() throws -> Model {
        try Model {
            Entity("Thing") {
                for type in AttributeType.allCases {
                    Attribute(type.rawValue + "Value", type)
                }
            }
        }
    }
}
