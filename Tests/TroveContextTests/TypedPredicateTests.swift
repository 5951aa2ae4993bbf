import Foundation
import Testing
import Trove
import TroveTesting

private typealias Photographer = Differential.Photographer
private typealias Photo = Differential.Photo
private typealias Tag = Differential.Tag

/// Typed fetches (`#Predicate`, key-path `SortDescriptor`), objects by `objectID`, sort
/// descriptors, and the constructs that are refused with a typed error.
@Suite struct TypedPredicateTests {
    let store: DifferentialStore
    var context: ObjectContext { store.context }

    init() throws {
        store = try DifferentialStore(classes: Differential.classes)
    }

    private func ids(_ photos: [Photo]) -> [String] { photos.map(\.uniqueId) }

    @Test func fetchesTakeTypedPredicatesAndSortDescriptors() throws {
        let popular = try context.fetch(Photo.self, where: #Predicate { ($0.views ?? 0) > 10 && $0.whoTook?.name != nil },
                                        sortedBy: [SortDescriptor(\.views, order: .reverse)])
        #expect(ids(popular) == ["p4", "p9"])
        #expect(try context.fetchFirst(Photo.self, where: #Predicate { $0.title == "Sunset" }, sortedBy: [SortDescriptor(\.uniqueId)])?.uniqueId
            == "p1")
        #expect(try context.fetchFirst(Photo.self, where: #Predicate { $0.title == "Nothing" }) == nil)
        #expect(try context.fetchCount(Photo.self, where: #Predicate { $0.tags.isEmpty }) == 5)
        let byName = try context.fetch(Photographer.self, sortedBy: [SortDescriptor(\.name, order: .reverse), SortDescriptor(\.id)])
        let byFormat = try context.fetch(Photographer.self, where: "TRUEPREDICATE", sortedBy: "-name,id")
        #expect(byName.map(\.id) == byFormat.map(\.id))
        #expect(byName.first?.name == "📷 Snap 👩‍👩‍👧")

