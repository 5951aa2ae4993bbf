public import Trove

extension SampleModels {
    /// A Flickr-like model for import tests: snake_case keys, nested owners, tags by name,
    /// notes without a unique key, and albums with every to-many import policy.
    public static func flickr() throws -> Model {
        try Model(keyStyle: .snakeCase) {
            Entity("Owner", uniqueBy: [["nsid"]]) {
                Attribute("nsid", .string, optional: false)
                Attribute("userName", .string, remoteKey: ["username", "user_name"])
                Attribute("userID", .integer64)
                Relationship("photos", to: "Photo", toMany: true, inverse: "owner")
                Relationship("profile", to: "Profile", inverse: "owner", deleteRule: .cascade)
            }
            Entity("Profile") {
                Attribute("bio", .string)
                Relationship("owner", to: "Owner", inverse: "profile")
            }
            Entity("Photo", uniqueBy: [["id"]]) {
                Attribute("id", .integer64, optional: false)
                Attribute("title", .string)
                Attribute("views", .integer32, default: 0)
                Attribute("uploadDate", .date, remoteKey: ["dateupload", "upload_date"])
                Attribute("isPublic", .boolean, remoteKey: ["ispublic"])
                Attribute("size", .string)
                Attribute("grade", .character)
                Attribute("width", .integer32, remoteKey: ["sizes.o.width"])
                Relationship("owner", to: "Owner", inverse: "photos")
                Relationship("tags", to: "Tag", toMany: true, inverse: "photos")
                Relationship("notes", to: "Note", toMany: true, inverse: "photo", deleteRule: .cascade, importPolicy: .replaceDeletingOrphans)
                Relationship("albums", to: "Album", toMany: true, inverse: "photos", importPolicy: .union)
            }
            Entity("Tag", uniqueBy: [["name"]]) {
                Attribute("name", .string, optional: false)
                Relationship("photos", to: "Photo", toMany: true, inverse: "tags")
            }
            Entity("Note") {
                Attribute("text", .string, optional: false)
                Relationship("photo", to: "Photo", inverse: "notes")
            }
            Entity("Album", uniqueBy: [["code"]]) {
                Attribute("code", .string, optional: false)
                Attribute("name", .string, optional: false)
                Relationship("photos", to: "Photo", toMany: true, inverse: "albums")
            }
        }
    }
}
