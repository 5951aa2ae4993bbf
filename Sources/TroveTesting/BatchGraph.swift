public import Trove

/// A model whose relationships take any delete rules, and random graphs of it, for comparing
/// batch deletes with deletes through objects, and one store's batch deletes with another's:
/// people (some of them artists) with albums, tracks, tags, passports, friends, spouses and
/// ordered playlists — an entity hierarchy, one-to-one, one-to-many, many-to-many, ordered and
/// self-inverse relationships.
public enum BatchGraph {
    /// Each relationship: entity, name, destination, to-many, ordered, inverse.
    public static let relationships: [(entity: String, name: String, destination: String, toMany: Bool, ordered: Bool, inverse: String)] = [
        ("Person", "albums", "Album", true, false, "owner"),
        ("Person", "playlist", "Album", true, true, "listedBy"),
        ("Person", "friends", "Person", true, false, "friends"),
        ("Person", "tags", "Tag", true, false, "people"),
        ("Person", "spouse", "Person", false, false, "spouse"),
        ("Person", "passport", "Passport", false, false, "holder"),
        ("Album", "owner", "Person", false, false, "albums"),
        ("Album", "listedBy", "Person", false, false, "playlist"),
        ("Album", "tracks", "Track", true, false, "album"),
        ("Track", "album", "Album", false, false, "tracks"),
        ("Tag", "people", "Person", true, false, "tags"),
        ("Passport", "holder", "Person", false, false, "passport"),
    ]

    /// The model with `rules[i]` the delete rule of `relationships[i]`.
    public static func model(rules: [DeleteRule]) throws -> Model {
        func relationships(of entity: String) -> [Relationship] {
            zip(Self.relationships, rules).filter { $0.0.entity == entity }.map { declared, rule in
                Relationship(declared.name, to: declared.destination, toMany: declared.toMany, ordered: declared.ordered,
                             inverse: declared.inverse, deleteRule: rule)
            }
        }
        return try Model {
            Entity("Person", uniqueBy: [["name"]]) {
                Attribute("name", .string, optional: false)
                for relationship in relationships(of: "Person") { relationship }
            }
            Entity("Artist", parent: "Person") {
                Attribute("genre", .string)
            }
            Entity("Album") {
                Attribute("title", .string)
                for relationship in relationships(of: "Album") { relationship }
            }
            Entity("Track") {
                Attribute("title", .string)
                for relationship in relationships(of: "Track") { relationship }
            }
            Entity("Tag", uniqueBy: [["name"]]) {
                Attribute("name", .string, optional: false)
                for relationship in relationships(of: "Tag") { relationship }
            }
            Entity("Passport") {
                Attribute("number", .string)
                for relationship in relationships(of: "Passport") { relationship }
            }
        }
    }

    /// Inserts and saves a graph, the same for the same seed: people `<prefix>p0` … `<prefix>p5`
    /// and tags `<prefix>t0` … `<prefix>t2` (unique names, so graphs of several prefixes share a
    /// store), albums titled `a0` or `a1`, tracks, passports, friends, spouses and playlists.
    public static func populate(_ context: ObjectContext, seed: UInt64, prefix: String = "") throws {
        var rng = SeededGenerator(seed: seed)
        let people = try (0..<6).map { index in
            let person = try context.insert(Bool.random(using: &rng) ? "Artist" : "Person")
            try person.setValue("\(prefix)p\(index)", forKey: "name")
            return person
        }
        func anyone(_ rng: inout SeededGenerator) -> ManagedObject? {
            Int.random(in: 0..<4, using: &rng) == 0 ? nil : people.randomElement(using: &rng)
        }
        let albums = try (0..<Int.random(in: 0...6, using: &rng)).map { index in
            let album = try context.insert("Album")
            try album.setValue("a\(index % 2)", forKey: "title")
            try album.setRelatedObject(anyone(&rng), forKey: "owner")
            if let listener = anyone(&rng) { try listener.addRelatedObject(album, forKey: "playlist") }
            return album
        }
        for index in 0..<Int.random(in: 0...8, using: &rng) where !albums.isEmpty {
            let track = try context.insert("Track")
            try track.setValue("t\(index)", forKey: "title")
            try track.setRelatedObject(albums.randomElement(using: &rng), forKey: "album")
        }
        for index in 0..<3 {
            let tag = try context.insert("Tag")
            try tag.setValue("\(prefix)t\(index)", forKey: "name")
            for person in people where Int.random(in: 0..<3, using: &rng) == 0 { try tag.addRelatedObject(person, forKey: "people") }
        }
        for index in 0..<Int.random(in: 0...3, using: &rng) {
            let passport = try context.insert("Passport")
            try passport.setValue("n\(index)", forKey: "number")
            try passport.setRelatedObject(anyone(&rng), forKey: "holder")
        }
        for _ in 0..<Int.random(in: 0...5, using: &rng) {
            guard let a = people.randomElement(using: &rng), let b = people.randomElement(using: &rng), a !== b else { continue }
            if Bool.random(using: &rng) { try a.addRelatedObject(b, forKey: "friends") } else { try a.setRelatedObject(b, forKey: "spouse") }
        }
        try context.save()
    }
}
