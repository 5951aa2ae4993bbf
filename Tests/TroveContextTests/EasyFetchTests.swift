import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct EasyFetchTests {
    let dir: TemporaryDirectory
    let context: ObjectContext

    init() throws {
        dir = try TemporaryDirectory()
        context = try Container(model: SampleModels.photos(), url: dir.file("photos.trove")).newBackgroundContext()
        let ann = try context.insert("Photographer")
        try ann.setValue("ann", forKey: "id")
        try ann.setValue("Ann", forKey: "name")
        for (i, title) in ["Sunset", "sunrise", "Beach", "Harbour"].enumerated() {
            let photo = try context.insert("Photo")
            try photo.setValue("p\(i)", forKey: "id")
            try photo.setValue(title, forKey: "title")
            try photo.setValue(Int64(100 * i), forKey: "views")
            try photo.setRelatedObject(i < 3 ? ann : nil, forKey: "whoTook")
        }
        try context.save()
    }

    func titles(_ objects: [ManagedObject]) throws -> [String] {
        try objects.map { try $0.value(forKey: "title", as: String.self) ?? "nil" }
    }

    @Test func oneLinersForTheUsualQuestions() throws {
        #expect(try titles(context.fetch("Photo", where: "views > %d", 50, sortedBy: "-views")) == ["Harbour", "Beach", "sunrise"])
        #expect(try titles(context.fetch("Photo", sortedBy: "title:ci")) == ["Beach", "Harbour", "sunrise", "Sunset"])
        #expect(try context.fetchFirst("Photo", where: "title BEGINSWITH[c] %@", "sun", sortedBy: "views")?.value(forKey: "id") == "p0")
        #expect(try context.fetchFirst("Photographer", whereKey: "id", equals: "ann")?.value(forKey: "name") == "Ann")
        #expect(try context.fetchFirst("Photographer", whereKey: "id", equals: "bob") == nil)
        #expect(try context.fetchCount("Photo", where: "whoTook.name == %@", "Ann") == 3)
        #expect(try context.fetchCount("Photo") == 4)
        #expect(try context.exists("Photo", where: "whoTook == nil"))
        #expect(try !context.exists("Photo", where: "views > %d", 1000))
    }

    @Test func deleteAllMatchingIsWrittenAtOnce() throws {
        #expect(try context.deleteAll("Photo", where: "views < %d", 150) == 2)
        #expect(try context.store.count(of: "Photo") == 2, "a batch delete: no save needed")
        #expect(try context.fetchCount("Photo") == 2)
        #expect(!context.hasChanges)
    }

    @Test func badInputIsAnErrorWithItsPlace() throws {
        let error = try #require(throws: Trove.ObjectPredicateError.self) { try context.fetch("Photo", where: "views >") }
        #expect(error.description.contains("^"))
        #expect(throws: Trove.ObjectPredicateError.self) { try context.fetch("Photo", sortedBy: "-nope") }
        #expect(throws: (any Error).self) { try context.fetchCount("Nothing") }
    }
}

@Suite struct DictionaryResultTests {
    @Test func keyPathsThroughToOneAndToManyWithoutAQueryPerObject() throws {
        let dir = try TemporaryDirectory()
        let recorder = SQLRecorder()
        let store = try SQLiteStore(url: dir.file("d.trove"), model: SampleModels.graph(), options: .init(statementObserver: recorder.observer))
        let context = try Container(store: store).newBackgroundContext()
        for (name, tags) in [("Ann", ["a", "b"]), ("Bob", [])] {
            let person = try context.insert("Person")
            try person.setValue(name, forKey: "name")
            for tag in tags {
                let object = try context.insert("Tag")
                try object.setValue(name + tag, forKey: "name")
                try person.addRelatedObject(object, forKey: "tags")
            }
            let album = try context.insert("Album")
            try album.setValue(name + "'s", forKey: "title")
            try album.setRelatedObject(person, forKey: "owner")
        }
        try context.save()

        let fresh = try Container(store: store).newBackgroundContext()
        recorder.reset()
        var request = FetchRequest(entityName: "Album")
        request.sortDescriptors = [SortKey("title")]
        let rows = try fresh.fetchDictionaries(request, keyPaths: ["title", "owner.name", "owner.tags.name", "owner.spouse.name"])
        #expect(rows.count == 2)
        #expect(rows[0]["title"] == .one("Ann's") && rows[0]["owner.name"] == .one("Ann"))
        let tagNames: Set<AttributeValue> = if case .many(let values)? = rows[0]["owner.tags.name"] { Set(values) } else { [] }
        #expect(tagNames == ["Anna", "Annb"])
        #expect(rows[1]["owner.tags.name"] == .many([]) && rows[1]["owner.spouse.name"] == .one(.null))
        #expect(recorder.selects.count <= 5, "one query per level, not per object: \(recorder.selects.count)")

        let album = try #require(try fresh.fetchFirst("Album", whereKey: "title", equals: "Bob's"))
        #expect(try album.value(atKeyPath: "owner.name") == .one("Bob"))
        #expect(throws: Trove.ObjectPredicateError.self) { try album.value(atKeyPath: "owner") }
        #expect(throws: Trove.ObjectPredicateError.self) { try fresh.fetchDictionaries(request, keyPaths: ["ownr.name"]) }
    }
}
