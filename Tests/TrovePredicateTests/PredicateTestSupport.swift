import Foundation
import Testing
import TrovePredicate

/// The lecture's Photographer/Photo model, with an attribute of every comparable type.
enum PhotoModel {
    private static let built = Result { () throws(ModelError) -> Model in
        try Model {
                Entity("Photographer", uniqueBy: [["id"]]) {
                    Attribute("id", .string, optional: false)
                    Attribute("name", .string)
                    Attribute("born", .date)
                    Attribute("rating", .double)
                    Relationship("photos", to: "Photo", toMany: true, inverse: "whoTook", deleteRule: .cascade)
                    Relationship("mentor", to: "Photographer", inverse: "mentor")
                }
                Entity("Photo", uniqueBy: [["uniqueId"]]) {
                    Attribute("uniqueId", .string, optional: false)
                    Attribute("title", .string)
                    Attribute("viewed", .date)
                    Attribute("views", .integer64)
                    Attribute("likes", .integer16)
                    Attribute("score", .double)
                    Attribute("price", .decimal)
                    Attribute("isPublic", .boolean)
                    Attribute("token", .uuid)
                    Attribute("link", .uri)
                    Attribute("grade", .character)
                    Attribute("thumbnail", .binary)
                    Relationship("whoTook", to: "Photographer", inverse: "photos")
                }
        }
    }

    static func model() throws -> Model { try built.get() }

    static func entity(_ name: String) throws -> Entity {
        try #require(try model().entity(named: name))
    }
}

/// A dictionary-backed object for evaluating predicates without a store.
final class TestObject: PredicateSubject, CustomStringConvertible {
    let entity: Entity
    var values: [String: AttributeValue]
    var toOne: [String: TestObject] = [:]
    var toMany: [String: [TestObject]] = [:]
    /// A process-unique identity, for comparisons with objects.
    let objectID: ObjectID

    init(_ entity: Entity, _ values: [String: AttributeValue]) {
        objectID = .temporary(entity: entity)
        self.entity = entity
        self.values = values
    }

    var id: String {
        if case .string(let s) = values["id"] ?? values["uniqueId"] ?? .null { return s }
        return "?"
    }

    var description: String { id }

    func predicateValue(for key: PredicateKey) -> PredicateSubjectValue {
        // The position handed over must be the key's position in the entity.
        let names = key.isRelationship ? entity.relationships.map(\.name) : entity.attributes.map(\.name)
        #expect(names.indices.contains(key.index) && names[key.index] == key.name, "bad index for \(key.name)")
        if key.isRelationship {
            if let objects = toMany[key.name] { return .objects(objects) }
            if entity.relationship(named: key.name)?.isToMany == true { return .objects([]) }
            return .object(toOne[key.name])
        }
        return .value(values[key.name] ?? .null)
    }
}

/// A small graph: four photographers, six photos.
struct PhotoLibrary {
    let photographers: [TestObject]
    let photos: [TestObject]

    static func date(_ text: String) -> Date {
        (try? Date.ISO8601FormatStyle().year().month().day().parse(text)) ?? .distantPast
    }

    init() throws {
        let photographer = try PhotoModel.entity("Photographer"), photoEntity = try PhotoModel.entity("Photo")
        let ada = TestObject(photographer, ["id": "ada", "name": "Ada Lovelace", "born": .date(Self.date("1815-12-10")), "rating": 4.5])
        let grace = TestObject(photographer, ["id": "grace", "name": "Grace Hopper", "born": .date(Self.date("1906-12-09")), "rating": 5])
        let linus = TestObject(photographer, ["id": "linus", "name": "Linus"])
        let anon = TestObject(photographer, ["id": "anon"])
        ada.toOne["mentor"] = grace

        func photo(_ id: String, _ title: AttributeValue, views: AttributeValue, viewed: String?, by owner: TestObject?, extra: [String: AttributeValue] = [:]) -> TestObject {
            var values: [String: AttributeValue] = ["uniqueId": .string(id), "title": title, "views": views]
            if let viewed { values["viewed"] = .date(Self.date(viewed)) }
            let object = TestObject(photoEntity, values.merging(extra) { $1 })
            if let owner {
                object.toOne["whoTook"] = owner
                owner.toMany["photos", default: []].append(object)
            }
            return object
        }
        let p1 = photo("p1", "Sunset over Straße", views: 10, viewed: "2011-07-20", by: ada,
                       extra: ["score": 2.5, "price": .decimal(try #require(Decimal(string: "0.1"))), "isPublic": true, "likes": 3,
                               "token": .uuid(try #require(UUID(uuidString: "00000000-0000-0000-0000-000000000001"))),
                               "link": .uri(try #require(URL(string: "https://example.com/p1"))), "grade": .character("A")])
        let p2 = photo("p2", "Café Noir", views: 50, viewed: "2011-07-23", by: ada,
                       extra: ["score": 7, "price": .decimal(try #require(Decimal(string: "19.99"))), "isPublic": false, "likes": 0])
        let p3 = photo("p3", "Mountains", views: 5, viewed: nil, by: ada)
        let p4 = photo("p4", "İstanbul nights", views: 100, viewed: "2011-08-01", by: grace, extra: ["score": 100.25])
        let p5 = photo("p5", .null, views: .null, viewed: nil, by: anon)
        let p6 = photo("p6", "orphan", views: 1, viewed: "2010-01-01", by: nil)
        photographers = [ada, grace, linus, anon]
        photos = [p1, p2, p3, p4, p5, p6]
    }

    /// The ids of the objects of `entityName` matching the predicate, sorted.
    func ids(_ entityName: String, _ format: String, _ arguments: any PredicateArgument...) throws -> [String] {
        let checked = try ObjectPredicate(format: format, arguments: arguments)
            .checked(for: try PhotoModel.entity(entityName), in: try PhotoModel.model())
        let objects = entityName == "Photo" ? photos : photographers
        return try objects.filter { try checked.evaluate(with: $0) }.map(\.id).sorted()
    }
}

/// Checks `format` against `entityName`; the error it throws, or `nil`.
func checkError(_ format: String, _ arguments: any PredicateArgument..., entity entityName: String = "Photo") -> ObjectPredicateError? {
    do {
        _ = try ObjectPredicate(format: format, arguments: arguments)
            .checked(for: try PhotoModel.entity(entityName), in: try PhotoModel.model())
        return nil
    } catch let error as ObjectPredicateError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}
