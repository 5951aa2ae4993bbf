import Foundation
import Testing
import Trove
import TroveTesting

/// A many-to-many relationship keeps its links in one join table with one order: the order of
/// the side that owns it (the ordered side; of two ordered sides, the one whose
/// `Entity.relationship` sorts first). The other side reads as an unordered to-many does, in
/// the order its objects were stored — never in the owner's positions, which order other lists
/// and tie between them (that made copies of a store differ where objects got other keys).
@Suite struct OrderedManyToManyTests {
    /// `List.songs` ordered; `Song.lists` ordered too (`bothOrdered`) or not.
    static func model(bothOrdered: Bool) throws -> Model {
        try Model {
            Entity("List", uniqueBy: [["name"]]) {
                Attribute("name", .string, optional: false)
                Relationship("songs", to: "Song", toMany: true, ordered: true, inverse: "lists")
            }
            Entity("Song", uniqueBy: [["title"]]) {
                Attribute("title", .string, optional: false)
                Relationship("lists", to: "List", toMany: true, ordered: bothOrdered, inverse: "songs")
            }
        }
    }

    @Test(arguments: [true, false])
    func theSideWithoutTheOrderReadsInStoredOrder(bothOrdered: Bool) throws {
        let dir = try TemporaryDirectory()
        let container = try Container(store: SQLiteStore(url: dir.file("lists.trove"), model: Self.model(bothOrdered: bothOrdered)))
        let context = container.newBackgroundContext()
        func insert(_ entity: String, _ key: String, _ value: String) throws -> ManagedObject {
            let object = try context.insert(entity)
            try object.setValue(value, forKey: key)
            return object
        }
        // Stored in the order morning, evening, night; the song sits at 2, 0 and 1 in their lists.
        let morning = try insert("List", "name", "morning"), evening = try insert("List", "name", "evening"), night = try insert("List", "name", "night")
        let song = try insert("Song", "title", "song")
        let other = try insert("Song", "title", "other"), third = try insert("Song", "title", "third")
        try morning.setRelatedObjects([other, third, song], forKey: "songs")
        try evening.setRelatedObjects([song, other], forKey: "songs")
        try night.setRelatedObjects([third, song], forKey: "songs")
        try context.save()

        let fresh = container.newBackgroundContext()
        func read(_ entity: String, _ key: String, _ value: String, _ relationship: String, _ nameKey: String) throws -> [String] {
            let object = try #require(try fresh.fetch(FetchRequest(entityName: entity, predicate: ObjectPredicate(format: "\(key) == '\(value)'"))).first)
            return try object.relatedObjects(forKey: relationship).map { try $0.value(forKey: nameKey, as: String.self) ?? "-" }
        }
        #expect(try read("List", "name", "morning", "songs", "title") == ["other", "third", "song"], "the owner's order is kept")
        #expect(try read("List", "name", "night", "songs", "title") == ["third", "song"])
        #expect(try read("Song", "title", "song", "lists", "name") == ["morning", "evening", "night"],
                "the other side in stored order, not by the song's places (evening 0, night 1, morning 2)")
        #expect(try read("Song", "title", "other", "lists", "name") == ["morning", "evening"])
    }
}
