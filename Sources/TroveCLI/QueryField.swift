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

    /// The fields of a `--fields` list, or every attribute of `entity` in model order but the
    /// transient ones (a store holds no value of them).
    /// - Throws: ``CLIFailure`` (usage) for an empty or repeated field, an unknown key (with
    ///   the closest keys), a path that ends in a relationship or in a transient attribute.
    static func fields(_ list: String?, of entity: Entity, in model: Model) throws -> [QueryField] {
        let names = list.map { $0.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) } }
            ?? entity.attributes.filter { !$0.isTransient }.map(\.name)
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
            guard !attribute.isTransient else {
                throw CLIFailure(.usage, "--fields: '\(name)' is a transient attribute: it lives in an app's memory only, and a store holds no value of it")
            }
            fields.append(QueryField(name: name, path: path, attribute: attribute))
        }
        return fields
    }

    /// The relationship paths that `fields` cross: what to prefetch.
    static func prefetchPaths(of fields: [QueryField]) -> [String] {
        ObjectContext.prefetchPaths(of: fields.map(\.path))
    }

    /// The field's value for `object`: one value, or for a to-many path every value reached.
    func value(of object: ManagedObject) throws -> KeyPathValue {
        try object.value(along: path)
    }
}
