package import Foundation

extension FuzzEntries {
    /// The predicate parser and checker: a parsed predicate prints as text that parses to a
    /// predicate printing the same, and checking it against a small model gives a checked
    /// predicate or a typed error.
    package static func predicateParser(_ data: Data) -> FuzzOutcome {
        guard let text = String(data: data, encoding: .utf8) else { return .rejected }
        let predicate: ObjectPredicate
        do {
            predicate = try ObjectPredicate(format: text, arguments: [])
        } catch {
            return .rejected
        }
        let printed = predicate.description
        do {
            let again = try ObjectPredicate(format: printed, arguments: [])
            guard again.description == printed else {
                return .broken("\(text) prints as \(printed), which prints as \(again.description)")
            }
        } catch {
            return .broken("\(text) prints as \(printed), which does not parse: \(error)")
        }
        guard let model = fuzzModel, let photo = model.entity(named: "Photo") else {
            return .broken("the fuzz model does not build")
        }
        do {
            _ = try predicate.checked(for: photo, in: model)
        } catch {
            return .rejected
        }
        return .accepted
    }


    /// The model predicates are checked against: two entities, a relationship each way, and an
    /// attribute of each kind the language compares differently.
    private static let fuzzModel: Model? = {
        do {
            return try Model {
                Entity("Photographer", uniqueBy: [["id"]]) {
                    Attribute("id", .string, optional: false)
                    Attribute("name", .string)
                    Relationship("photos", to: "Photo", toMany: true, inverse: "whoTook")
                }
                Entity("Photo", uniqueBy: [["id"]]) {
                    Attribute("id", .string, optional: false)
                    Attribute("title", .string)
                    Attribute("views", .integer64, default: 0)
                    Attribute("rating", .double)
                    Attribute("price", .decimal)
                    Attribute("favorite", .boolean)
                    Attribute("uploadDate", .date)
                    Attribute("thumbnail", .binary)
                    Attribute("tags", .json)
                    Relationship("whoTook", to: "Photographer", inverse: "photos")
                }
            }
        } catch {
            return nil
        }
    }()
}
