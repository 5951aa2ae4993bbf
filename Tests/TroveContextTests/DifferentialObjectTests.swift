import Foundation
import Testing
import Trove
import TroveTesting

/// Objects in predicates (Core Data's `whoTook == %@` with an object), run through SQL and in
/// memory over ``DifferentialDataSet``: both select the same objects, as many as counted by
/// hand, and the same as a format string that names the objects by their keys.
@Suite struct DifferentialObjectTests {
    let store: DifferentialStore

    init() throws {
        store = try DifferentialStore()
    }

    /// The stored object of `entity` whose first attribute (id, uniqueId, name, label) is `label`.
    func object(_ entity: String, _ label: String) throws -> ManagedObject {
        let key = try #require(store.model.entity(named: entity)).attributes[0].name
        return try #require(try store.context.fetchFirst(entity, whereKey: key, equals: label))
    }

    /// Runs `format` both ways, checks the count, and that `equivalent` (without objects) selects the same.
    func expect(_ entity: String, _ format: String, _ arguments: [any PredicateArgument], count: Int, sameAs equivalent: String? = nil,
                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let selected = try store.expectSameResults(entity, ObjectPredicate(format: format, arguments: arguments), expected: count,
                                                   sourceLocation: sourceLocation)
        if let equivalent {
            let other = try store.sqlObjects(FetchRequest(entityName: entity, predicate: ObjectPredicate(format: equivalent)))
            #expect(selected.map(\.objectID) == other.map(\.objectID), "\(format) selects as \(equivalent) does", sourceLocation: sourceLocation)
        }
    }

    @Test func toOneRelationshipsAndSelf() throws {
        let ada = try object("Photographer", "ada"), grace = try object("Photographer", "grace")
        let p1 = try object("Photo", "p1"), p2 = try object("Photo", "p2"), p3 = try object("Photo", "p3")
        let t1 = try object("Thing", "t1")
        // whoTook: ada p1 p2, grace p3 p4 p13; p6 has none.
        try expect("Photo", "whoTook == %@", [ada], count: 2, sameAs: "whoTook.id == 'ada'")
        try expect("Photo", "whoTook == %@", [ada.objectID], count: 2, sameAs: "whoTook.id == 'ada'")
        try expect("Photo", "%@ == whoTook", [ada], count: 2)
        try expect("Photo", "whoTook = %@", [Optional(ada)], count: 2)
        try expect("Photo", "whoTook != %@", [ada], count: 11, sameAs: "whoTook.id != 'ada'")
        try expect("Photo", "NOT whoTook == %@", [ada], count: 11)
        try expect("Photo", "whoTook == %@", [nil as ManagedObject?], count: 1, sameAs: "whoTook == nil")
        try expect("Photo", "whoTook IN %@", [[ada, grace]], count: 5, sameAs: "whoTook.id IN {'ada', 'grace'}")
        try expect("Photo", "whoTook IN %@", [Set([ada.objectID, grace.objectID])], count: 5)
        try expect("Photo", "NOT (whoTook IN %@)", [[ada, grace]], count: 8)
        try expect("Photo", "whoTook IN %@", [[ManagedObject]()], count: 0)
        try expect("Photo", "whoTook.mentor == %@", [ada], count: 4, sameAs: "whoTook.mentor.id == 'ada'")
        try expect("Photo", "whoTook == %@ OR SELF == %@", [ada, p3], count: 3)
        try expect("Photographer", "mentor == %@", [ada], count: 2, sameAs: "mentor.id == 'ada'")
        try expect("Photographer", "mentor != %@", [ada], count: 13)
        // One-to-one, both sides (the key is on one of them).
        try expect("Photo", "detail == %@", [t1], count: 1, sameAs: "detail.label == 't1'")
        try expect("Thing", "photo == %@", [p1], count: 1, sameAs: "photo.uniqueId == 'p1'")
        try expect("Thing", "photo != %@", [p1], count: 7)
        // SELF.
        try expect("Photo", "SELF == %@", [p1], count: 1, sameAs: "uniqueId == 'p1'")
        try expect("Photo", "SELF != %@", [p1], count: 12)
        try expect("Photo", "SELF IN %@", [[p1, p2, p3]], count: 3, sameAs: "uniqueId IN {'p1', 'p2', 'p3'}")
        try expect("Photo", "SELF IN %@", [[p1.objectID, p2.objectID]], count: 2)
        try expect("Photo", "NOT SELF IN %@", [[p1, p2, p3]], count: 10)
        try expect("Photo", "SELF IN %@", [[ManagedObject]()], count: 0)
        try expect("Photo", "SELF.views > 40", [], count: 3, sameAs: "views > 40")
        try expect("Photo", "SELF != nil", [], count: 13)
    }

