public import TroveModel
public import TrovePredicate

/// One-line fetches (the MagicalRecord idea): an entity name, a predicate format string with
/// its arguments, and an optional sort written as on the command line (`"name,-views,title:ci"`).
///
/// ```swift
/// let popular = try context.fetch("Photo", where: "views > %d", 100, sortedBy: "-views")
/// let ann = try context.fetchFirst("Photographer", whereKey: "id", equals: "ann")
/// let count = try context.fetchCount("Photo", where: "whoTook.name == %@", "Ann")
/// ```
/// Each honours the context's unsaved changes, as ``fetch(_:)-(FetchRequest)`` does.
extension ObjectContext {
    /// The objects of `entityName` that match, in order.
    /// - Throws: ``ObjectPredicateError`` for a malformed predicate or sort, or a fetch error.
    public func fetch(_ entityName: String, where format: String? = nil, _ arguments: any PredicateArgument...,
                      sortedBy sort: String? = nil) throws -> [ManagedObject] {
        Array(try fetch(request(entityName, format, arguments, sort)))
    }

    /// The first object of `entityName` that matches, in order; `nil` when none does.
    public func fetchFirst(_ entityName: String, where format: String? = nil, _ arguments: any PredicateArgument...,
                           sortedBy sort: String? = nil) throws -> ManagedObject? {
        var request = try request(entityName, format, arguments, sort)
        request.fetchLimit = 1
        return try fetch(request).first
    }

    /// The first object of `entityName` whose attribute `key` equals `value`; `nil` when none does.
    public func fetchFirst(_ entityName: String, whereKey key: String, equals value: any PredicateArgument) throws -> ManagedObject? {
        var request = FetchRequest(entityName: entityName)
        request.predicate = try ObjectPredicate(format: "%K == %@", key, value)
        request.fetchLimit = 1
        return try fetch(request).first
    }

    /// The number of objects of `entityName` that match, counted without loading them.
    public func fetchCount(_ entityName: String, where format: String? = nil, _ arguments: any PredicateArgument...) throws -> Int {
        try count(for: request(entityName, format, arguments, nil))
    }

    /// Whether any object of `entityName` matches.
    public func exists(_ entityName: String, where format: String? = nil, _ arguments: any PredicateArgument...) throws -> Bool {
        var request = try request(entityName, format, arguments, nil)
        request.fetchLimit = 1
        return try !fetchObjectIDs(request).isEmpty
    }

    /// Deletes every object of `entityName` that matches, with what its delete rules reach, in
    /// the store at once, and returns how many matched: a ``BatchDeleteRequest`` (see
    /// ``execute(_:)-(BatchDeleteRequest)``), which loads no object unless hooks need them.
    @discardableResult
    public func deleteAll(_ entityName: String, where format: String? = nil, _ arguments: any PredicateArgument...) throws -> Int {
        try execute(BatchDeleteRequest(entityName: entityName, predicate: format.map { try ObjectPredicate(format: $0, arguments: arguments) })).count
    }

    /// Sets `values` (by attribute name) in every object of `entityName` that matches, in the
    /// store at once, and returns how many changed: a ``BatchUpdateRequest`` (see
    /// ``execute(_:)-(BatchUpdateRequest)``).
    @discardableResult
    public func updateAll(_ entityName: String, where format: String? = nil, _ arguments: any PredicateArgument...,
                          set values: [String: AttributeValue]) throws -> Int {
        try execute(BatchUpdateRequest(entityName: entityName, predicate: format.map { try ObjectPredicate(format: $0, arguments: arguments) },
                                       values: values)).count
    }

    func request(_ entityName: String, _ format: String?, _ arguments: [any PredicateArgument], _ sort: String?) throws -> FetchRequest {
        var request = FetchRequest(entityName: entityName)
        request.predicate = try format.map { try ObjectPredicate(format: $0, arguments: arguments) }
        request.sortDescriptors = try sort.map { try SortKey.parse($0) } ?? []
        return request
    }
}
