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
        /// One delete rule per relationship, in `BatchGraph.relationships`' order.
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

    static let rules: [DeleteRule] = [.nullify, .nullify, .cascade, .deny, .noAction]

    static let scenarios = Generator<Scenario, Shrink.None<Scenario>> { rng in
        let rules = BatchGraph.relationships.map { _ in Self.rules.randomElement(using: &rng) ?? .nullify }
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

    /// Runs the scenario's change as a batch on one store and through objects on another made
    /// the same way, and compares the two stores.
    static func compare(_ scenario: Scenario, in dir: TemporaryDirectory, name: String) throws {
        let model = try BatchGraph.model(rules: scenario.rules)
        let batchURL = dir.file("batch-\(name).trove"), objectsURL = dir.file("objects-\(name).trove")
        let batch = try ObjectContext(store: SQLiteStore(url: batchURL, model: model))
        let objects = try ObjectContext(store: SQLiteStore(url: objectsURL, model: model))
        try BatchGraph.populate(batch, seed: scenario.graphSeed)
        try BatchGraph.populate(objects, seed: scenario.graphSeed)
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
            for name in model.rootEntities.map(\.name) {
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
