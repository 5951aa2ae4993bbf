public import TroveModel
public import TrovePredicate

/// What a key path reads from an object.
///
/// It prints as its value (`"Sunset"`, `["sea", "sky"]`) and encodes as it (one value, or
/// an array), as ``AttributeValue`` encodes.
public enum KeyPathValue: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// The value at a path through to-one relationships only (nil when one along it is nil).
    case one(AttributeValue)
    /// The values at a path through a to-many relationship, in the relationship's order
    /// (primary-key order when unordered).
    case many([AttributeValue])

    public var description: String {
        switch self {
        case .one(let value): value.description
        case .many(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .one(let value): try value.encode(to: encoder)
        case .many(let values): try values.encode(to: encoder)
        }
    }
}

extension ManagedObject {
    /// The value at a key path of relationships ending in an attribute: `title`,
    /// `whoTook.name`, or `tags.name` (through a to-many: every tag's name).
    /// - Throws: a ``ObjectPredicateError`` naming the entity and the closest keys when the path does
    ///   not resolve or ends in a relationship; ``ObjectError`` when the object has no context.
    public func value(atKeyPath keyPath: String) throws -> KeyPathValue {
        guard let context else {
            throw ObjectError(.notInContext, "\(objectID) is not in a context; fetch it again")
        }
        return try value(along: try context.attributePath(keyPath, from: entity))
    }

    /// The value at a key path already resolved from this object's entity (resolve once with
    /// `ResolvedKeyPath(resolving:from:in:)`, read many objects).
    public func value(along path: ResolvedKeyPath) throws -> KeyPathValue {
        var objects = [self]
        for step in path.steps.dropLast() {
            let key = step.key.name
            objects = step.isToMany
                ? try objects.flatMap { try $0.relatedObjects(forKey: key) }
                : try objects.compactMap { try $0.relatedObject(forKey: key) }
        }
        let name = path.steps.last?.key.name ?? ""
        let values = try objects.map { try $0.value(forKey: name) }
        return path.toManyStepIndex == nil ? .one(values.first ?? .null) : .many(values)
    }
}

extension ObjectContext {
    /// For each object a request selects, a dictionary of the values at `keyPaths` (Core Data's
    /// dictionary result type). The relationships the paths cross are prefetched, one query
    /// per level, so reading them costs no query per object.
    /// - Throws: a ``ObjectPredicateError`` for a key path that does not resolve or ends in a
    ///   relationship, or a fetch error.
    public func fetchDictionaries(_ request: FetchRequest, keyPaths: [String]) throws -> [[String: KeyPathValue]] {
        guard let entity = model.entity(named: request.entityName) else {
            throw ObjectError(.unknownEntity, "the model has no entity '\(request.entityName)'")
        }
        let paths = try keyPaths.map { try attributePath($0, from: entity) }
        var request = request
        request.relationshipKeyPathsForPrefetching += Self.prefetchPaths(of: paths)
        let results = try fetch(request)
        return try results.map { object in
            var dictionary: [String: KeyPathValue] = [:]
            for (name, path) in zip(keyPaths, paths) {
                dictionary[name] = try object.value(along: path)
            }
            return dictionary
        }
    }

    /// The relationship paths that key paths cross (`whoTook`, `photos.tags`), without those
    /// another one extends (prefetching `whoTook.photos` loads `whoTook` too).
    public static func prefetchPaths(of paths: [ResolvedKeyPath]) -> [String] {
        let crossed = Set(paths.compactMap { path -> String? in
            let keys = path.steps.dropLast().map(\.key.name)
            return keys.isEmpty ? nil : keys.joined(separator: ".")
        })
        return crossed.filter { path in !crossed.contains { $0.hasPrefix(path + ".") } }.sorted()
    }

    /// A key path resolved from `entity`, checked to end in an attribute.
    func attributePath(_ keyPath: String, from entity: Entity) throws -> ResolvedKeyPath {
        let path = try ResolvedKeyPath(resolving: keyPath, from: entity, in: model)
        guard path.attribute != nil else {
            throw ObjectPredicateError(.keyPath, "'\(keyPath)' ends in a relationship; name one of its attributes, as in '\(keyPath).KEY'")
        }
        return path
    }
}
