import Foundation
import Testing
import Trove
import TroveTesting

/// A store with derived and transient attributes, filled from a table the tests count by hand.
struct DerivedFixture {
    /// Photographer, the photos' views and prices (nil for none), their tags.
    static let photos: [(id: String, owner: String?, views: Int64, price: String?, tags: [String])] = [
        ("a1", "ann", 1, "1.10", ["x", "y"]),
        ("a2", "ann", 2, "2.25", ["x"]),
        ("a3", "ann", 3, nil, []),
        ("c1", "carl", 10, "0.5", ["y"]),
        ("o1", nil, 7, "9", []),
    ]
    static let photographers: [(id: String, name: String?, agency: String?)] = [
        ("ann", "Ann", "North"), ("bob", "Bob", nil), ("carl", nil, "South"),
    ]
    static let tags = ["x", "y", "z"]

    static func model(extras: Bool = true) throws -> Model {
        try Model {
            Entity("Agency") {
                Attribute("name", .string)
                Relationship("members", to: "Photographer", toMany: true, inverse: "agency")
            }
            Entity("Photographer", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("name", .string)
                if extras {
                    Attribute("photoCount", .integer64, derivation: "photos.@count")
                    Attribute("totalViews", .integer64, derivation: "photos.@sum.views")
                    Attribute("bestViews", .integer64, derivation: "photos.@max.views")
                    Attribute("meanViews", .double, derivation: "photos.@avg.views")
                    Attribute("totalPrice", .decimal, derivation: "photos.@sum.price")
                    Attribute("firstPhoto", .string, derivation: "photos.@min.id")
                    Attribute("selected", .boolean, default: false, transient: true)
                }
                Relationship("photos", to: "Photo", toMany: true, inverse: "whoTook")
                Relationship("agency", to: "Agency", inverse: "members")
            }
            Entity("Photo", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("views", .integer64, default: 0)
                Attribute("price", .decimal)
                if extras {
                    Attribute("ownerName", .string, derivation: "whoTook.name")
                    Attribute("agencyName", .string, derivation: "whoTook.agency.name")
                    Attribute("tagCount", .integer64, derivation: "tags.@count")
                    Attribute("note", .string, transient: true)
                }
                Relationship("whoTook", to: "Photographer", inverse: "photos")
                Relationship("tags", to: "Tag", toMany: true, inverse: "photos")
            }
            Entity("Tag", uniqueBy: [["name"]]) {
                Attribute("name", .string, optional: false)
                if extras { Attribute("photoCount", .integer64, derivation: "photos.@count") }
                Relationship("photos", to: "Photo", toMany: true, inverse: "tags")
            }
        }
    }

    let dir: TemporaryDirectory
    let recorder = SQLRecorder()
    let container: Container

    /// The store, filled with `model(extras: extras)`, then opened with the full model.
    init(filledWithExtras extras: Bool = true) throws {
        dir = try TemporaryDirectory()
        let url = dir.file("derived.trove")
        do {
            let setup = try Container(model: Self.model(extras: extras), url: url).newBackgroundContext()
            var agencies: [String: ManagedObject] = [:]
            for name in ["North", "South"] {
                let agency = try setup.insert("Agency")
                try agency.setValue(name, forKey: "name")
                agencies[name] = agency
            }
            var owners: [String: ManagedObject] = [:]
            for (id, name, agency) in Self.photographers {
                let owner = try setup.insert("Photographer")
                try owner.setValue(id, forKey: "id")
                try owner.setValue(name.map(AttributeValue.string) ?? .null, forKey: "name")
                try owner.setRelatedObject(agency.flatMap { agencies[$0] }, forKey: "agency")
                owners[id] = owner
            }
            var tags: [String: ManagedObject] = [:]
            for name in Self.tags {
                let tag = try setup.insert("Tag")
                try tag.setValue(name, forKey: "name")
                tags[name] = tag
            }
            for photo in Self.photos {
                let object = try setup.insert("Photo")
                try object.setValue(photo.id, forKey: "id")
                try object.setValue(photo.views, forKey: "views")
                try object.setValue(photo.price.flatMap { Decimal(string: $0) }.map(AttributeValue.decimal) ?? .null, forKey: "price")
                try object.setRelatedObject(photo.owner.flatMap { owners[$0] }, forKey: "whoTook")
                try object.setRelatedObjects(photo.tags.compactMap { tags[$0] }, forKey: "tags")
            }
            try setup.save()
        }
        container = try Container(store: SQLiteStore(url: url, model: Self.model(), options: .init(statementObserver: recorder.observer)))
    }
}

@Suite struct DerivedAttributeTests {
    let fixture: DerivedFixture
    let context: ObjectContext

    init() throws {
        fixture = try DerivedFixture()
        context = fixture.container.newBackgroundContext()
    }

