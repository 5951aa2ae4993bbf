import Foundation
import Testing
@testable import TroveContext
import Trove
import TroveTesting

/// The registry is a hash table of its own: every entry stays findable through growth and
/// removals, whatever the keys.
@Suite struct ObjectRegistryTests {
    @Test func entriesStayFindableThroughGrowthAndRemovalsInAnyOrder() throws {
        let dir = try TemporaryDirectory()
        let container = try Container(model: SampleModels.photos(), url: dir.file("r.trove"))
        let context = container.newBackgroundContext()
        let photo = try #require(context.model.entity(named: "Photo"))
        let photographer = try #require(context.model.entity(named: "Photographer"))
        let objects = try (0..<8).map { _ in try context.insert("Photo") }

        // Keys that collide on purpose: the same key in two tables, temporary IDs, keys a
        // table's size apart, dense runs and scattered ones.
        var ids: [ObjectID] = []
        let keys: [Int64] = Array(1...300) + Array(stride(from: 1024, to: 64 * 1024, by: 1024)) + [Int64.max, -5, 0]
        for key in keys {
            ids.append(ObjectID(entity: photo, primaryKey: key))
            ids.append(ObjectID(entity: photographer, primaryKey: key))
        }
        ids += (0..<100).map { _ in ObjectID.temporary(entity: photo) }

        var registry = ObjectRegistry()
        var expected: [ObjectID: ManagedObject] = [:]
        var random = SystemRandomNumberGenerator()
        for (n, id) in ids.enumerated() {
            let object = objects[n % objects.count]
            #expect(registry.registerIfAbsent(object, for: id) == nil)
            expected[id] = object
        }
        #expect(registry.count == ids.count)
        #expect(registry.registerIfAbsent(objects[0], for: ids[3]) === expected[ids[3]], "the registered object wins")

        // Remove in random order, half of them; a removal naming another object is refused.
        for id in ids.shuffled(using: &random).prefix(ids.count / 2) {
            let other = objects.first { $0 !== expected[id] }
            registry.remove(try #require(other), at: id)
            #expect(registry.object(for: id) === expected[id], "only the registered object's entry goes")
            registry.remove(try #require(expected[id]), at: id)
            expected[id] = nil
        }
        #expect(registry.count == expected.count)
        for id in ids {
            #expect(registry.object(for: id) === expected[id], "\(id)")
        }
        #expect(Set(registry.objects.map(ObjectIdentifier.init)) == Set(expected.values.map(ObjectIdentifier.init)))

        // Registering again replaces; removing everything empties.
        registry.register(objects[1], for: ids[0])
        #expect(registry.object(for: ids[0]) === objects[1])
        for (id, object) in expected { registry.remove(object, at: id) }
        registry.remove(objects[1], at: ids[0])
        #expect(registry.count == 0)
        #expect(ids.allSatisfy { registry.object(for: $0) == nil })
        registry.register(objects[2], for: ids[5])
        registry.removeAll()
        #expect(registry.count == 0 && registry.object(for: ids[5]) == nil)
    }
}
