import Foundation
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

    /// A value for each attribute of ``everyType()``, chosen to catch lossy storage (its string
    /// holds no NUL character, which PostgreSQL's text refuses: a store test adds its own).
    public static let everyTypeValues: [String: AttributeValue] = [
        "stringValue": .string("Straße ✓ \"quoted\" 'single' \\ $1 ? end"),
        "integer16Value": .integer(Int64(Int16.min)),
        "integer32Value": .integer(Int64(Int32.max)),
        "integer64Value": .integer(Int64.max),
        "doubleValue": .double(0.1 + 0.2),
        "floatValue": .double(Double(Float(3.14159))),
        "decimalValue": .decimal(Decimal(string: "12345678901234567890.123456789", locale: Locale(identifier: "en_US_POSIX")) ?? 0),
        "booleanValue": .boolean(true),
        "dateValue": .date(Date(timeIntervalSince1970: 1_311_460_240.123)),
        "binaryValue": .binary(Data([0, 1, 2, 255, 254, 0])),
        "uuidValue": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()),
        "uriValue": .uri(URL(string: "https://example.com/a%20b?q=1#frag") ?? URL(filePath: "/")),
        "characterValue": .character("👩‍👩‍👧"),
        "jsonValue": .json(["n": .number("123456789012345678901234567890"), "a": [true, nil, "x"], "o": [:]]),
    ]

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