    /// The values the derived attributes must have, counted here from the fixture's table.
    static func handCount(of owner: String) -> [String: AttributeValue] {
        let photos = DerivedFixture.photos.filter { $0.owner == owner }
        let views = photos.map(\.views)
        let prices = photos.compactMap { $0.price.flatMap { Decimal(string: $0) } }
        return [
            "photoCount": .integer(Int64(photos.count)),
            "totalViews": .integer(views.reduce(0, +)),
            "bestViews": views.max().map(AttributeValue.integer) ?? .null,
            "meanViews": views.isEmpty ? .null : .double(Double(views.reduce(0, +)) / Double(views.count)),
            "totalPrice": .decimal(prices.reduce(0, +)),
            "firstPhoto": photos.map(\.id).min().map(AttributeValue.string) ?? .null,
        ]
    }

    @Test func aFetchReadsDerivedValuesInItsOneStatement() throws {
        fixture.recorder.reset()
        let owners = try context.fetch("Photographer", sortedBy: "id")
        #expect(fixture.recorder.selects.count == 1, "\(fixture.recorder.statements)")
        for owner in owners {
            let id = try #require(try owner.value(forKey: "id", as: String.self))
            for (key, expected) in Self.handCount(of: id) {
                #expect(try owner.value(forKey: key) == expected, "\(id).\(key)")
            }
        }
        let photos = try context.fetch("Photo", sortedBy: "id")
        for (object, photo) in zip(photos, DerivedFixture.photos) {
            let owner = DerivedFixture.photographers.first { $0.id == photo.owner }
            #expect(try object.value(forKey: "ownerName") == (owner?.name).map(AttributeValue.string) ?? .null)
            #expect(try object.value(forKey: "agencyName") == (owner?.agency).map(AttributeValue.string) ?? .null)
            #expect(try object.value(forKey: "tagCount") == .integer(Int64(photo.tags.count)))
        }
        let tags = try context.fetch("Tag", sortedBy: "name")
        #expect(try tags.map { try $0.value(forKey: "photoCount") }
                == DerivedFixture.tags.map { tag in .integer(Int64(DerivedFixture.photos.count { $0.tags.contains(tag) })) })
    }

    /// Faults, `object(with:)`, relationships and prefetching read rows the same way.
    @Test func everyRowReadHasTheDerivedValues() throws {
        let ann = try #require(try context.fetchFirst("Photographer", where: "id == 'ann'"))
        let reader = fixture.container.newBackgroundContext()
        let byID = try reader.object(with: ann.objectID)
        #expect(try byID.value(forKey: "photoCount") == .integer(3))
        let related = try byID.relatedObjects(forKey: "photos")
        #expect(try related.map { try $0.value(forKey: "ownerName") } == [.string("Ann"), .string("Ann"), .string("Ann")])
        var request = FetchRequest(entityName: "Photo")
        request.relationshipKeyPathsForPrefetching = ["whoTook", "tags"]
        request.sortDescriptors = [SortKey("id")]
        let prefetching = fixture.container.newBackgroundContext()
        let photos = try prefetching.fetch(request)
        #expect(try photos.map { try $0.relatedObject(forKey: "whoTook")?.value(forKey: "photoCount") }
                == [.integer(3), .integer(3), .integer(3), .integer(1), nil])
        #expect(try photos[0].relatedObjects(forKey: "tags").map { try $0.value(forKey: "photoCount") } == [.integer(2), .integer(2)])
    }

    /// A predicate or sort on a derived attribute runs in SQL and agrees with evaluating it in memory.
    @Test(arguments: [
        ("Photographer", "photoCount > 1"), ("Photographer", "photoCount == 0"), ("Photographer", "totalViews >= 6"),
        ("Photographer", "bestViews == nil"), ("Photographer", "meanViews < 5.5"), ("Photographer", "totalPrice > 3"),
        ("Photographer", "firstPhoto BEGINSWITH 'a'"), ("Photographer", "ANY photos.tagCount >= 2"),
        ("Photographer", "photos.@sum.tagCount == 3"), ("Photo", "ownerName == 'Ann'"), ("Photo", "agencyName == nil"),
        ("Photo", "tagCount > 0 AND whoTook.photoCount < 3"), ("Photo", "NOT ownerName CONTAINS[c] 'n'"),
        ("Tag", "photoCount == 2"),
    ])
    func predicatesOnDerivedAttributesAgreeWithMemory(entity: String, format: String) throws {
        let all = try context.fetch(entity)
        let predicate = try ObjectPredicate(format: format)
        let checked = try predicate.checked(for: try #require(context.model.entity(named: entity)), in: context.model)
        let expected = Set(try all.filter { try checked.evaluate(with: $0) }.map(\.objectID))
        var request = FetchRequest(entityName: entity)
        request.predicate = predicate
        let fetched = try fixture.container.newBackgroundContext().fetchObjectIDs(request)
        #expect(Set(fetched) == expected, "\(format)")
        #expect(try context.count(for: request) == expected.count)
        #expect(!expected.isEmpty || format.contains("== 0"), "a case that selects nothing tests little: \(format)")
    }

    @Test(arguments: [
        ("Photographer", "-photoCount,id"), ("Photographer", "meanViews,id"), ("Photographer", "-totalPrice,id"),
        ("Photo", "ownerName,-id"), ("Photo", "agencyName:ci,id"), ("Photo", "-tagCount,id"),
    ])
    func sortsOnDerivedAttributesAgreeWithMemory(entity: String, sort: String) throws {
        let keys = try SortKey.parse(sort)
        let entityModel = try #require(context.model.entity(named: entity))
        let checked = try keys.map { try $0.checked(for: entityModel, in: context.model) }
        let inMemory = try context.fetch(entity).sorted { checked.compare($0, $1) == .orderedAscending }
        var request = FetchRequest(entityName: entity)
        request.sortDescriptors = keys
        let fetched = try fixture.container.newBackgroundContext().fetchObjectIDs(request)
        #expect(fetched == inMemory.map(\.objectID), "\(sort)")
    }

    @Test func theStatementComputesDerivedValuesWithCorrelatedSubqueries() throws {
        let store = try #require(fixture.container.store as? SQLiteStore)
        var request = FetchRequest(entityName: "Photo")
        request.predicate = try ObjectPredicate(format: "tagCount > %d", 0)
        let sql = try store.compiledFetch(StoreQuery(request, model: store.model)).sql
        #expect(sql.contains(#"(SELECT count(*) FROM "_join_Photo_tags" AS"#), "\(sql)")
        #expect(sql.contains(#"(SELECT "s"#) && sql.contains(#"."name" FROM "Photographer" AS"#), "\(sql)")
        #expect(!sql.contains(#""t"."tagCount""#) && !sql.contains(#""t"."note""#), "no column is read for either kind: \(sql)")
    }

    // MARK: Read-only, stale after a save

    @Test func settingADerivedAttributeThrowsReadOnly() throws {
        let ann = try #require(try context.fetchFirst("Photographer", where: "id == 'ann'"))
        #expect {
            try ann.setValue(99, forKey: "photoCount")
        } throws: { ($0 as? ObjectError)?.code == .readOnly }
        #expect(try ann.value(forKey: "photoCount") == .integer(3))
        #expect(!context.hasChanges)
        // The accessor generated code uses defers the failure to the next save, which writes nothing.
        let index = try #require(ann.entity.attributeIndex(named: "photoCount"))
        ann.setAttributeValue(.integer(99), at: index)
        try ann.setValue("Ann B.", forKey: "name")
        #expect { try context.save() } throws: { ($0 as? ObjectError)?.code == .readOnly }
        let reader = fixture.container.newBackgroundContext()
        #expect(try reader.fetchFirst("Photographer", where: "id == 'ann'")?.value(forKey: "name") == .string("Ann"))
    }

    /// After a save, a derived value in memory is what the store computed when the object was
    /// read (nil for an object inserted since): a new fetch or a refresh computes it again.
    @Test func derivedValuesAreStaleAfterASaveUntilFetchedAgain() throws {
        let bob = try #require(try context.fetchFirst("Photographer", where: "id == 'bob'"))
        #expect(try bob.value(forKey: "photoCount") == .integer(0))
        let photo = try context.insert("Photo")
        try photo.setValue("b1", forKey: "id")
        try photo.setValue(4, forKey: "views")
        try photo.setRelatedObject(bob, forKey: "whoTook")
        #expect(try photo.value(forKey: "ownerName") == .null, "an inserted object has no derived values")
        try context.save()
        #expect(try bob.value(forKey: "photoCount") == .integer(0), "stale until fetched again")
        #expect(try photo.value(forKey: "ownerName") == .null)

        let again = try context.fetch("Photographer", where: "id == 'bob'")
        #expect(again.first === bob)
        #expect(try bob.value(forKey: "photoCount") == .integer(1))
        #expect(try bob.value(forKey: "totalViews") == .integer(4))
        try context.refresh(photo, mergeChanges: true)
        #expect(try photo.value(forKey: "ownerName") == .string("Bob"))
    }

    @Test func aChildContextSavesObjectsWithDerivedAttributes() throws {
        let child = context.newChildContext()
        let owner = try child.insert("Photographer")
        try owner.setValue("dan", forKey: "id")
        try owner.setValue(true, forKey: "selected")
        try child.save()
        let inParent = try context.object(with: owner.objectID)
        #expect(try inParent.value(forKey: "selected") == .boolean(true))
        try context.save()
        let stored = try fixture.container.newBackgroundContext().fetchFirst("Photographer", where: "id == 'dan'")
        #expect(try stored?.value(forKey: "photoCount") == .integer(0))
        #expect(try stored?.value(forKey: "selected") == .boolean(false))
    }

    /// A store created before the model had either kind opens with it and computes the values.
    @Test func aStoreMadeWithoutEitherKindOpensWithThem() throws {
        let plain = try DerivedFixture(filledWithExtras: false)
        let context = plain.container.newBackgroundContext()
        let ann = try #require(try context.fetchFirst("Photographer", where: "id == 'ann'"))
        #expect(try ann.value(forKey: "photoCount") == .integer(3))
        #expect(try ann.value(forKey: "selected") == .boolean(false))
    }
}
