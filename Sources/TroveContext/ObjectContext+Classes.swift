import TroveModel
public import TrovePredicate

/// Inserting and fetching objects as instances of their generated classes (see ``EntityClass``):
///
/// ```swift
/// let photo = try context.insert(Photo.self)
/// let popular = try context.fetch(Photo.self, where: "views > %d", 100, sortedBy: "-views")
/// let ann = try context.fetchFirst(Photographer.self, where: "name == %@", "Ann")
/// ```
extension ObjectContext {
    /// Inserts a new object of `T`'s entity, with its attributes' default values.
    /// - Throws: ``ObjectError`` `.unknownEntity`, `.abstractEntity`, or `.typeMismatch` when
    ///   `T` is not registered with the container.
    @discardableResult
    public func insert<T: EntityClass>(_ type: T.Type) throws -> T {
        guard let (entity, registered) = entityAndClass(named: T.entityName) else {
            throw ObjectError(.unknownEntity, "class \(T.self) is of entity '\(T.entityName)', which the model lacks")
        }
        // The entity's own class (the usual case) needs no look at the class tree.
        if registered != T.self { try checkClass(T.self, of: entity) }
        let object = try insertObject(entity, registered)
        object.awakeFromInsert()
        return unsafeDowncast(object, to: T.self)
    }

    /// The objects of `T`'s entity (and its sub-entities) that match, in order.
    /// - Throws: ``ObjectPredicateError`` for a malformed predicate or sort, ``ObjectError``
    ///   `.typeMismatch` when `T` is not registered, or a fetch error.
    public func fetch<T: EntityClass>(_ type: T.Type, where format: String? = nil, _ arguments: any PredicateArgument...,
                                      sortedBy sort: String? = nil) throws -> [T] {
        Array(try fetch(request(T.entityName, format, arguments, sort), as: T.self))
    }

    /// The first object of `T`'s entity that matches, in order; `nil` when none does.
    public func fetchFirst<T: EntityClass>(_ type: T.Type, where format: String? = nil, _ arguments: any PredicateArgument...,
                                           sortedBy sort: String? = nil) throws -> T? {
        var request = try request(T.entityName, format, arguments, sort)
        request.fetchLimit = 1
        return try fetch(request, as: T.self).first
    }

    /// The number of objects of `T`'s entity that match, counted without loading them.
    public func fetchCount<T: EntityClass>(_ type: T.Type, where format: String? = nil, _ arguments: any PredicateArgument...) throws -> Int {
        try count(for: request(T.entityName, format, arguments, nil))
    }

    /// Fails unless every object of `entity` (sub-entities included) is a `T`.
    func checkClass<T: ManagedObject>(_ type: T.Type, of entity: Entity) throws {
        guard T.self != ManagedObject.self else { return }
        let registered = classes.type(of: entity)
        guard registered is T.Type else {
            throw ObjectError(.typeMismatch,
                "objects of entity '\(entity.name)' are \(registered), not \(T.self); register \(T.self) with the container (Container(…, classes: […]))")
        }
    }
}
