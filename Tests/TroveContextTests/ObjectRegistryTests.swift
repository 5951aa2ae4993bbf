import Foundation
import Testing
@testable import TroveContext
import Trove
import TroveTesting

/// The registry is a hash table of its own: every entry stays findable through growth and
/// removals, whatever the keys. An object is registered under its own ID (an entry keeps the
/// ID's key and the object, whose ID settles a match).
@Suite struct ObjectRegistryTests {
    @Test func entriesStayFindableThroughGrowthAndRemovalsInAnyOrder() throws {
        let dir = try TemporaryDirectory()
        let container = try Container(model: SampleModels.photos(), url: dir.file("r.trove"))
        let context = container.newBackgroundContext()
        let photo = try #require(context.model.entity(named: "Photo"))
        let photographer = try #require(context.model.entity(named: "Photographer"))

        // Keys that collide on purpose: the same key in two tables, temporary IDs, keys a
        // table's size apart, dense runs and scattered ones.
        var ids: [ObjectID] = []
        let keys: [Int64] = Array(1...300) + Array(stride(from: 1024, to: 64 * 1024, by: 1024)) + [Int64.max, -5, 0]
        for key in keys {
            ids.append(ObjectID(entity: photo, primaryKey: key))
            ids.append(ObjectID(entity: photographer, primaryKey: key))
        }
        ids += (0..<100).map { _ in ObjectID.temporary(entity: photo) }
        // An object of each ID, and a twin of some (another instance of the same row, as a
        // fault made after an object left its context is).
        func object(_ id: ObjectID, in context: ObjectContext) -> ManagedObject {
            context.objectOrFault(for: id, entity: id.entityName == photo.name ? photo : photographer)
        }
        let objects = ids.map { object($0, in: context) }
        let twinContext = container.newBackgroundContext()
        let twins = ids.prefix(6).map { object($0, in: twinContext) }

        var registry = ObjectRegistry()
        var expected: [ObjectID: ManagedObject] = [:]
        var random = SystemRandomNumberGenerator()
        for (id, object) in zip(ids, objects) {
            #expect(registry.registerIfAbsent(object, for: id) == nil)
            expected[id] = object
        }
        #expect(registry.count == ids.count)
        #expect(registry.registerIfAbsent(twins[3], for: ids[3]) === expected[ids[3]], "the registered object wins")

        // Remove in random order, half of them; a removal naming another object is refused.
        for id in ids.shuffled(using: &random).prefix(ids.count / 2) {
            let other = ids.firstIndex(of: id).flatMap { $0 < twins.count ? twins[$0] : nil } ?? objects[0]
            registry.remove(other, at: id)
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
        registry.register(twins[0], for: ids[0])
        #expect(registry.object(for: ids[0]) === twins[0])
        for (id, object) in expected { registry.remove(object, at: id) }
        registry.remove(twins[0], at: ids[0])
        #expect(registry.count == 0)
        #expect(ids.allSatisfy { registry.object(for: $0) == nil })
        registry.register(objects[5], for: ids[5])
        registry.removeAll()
        #expect(registry.count == 0 && registry.object(for: ids[5]) == nil)
    }
}
