import Foundation
import PropertyBased
import Testing
import Trove
import TroveTesting

/// A batch delete or update and the same change made through objects (fetch, delete or set,
/// save) leave the same store: every row, every link, every row version — over random graphs
/// of a model whose delete rules are drawn at random (cascade, nullify, deny, no action), with
/// an entity hierarchy, one-to-one, one-to-many, many-to-many, ordered and self-inverse
/// relationships. A delete a `deny` rule refuses is refused both ways, naming the same object,
/// and leaves the store as it was.
@Suite struct BatchDifferentialTests {
    struct Scenario: Sendable, CustomStringConvertible {
        /// One delete rule per relationship, in ``relationships``' order.
        var rules: [DeleteRule]
        var graphSeed: UInt64
        /// The predicate (on Person, or on Album for an update) and its argument.
        var predicate: String
        var argument: String
        /// `nil` for a delete; the new album title for an update.
        var newTitle: String?

        var description: String {
            "rules \(rules), graph seed \(graphSeed), \(newTitle.map { "update title to \($0)" } ?? "delete") where \(predicate) [\(argument)]"
        }
    }

    /// Each relationship: entity, name, destination, to-many, ordered, inverse.
    static let relationships: [(String, String, String, Bool, Bool, String)] = [
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

    static func model(rules: [DeleteRule]) throws -> Model {
        func relationships(of entity: String) -> [Relationship] {
            zip(Self.relationships, rules).filter { $0.0.0 == entity }.map { declared, rule in
                Relationship(declared.1, to: declared.2, toMany: declared.3, ordered: declared.4, inverse: declared.5, deleteRule: rule)
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

    static let rules: [DeleteRule] = [.nullify, .nullify, .cascade, .deny, .noAction]

    static let scenarios = Generator<Scenario, Shrink.None<Scenario>> { rng in
        let rules = relationships.map { _ in Self.rules.randomElement(using: &rng) ?? .nullify }
        let names = (0..<6).map { "p\($0)" }
        let chosen = names.filter { _ in Bool.random(using: &rng) }.joined(separator: ",")
        let predicates: [(String, String)] = [
            ("name IN %@", chosen), ("ANY tags.name == %@", "t\(Int.random(in: 0..<3, using: &rng))"),
            ("albums.@count >= %@", "\(Int.random(in: 1...2, using: &rng))"), ("name BEGINSWITH %@", "p"),
        ]
        let (predicate, argument) = predicates.randomElement(using: &rng) ?? predicates[0]
        let update = Int.random(in: 0..<4, using: &rng) == 0
        return Scenario(rules: rules, graphSeed: rng.next(),
                        predicate: update ? "owner.name IN %@" : predicate, argument: update ? chosen : argument,
                        newTitle: update ? ["a0", "a1", "new"].randomElement(using: &rng) : nil)
    }

    static let cases = ProcessInfo.processInfo.environment["TROVE_PROPERTY_CASES"].flatMap { Int($0) } ?? 60

    @Test func batchAndObjectsLeaveTheSameStore() async throws {
        let dir = try TemporaryDirectory()
        var round = 0
        await propertyCheck(count: Self.cases, input: Self.scenarios) { scenario in
            round += 1
            try Self.compare(scenario, in: dir, name: "\(round)")
        }
    }

    /// Differences the property found, kept as plain cases.
    @Test func foundCases() throws {
        let dir = try TemporaryDirectory()
        try Self.compare(Scenario(rules: [.cascade, .nullify, .nullify, .cascade, .deny, .nullify, .cascade, .nullify, .nullify, .deny, .deny, .noAction],
                                  graphSeed: 1618468217097263858, predicate: "ANY tags.name == %@", argument: "t0"), in: dir, name: "a")
    }

    /// A graph of the model, the same for the same seed: people (some of them artists) with
    /// albums, tracks, tags, passports, friends, spouses and ordered playlists.
    static func populate(_ context: ObjectContext, seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let people = try (0..<6).map { index in
            let person = try context.insert(Bool.random(using: &rng) ? "Artist" : "Person")
            try person.setValue("p\(index)", forKey: "name")
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
            try tag.setValue("t\(index)", forKey: "name")
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

    /// Runs the scenario's change as a batch on one store and through objects on another made
    /// the same way, and compares the two stores.
    static func compare(_ scenario: Scenario, in dir: TemporaryDirectory, name: String) throws {
        let model = try model(rules: scenario.rules)
        let batchURL = dir.file("batch-\(name).trove"), objectsURL = dir.file("objects-\(name).trove")
        let batch = try ObjectContext(store: SQLiteStore(url: batchURL, model: model))
        let objects = try ObjectContext(store: SQLiteStore(url: objectsURL, model: model))
        try populate(batch, seed: scenario.graphSeed)
        try populate(objects, seed: scenario.graphSeed)
        let before = try contents(batchURL)
        #expect(before == (try contents(objectsURL)), "the two stores start the same")
        let entity = scenario.newTitle == nil ? "Person" : "Album"
        let argument: any PredicateArgument = scenario.predicate.contains(" IN ") ? scenario.argument.split(separator: ",").map(String.init)
            : scenario.predicate.contains("@count") ? Int(scenario.argument).map { $0 } ?? 1 as Int : scenario.argument
        let predicate = try ObjectPredicate(format: scenario.predicate, argument)
        let request = FetchRequest(entityName: entity, predicate: predicate)
        let fresh = try ObjectContext(store: objects.store)

        if let title = scenario.newTitle {
            let result = try batch.execute(BatchUpdateRequest(entityName: entity, predicate: predicate, values: ["title": .string(title)]))
            var changed: [ObjectID] = []
            for album in try fresh.fetch(request) {
                try album.setValue(title, forKey: "title")
                if album.isUpdated { changed.append(album.objectID) }
            }
            try fresh.save()
            #expect(Set(result.objectIDs) == Set(changed), "\(scenario)")
            #expect(!result.usedObjects)
        } else {
            // Every relationship in memory first: a delete through objects records a change of
            // an ordered list only when the list was loaded before (loading it then leaves the
            // deleted object out), and so raises that row's version only then; the batch raises
            // it always, as it does for every other link it removes.
            var held: [ManagedObject] = []
            for name in ["Person", "Album", "Track", "Tag", "Passport"] {
                for object in try fresh.fetch(name) {
                    held.append(object)
                    for relationship in object.entity.relationships { _ = try object.objectIDs(forRelationshipNamed: relationship.name) }
                }
            }
            let matched = try fresh.fetch(request)
            for object in matched { try fresh.delete(object) }
            let deleted = Set(fresh.deletedObjects.map(\.objectID))
            let objectsFailure: ValidationError?
            do {
                try fresh.save()
                objectsFailure = nil
            } catch let error as ValidationError {
                objectsFailure = error
            }
            do {
                let result = try batch.execute(BatchDeleteRequest(entityName: entity, predicate: predicate))
                #expect(objectsFailure == nil, "objects refused what the batch did: \(scenario)")
                #expect(Set(result.objectIDs) == Set(matched.map(\.objectID)), "\(scenario)")
                #expect(Set(result.objectIDs + result.cascadedObjectIDs) == deleted, "\(scenario)")
            } catch let error as ValidationError {
                let failure = try #require(error.failures.first)
                #expect(error.failures.count == 1 && failure.rule == .deny)
                let expected = objectsFailure?.failures.filter { $0.rule == .deny }.map { "\($0.objectID).\($0.key ?? "")" } ?? []
                #expect(expected.contains("\(failure.objectID).\(failure.key ?? "")"), "\(scenario): \(error) vs \(String(describing: objectsFailure))")
                #expect(try contents(batchURL) == before, "a refused batch delete writes nothing")
            }
        }
        let (byBatch, byObjects) = (try contents(batchURL), try contents(objectsURL))
        #expect(byBatch == byObjects, """
            the stores differ: \(scenario)
            only by batch: \(byBatch.filter { !byObjects.contains($0) })
            only by objects: \(byObjects.filter { !byBatch.contains($0) })
            """)
        #expect(try StoreIntegrity.problems(ofStoreAt: batchURL).isEmpty)
    }

    static func contents(_ url: URL) throws -> [String] {
        try StoreIntegrity.contents(ofStoreAt: url, leavingOut: ["trove.createdAt"])
    }
}
