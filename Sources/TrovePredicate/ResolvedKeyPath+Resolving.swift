extension ResolvedKeyPath {
    /// Resolves a dotted key path (`title`, `whoTook.name`, `tags.name`) against `entity`, as a
    /// predicate resolves its key paths: through to-one relationships and at most one to-many.
    ///
    /// ```swift
    /// let path = try ResolvedKeyPath(resolving: "whoTook.name", from: photo, in: model)
    /// path.attribute?.type   // .string
    /// ```
    /// - Throws: ``ObjectPredicateError``: ``ObjectPredicateError/Code/unknownKey`` naming the entity, with
    ///   the closest keys as ``ObjectPredicateError/suggestions``; ``ObjectPredicateError/Code/keyPath`` for
    ///   a key after an attribute, an empty key, or more than one to-many relationship.
    public init(resolving keyPath: String, from entity: Entity, in model: Model) throws(ObjectPredicateError) {
        let keys = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !keys.contains(where: \.isEmpty) else {
            throw ObjectPredicateError(.keyPath, "'\(keyPath)' is not a key path: it has an empty key")
        }
        self = try PredicateChecker(model: model).resolve(ObjectPredicate.KeyPath(keys), from: entity)
    }
}
