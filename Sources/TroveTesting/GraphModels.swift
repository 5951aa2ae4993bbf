public import Trove

extension SampleModels {
    /// People, albums and tags: one-to-many with cascade, many-to-many, ordered, reflexive
    /// (self-inverse), one-to-one, two relationships between one pair, and deny.
    public static func graph() throws -> Model {
        try Model {
            Entity("Person", uniqueBy: [["name"]]) {
                Attribute("name", .string, optional: false)
                Relationship("albums", to: "Album", toMany: true, inverse: "owner", deleteRule: .cascade)
                Relationship("playlist", to: "Album", toMany: true, ordered: true, inverse: "listedBy")
                Relationship("friends", to: "Person", toMany: true, inverse: "friends")
                Relationship("tags", to: "Tag", toMany: true, inverse: "people")
                Relationship("spouse", to: "Person", inverse: "spouse")
                Relationship("passport", to: "Passport", inverse: "holder", deleteRule: .deny)
            }
            Entity("Album") {
                Attribute("title", .string)
                Relationship("owner", to: "Person", inverse: "albums")
                Relationship("listedBy", to: "Person", inverse: "playlist")
                Relationship("tracks", to: "Track", toMany: true, inverse: "album", deleteRule: .cascade)
            }
            Entity("Track") {
                Attribute("title", .string)
                Relationship("album", to: "Album", inverse: "tracks", deleteRule: .cascade)
            }
            Entity("Tag", uniqueBy: [["name"]]) {
                Attribute("name", .string, optional: false)
                Relationship("people", to: "Person", toMany: true, inverse: "tags")
            }
            Entity("Passport") {
                Attribute("number", .string)
                Relationship("holder", to: "Person", inverse: "passport")
            }
        }
    }
}
