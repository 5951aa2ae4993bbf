import Foundation
import Trove

/// A column of `trove query`: a key path as given to `--fields` (`title`, `whoTook.name`,
/// `tags.name`), resolved against the queried entity; it ends in an attribute.
struct QueryField {
    /// The key path exactly as given: the column's header and JSON key.
    let name: String
    /// The relationships the path goes through, then the attribute.
    let path: ResolvedKeyPath
    /// The attribute the path ends in.
    let attribute: Attribute

    /// Whether the path goes through a to-many relationship, so that it reads an array.
    var isToMany: Bool { path.toManyStepIndex != nil }

    /// Whether the column holds numbers (tables align them right).
    var isNumeric: Bool { attribute.type.isNumeric && !isToMany }

    /// The relationships crossed, dotted (`whoTook`, `photos.tags`), or `nil` for an attribute of
    /// the object itself: what to prefetch.
    var relationshipPath: String? {
        let keys = path.steps.dropLast().map(\.key.name)
        return keys.isEmpty ? nil : keys.joined(separator: ".")
    }

    /// The fields of a `--fields` list, or every attribute of `entity` in model order.
    /// - Throws: ``CLIFailure`` (usage) for an empty or repeated field, an unknown key (with
    ///   the closest keys), or a path that ends in a relationship.
    static func fields(_ list: String?, of entity: Entity, in model: Model) throws -> [QueryField] {
        let names = list.map { $0.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) } }
            ?? entity.attributes.map(\.name)
        var fields: [QueryField] = []
        for name in names {
            guard !name.isEmpty else {
                throw CLIFailure(.usage, "--fields: empty field in '\(list ?? "")'; separate key paths with single commas, as in --fields id,title,whoTook.name")
            }
            guard !fields.contains(where: { $0.name == name }) else {
                throw CLIFailure(.usage, "--fields: '\(name)' is listed twice")
            }
            let path: ResolvedKeyPath
            do {
                path = try ResolvedKeyPath(resolving: name, from: entity, in: model)
            } catch {
                throw CLIFailure(.usage, "--fields: \(error.message)")
            }
            guard let attribute = path.attribute else {
                let destination = path.steps.last?.relationship.flatMap { model.entity(named: $0.destination) }
                let example = destination?.attributes.first.map { "\(name).\($0.name)" } ?? "\(name).KEY"
                throw CLIFailure(.usage, "--fields: '\(name)' is a relationship; name one of its attributes, such as \(example)")
            }
            fields.append(QueryField(name: name, path: path, attribute: attribute))
        }
        return fields
    }

    /// The relationship paths that `fields` cross, without those another one extends (prefetching
    /// `whoTook.photos` loads `whoTook` too).
    static func prefetchPaths(of fields: [QueryField]) -> [String] {
        let paths = Set(fields.compactMap(\.relationshipPath))
        return paths.filter { path in !paths.contains { $0.hasPrefix(path + ".") } }.sorted()
    }

    /// The field's value for `object`: one value (nil when a to-one along the path is nil), or
    /// for a to-many path the values of every object reached, in the relationship's order.
    func value(of object: ManagedObject) throws -> FieldValue {
        var objects = [object]
        for step in path.steps.dropLast() {
            let key = step.key.name
            objects = step.isToMany
                ? try objects.flatMap { try $0.relatedObjects(forKey: key) }
                : try objects.compactMap { try $0.relatedObject(forKey: key) }
        }
        let values = try objects.map { try $0.value(forKey: attribute.name) }
        return isToMany ? .many(values) : .one(values.first ?? .null)
    }
}

/// What a field reads from one object.
enum FieldValue {
    /// The value of a path through to-one relationships only.
    case one(AttributeValue)
    /// The values of a path through a to-many relationship.
    case many([AttributeValue])
}