    @Test func toManyRelationships() throws {
        let ada = try object("Photographer", "ada"), grace = try object("Photographer", "grace")
        let p1 = try object("Photo", "p1"), p2 = try object("Photo", "p2"), p3 = try object("Photo", "p3")
        let nature = try object("Tag", "nature"), sky = try object("Tag", "sky"), city = try object("Tag", "city")
        // tags: nature p1 p2 p6, sky p1 p4 p6 p10, city p4 p5 p6 p10.
        try expect("Photo", "tags CONTAINS %@", [sky], count: 4, sameAs: "ANY tags.name == 'sky'")
        try expect("Photo", "%@ IN tags", [sky], count: 4)
        try expect("Photo", "ANY tags == %@", [nature], count: 3, sameAs: "ANY tags.name == 'nature'")
        try expect("Photo", "ANY tags IN %@", [[sky, city]], count: 5, sameAs: "ANY tags.name IN {'sky', 'city'}")
        try expect("Photo", "ALL tags IN %@", [[sky, nature]], count: 7, sameAs: "ALL tags.name IN {'sky', 'nature'}")
        try expect("Photo", "NONE tags == %@", [sky], count: 9)
        try expect("Photo", "NOT tags CONTAINS %@", [sky], count: 9)
        try expect("Photo", "ANY tags != %@", [sky], count: 8)
        try expect("Photographer", "photos CONTAINS %@", [p3], count: 1, sameAs: "id == 'grace'")
        try expect("Photographer", "ANY photos IN %@", [[p1, p2, p3]], count: 2, sameAs: "id IN {'ada', 'grace'}")
        try expect("Photographer", "ANY students == %@", [grace], count: 1, sameAs: "id == 'ada'")
        try expect("Tag", "ANY photos.whoTook == %@", [ada], count: 2, sameAs: "ANY photos.whoTook.id == 'ada'")
        try expect("Photographer", "SUBQUERY(photos, $p, $p IN %@).@count == 2", [[p1, p2, p3]], count: 1, sameAs: "id == 'ada'")
        try expect("Photographer", "SUBQUERY(photos, $p, $p.whoTook == %@).@count > 0", [grace], count: 1)
    }

    @Test(arguments: [
        ("whoTook == %@", "Photo", "compares 'whoTook' (objects of Photographer) with Photo/1, an object of Photo"),
        ("title == %@", "Photo", "an object (Photo/1) can only be compared with a relationship or SELF, such as whoTook == %@"),
        ("tags == %@", "Tag", "'tags' goes through a to-many relationship: write tags CONTAINS %@, or ANY tags IN %@"),
        ("whoTook CONTAINS %@", "Photographer", "CONTAINS with an object needs a to-many relationship on the left (tags CONTAINS %@), not relationship 'whoTook'"),
        ("whoTook < %@", "Photographer", "objects compare with ==, !=, IN and CONTAINS, not < (relationship 'whoTook')"),
        ("whoTook ==[c] %@", "Photographer", "==[c] compares strings, but relationship 'whoTook' holds objects"),
        ("ANY whoTook == %@", "Photographer", "ANY needs a key path through a to-many relationship, not 'whoTook'"),
    ])
    func misusedObjectsAreTypedErrorsWithTheirColumn(format: String, entity: String, message: String) throws {
        let argument = try #require(try store.context.fetchFirst(entity))
        let error = #expect(throws: ObjectPredicateError.self) {
            try store.sqlObjects(FetchRequest(entityName: "Photo", predicate: ObjectPredicate(format: format, argument)))
        }
        #expect(error?.message == message)
        #expect(error?.column != nil)
        #expect(error?.source == format)
    }

    @Test func selfAndRelationshipsComparedWithOtherThingsAreErrors() throws {
        for (format, message) in [
            ("SELF == 'p1'", "SELF can only be compared with objects (SELF == %@, SELF IN %@), or a key of it"),
            ("SELF > nil", "SELF can only be compared with objects (SELF == %@, SELF IN %@), or a key of it"),
            ("whoTook IN {'ada'}", "relationship 'whoTook' can only be compared with nil (= nil, != nil) or an object (== %@); compare one of its keys instead, such as whoTook.id"),
        ] {
            let error = #expect(throws: ObjectPredicateError.self) {
                try store.sqlObjects(FetchRequest(entityName: "Photo", predicate: ObjectPredicate(format: format)))
            }
            #expect(error?.code == .typeMismatch, "\(format)")
            #expect(error?.message == message, "\(format)")
        }
    }

    /// An unsaved object has a temporary ID: no stored row refers to it, so SQL selects nothing
    /// for it, and the context's fetch finds it among the unsaved changes, in memory.
    @Test func unsavedObjectsAreFoundAmongUnsavedChanges() throws {
        let context = store.context
        let newcomer = try context.insert("Photographer")
        try newcomer.setValue("newcomer", forKey: "id")
        let fresh = try context.insert("Photo")
        try fresh.setValue("p14", forKey: "uniqueId")
        try fresh.setRelatedObject(newcomer, forKey: "whoTook")
        let p3 = try object("Photo", "p3")
        try p3.setRelatedObject(newcomer, forKey: "whoTook")
        #expect(newcomer.objectID.isTemporary)

        let byNewcomer = FetchRequest(entityName: "Photo", predicate: try ObjectPredicate(format: "whoTook == %@", newcomer))
        #expect(Set(try context.fetch(byNewcomer).map(\.objectID)) == [fresh.objectID, p3.objectID])
        #expect(try context.count(for: byNewcomer) == 2)
        #expect(try store.sqlObjects(byNewcomer).isEmpty, "no stored row refers to an unsaved object")
        let notByNewcomer = FetchRequest(entityName: "Photo", predicate: try ObjectPredicate(format: "whoTook != %@", newcomer))
        #expect(try context.count(for: notByNewcomer) == 12)
        let itself = FetchRequest(entityName: "Photo", predicate: try ObjectPredicate(format: "SELF IN %@", [fresh, p3]))
        #expect(Set(try context.fetch(itself).map(\.objectID)) == [fresh.objectID, p3.objectID])
        #expect(try store.sqlObjects(itself).map(\.objectID) == [p3.objectID])

        // Saved, the object has its permanent ID, and a predicate made again finds it in the store.
        try context.save()
        let saved = FetchRequest(entityName: "Photo", predicate: try ObjectPredicate(format: "whoTook == %@", newcomer))
        #expect(try store.sqlObjects(saved).count == 2)
    }
}