        var request = try FetchRequest(Photo.self, where: #Predicate { $0.whoTook?.mentor?.name == "Ada Lovelace" },
                                       sortedBy: [SortDescriptor(\.whoTook?.name), SortDescriptor(\.uploadDate, order: .reverse)])
        request.fetchLimit = 3
        #expect(request.sortDescriptors == [SortKey("whoTook.name"), SortKey("uploadDate", ascending: false)])
        #expect(ids(Array(try context.fetch(request, as: Photo.self))) == ["p13", "p3", "p4"])
    }

    @Test func unsavedObjectsAreMatchedInMemory() throws {
        let fresh = try context.insert(Photo.self)
        fresh.uniqueId = "p14"
        fresh.views = 500
        #expect(ids(try context.fetch(Photo.self, where: #Predicate { ($0.views ?? 0) > 400 })) == ["p4", "p14"])
        let freshID = fresh.objectID
        #expect(ids(try context.fetch(Photo.self, where: #Predicate { $0.objectID == freshID })) == ["p14"])
    }

    @Test func objectsAreComparedByObjectID() throws {
        let ada = try #require(try context.fetchFirst(Photographer.self, where: #Predicate { $0.id == "ada" }))
        let sky = try #require(try context.fetchFirst(Tag.self, where: #Predicate { $0.name == "sky" }))
        let some = try context.fetch(Photo.self, where: #Predicate { $0.views == 7 })
        let adaID = ada.objectID, skyID = sky.objectID, someIDs = some.map(\.objectID)
        let cases: [(ObjectPredicate, ObjectPredicate, Int)] = [
            (try ObjectPredicate(#Predicate<Photo> { $0.whoTook?.objectID == adaID }), try ObjectPredicate(format: "whoTook == %@", ada), 2),
            (try ObjectPredicate(#Predicate<Photo> { $0.whoTook?.objectID != adaID }), try ObjectPredicate(format: "whoTook != %@", ada), 11),
            (try ObjectPredicate(#Predicate<Photo> { someIDs.contains($0.objectID) }), try ObjectPredicate(format: "SELF IN %@", some), 2),
            (try ObjectPredicate(#Predicate<Photo> { $0.objectID == adaID }), try ObjectPredicate(format: "SELF == %@", adaID), 0),
            (try ObjectPredicate(#Predicate<Photographer> { $0.mentor?.objectID == adaID }), try ObjectPredicate(format: "mentor == %@", ada), 2),
        ]
        for (typed, format, count) in cases {
            #expect(typed == format)
            let entity = typed == cases[4].0 ? "Photographer" : "Photo"
            if typed == cases[3].0 {
                // An ID of another entity: a typed error, as for the format.
                #expect(throws: ObjectPredicateError.self) { try store.sqlObjects(FetchRequest(entityName: entity, predicate: typed)) }
                continue
            }
            try store.expectSameResults(entity, typed, expected: count)
        }
        let tagged = try ObjectPredicate(#Predicate<Photo> { $0.tags.contains { $0.objectID == skyID } })
        try store.expectSameResults("Photo", tagged, expected: 4)
    }

    @Test func sortDescriptorsAreSortKeys() throws {
        #expect(try SortKey(SortDescriptor(\Photo.views, order: .reverse)) == SortKey("views", ascending: false))
        #expect(try SortKey(SortDescriptor(\Photo.uniqueId)) == SortKey("uniqueId"))
        #expect(try SortKey(SortDescriptor(\Photo.title, comparator: .lexical)) == SortKey("title"))
        #expect(try SortKey(SortDescriptor(\Photo.title, comparator: .lexical, order: .reverse)) == SortKey("title", ascending: false))
        #expect(try SortKey(SortDescriptor(\Photo.whoTook?.rating)) == SortKey("whoTook.rating"))
        for descriptors in [[SortDescriptor(\Photo.rating), SortDescriptor(\Photo.uniqueId)],
                            [SortDescriptor(\Photo.whoTook?.name, order: .reverse), SortDescriptor(\Photo.views)],
                            [SortDescriptor(\Photo.detail?.decimalValue), SortDescriptor(\Photo.title, order: .reverse)]] {
            let keys = try descriptors.map { try SortKey($0) }
            let sql = try store.sqlObjects(FetchRequest(entityName: "Photo", sortDescriptors: keys))
            let memory = try store.memorySorted(store.allObjects("Photo"), by: keys, entity: "Photo")
            #expect(store.labels(sql) == store.labels(memory), "\(keys)")
        }
        let computed = #expect(throws: ObjectPredicateError.self) { try SortKey(SortDescriptor(\Photo.popularity)) }
        #expect(computed?.code == .unknownKey)
        #expect(computed?.message.contains("modelKeyPath(for:) does not map it") == true)
    }

    @Test func constructsOutsideTheSubsetAreTypedErrorsNamingThem() throws {
        let big = Int64.max
        let refused: [(ObjectPredicateError.Code, String, () throws -> ObjectPredicate)] = [
            (.unsupported, "PredicateExpressions.Conditional", { try ObjectPredicate(#Predicate<Photo> { ($0.views ?? 0) > 5 ? true : $0.title == nil }) }),
            (.unsupported, "PredicateExpressions.Arithmetic", { try ObjectPredicate(#Predicate<Photo> { ($0.views ?? 0) + 1 > 5 }) }),
            (.unsupported, "overflows", { try ObjectPredicate(#Predicate<Photo> { ($0.views ?? 0) == big + 1 }) }),
            (.unsupported, "which is not an entity class", { try ObjectPredicate(#Predicate<Photo> { $0.tags.first?.name == "sky" }) }),
            (.unsupported, "PredicateExpressions.IntDivision", { try ObjectPredicate(#Predicate<Photo> { ($0.views ?? 0) / 2 > 5 }) }),
            (.unknownKey, "does not map it", { try ObjectPredicate(#Predicate<Photo> { $0.isPopular }) }),
        ]
        for (code, text, make) in refused {
            let error = #expect(throws: ObjectPredicateError.self) { try make() }
            #expect(error?.code == code, "\(text)")
            #expect(error?.message.contains(text) == true, "\(error?.message ?? "") names \(text)")
        }
        // Through a fetch, the same error, and the store is untouched.
        let error = #expect(throws: ObjectPredicateError.self) {
            try context.fetch(Photo.self, where: #Predicate { ($0.views ?? 0) > 5 ? true : false })
        }
        #expect(error?.code == .unsupported)
        #expect(try context.fetchCount(Photo.self, where: #Predicate { _ in true }) == 13)
    }
}
