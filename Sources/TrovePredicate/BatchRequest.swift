/// A delete of every object of an entity that a predicate selects, run in the store as SQL
/// without loading the objects (Core Data's `NSBatchDeleteRequest`, GRDB's `deleteAll`).
///
/// ```swift
/// let result = try context.execute(BatchDeleteRequest(entityName: "Photo", where: "views == %d", 0))
/// print(result.count, result.objectIDs)
/// ```
/// Delete rules hold as for objects deleted one by one: see `ObjectContext.execute(_:)`.
public struct BatchDeleteRequest: Sendable, Hashable {
    /// The entity whose objects are deleted.
    public var entityName: String
    /// The condition; `nil` deletes every object of the entity.
    public var predicate: ObjectPredicate?
    /// Whether objects of sub-entities are deleted too (default `true`, as fetches).
    public var includesSubentities: Bool

    /// A request with a predicate already built (or none).
    public init(entityName: String, predicate: ObjectPredicate? = nil, includesSubentities: Bool = true) {
        self.entityName = entityName
        self.predicate = predicate
        self.includesSubentities = includesSubentities
    }

    /// A request with a predicate in the format syntax and its arguments.
    /// - Throws: ``ObjectPredicateError`` for a malformed predicate.
    public init(entityName: String, where format: String, _ arguments: any PredicateArgument...) throws {
        self.init(entityName: entityName, predicate: try ObjectPredicate(format: format, arguments: arguments))
    }

    /// The fetch selecting the objects the request deletes.
    public var fetchRequest: FetchRequest {
        FetchRequest(entityName: entityName, predicate: predicate, includesSubentities: includesSubentities)
    }
}

/// New values for attributes of every object of an entity that a predicate selects, written in
/// the store as one SQL `UPDATE` without loading the objects (Core Data's
/// `NSBatchUpdateRequest`, GRDB's `updateAll`).
///
/// ```swift
/// var request = try BatchUpdateRequest(entityName: "Photo", where: "views < %d", 10)
/// request.values = ["title": "(unseen)", "views": 0]
/// let result = try context.execute(request)
/// ```
/// The values are checked against the attributes' types and rules first; objects already
/// holding them are not written. See `ObjectContext.execute(_:)`.
public struct BatchUpdateRequest: Sendable, Hashable {
    /// The entity whose objects are updated.
    public var entityName: String
    /// The condition; `nil` updates every object of the entity.
    public var predicate: ObjectPredicate?
    /// Whether objects of sub-entities are updated too (default `true`, as fetches).
    public var includesSubentities: Bool
    /// The new value of each attribute to set, by attribute name (``AttributeValue/null``
    /// clears an optional one).
    public var values: [String: AttributeValue]

    /// A request with a predicate already built (or none) and the values to set.
    public init(entityName: String, predicate: ObjectPredicate? = nil, values: [String: AttributeValue] = [:],
                includesSubentities: Bool = true) {
        self.entityName = entityName
        self.predicate = predicate
        self.values = values
        self.includesSubentities = includesSubentities
    }

    /// A request with a predicate in the format syntax and its arguments; set ``values`` next.
    /// - Throws: ``ObjectPredicateError`` for a malformed predicate.
    public init(entityName: String, where format: String, _ arguments: any PredicateArgument...) throws {
        self.init(entityName: entityName, predicate: try ObjectPredicate(format: format, arguments: arguments))
    }

    /// The fetch selecting the objects the request updates.
    public var fetchRequest: FetchRequest {
        FetchRequest(entityName: entityName, predicate: predicate, includesSubentities: includesSubentities)
    }
}
