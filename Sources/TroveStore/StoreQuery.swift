public import TroveModel
public import TrovePredicate

/// A fetch checked against the model, as a store runs it: the entity, the checked predicate
/// and sort descriptors, and the window of rows.
public struct StoreQuery: Sendable {
    /// The entity whose objects are fetched.
    public let entity: Entity
    /// Whether objects of sub-entities are included.
    public let includesSubentities: Bool
    /// The condition, or `nil` for every object.
    public let predicate: CheckedPredicate?
    /// The order; rows that tie are ordered by primary key, so the order is always total.
    public let sortDescriptors: [CheckedSortKey]
    /// The most rows to return; `nil` for all.
    public private(set) var limit: Int?
    /// How many rows to skip first.
    public private(set) var offset: Int
    /// Where a store keeps the statements it compiled for queries of this one's request shape
    /// (given by ``StoreQueryCache``, shared by every query it makes of that shape); `nil` for a
    /// query checked on its own.
    package fileprivate(set) var statements: ShapeStatements?

    /// Checks `request` against `model`.
    /// - Throws: ``StoreError`` `.unknownEntity`, or the ``ObjectPredicateError`` of the predicate or a sort descriptor
    ///   (``ObjectPredicateError/Code/tooLarge`` past ``PredicateLimits``).
    public init(_ request: FetchRequest, model: Model) throws {
        guard let entity = model.entity(named: request.entityName) else {
            throw StoreError(.unknownEntity,
                "the model has no entity '\(request.entityName)'; its entities are: \(model.entities.map(\.name).joined(separator: ", "))")
        }
        self.entity = entity
        self.includesSubentities = request.includesSubentities
        self.predicate = try request.predicate?.checked(for: entity, in: model)
        try PredicateLimits.checkSortKeys(count: request.sortDescriptors.count)
        self.sortDescriptors = try request.sortDescriptors.map { try $0.checked(for: entity, in: model) }
        self.limit = request.fetchLimit > 0 ? request.fetchLimit : nil
        self.offset = max(0, request.fetchOffset)
        self.statements = nil
    }

    /// `template` for another request of its shape: `predicate` checked in its place, and the
    /// request's window.
    fileprivate init(_ template: StoreQuery, predicate: CheckedPredicate?, window request: FetchRequest) {
        self.entity = template.entity
        self.includesSubentities = template.includesSubentities
        self.predicate = predicate
        self.sortDescriptors = template.sortDescriptors
        self.limit = request.fetchLimit > 0 ? request.fetchLimit : nil
        self.offset = max(0, request.fetchOffset)
        self.statements = template.statements
    }

    /// The same query without its window (every matching row).
    public var unbounded: StoreQuery {
        var copy = self
        copy.limit = nil
        copy.offset = 0
        return copy
    }
}

/// Checked queries by the shape of their requests, for one caller — a context — that runs
/// requests of few shapes many times: a request of a shape seen before is not checked again,
/// only its constants are coerced into the query checked first (checking took a quarter of a
/// fetch by unique key). Not thread-safe; every request must be of one model.
package final class StoreQueryCache {
    private struct Key: Hashable {
        let entityName: String
        let includesSubentities: Bool
        let predicate: ShapeKey?
        let sortDescriptors: [SortKey]
    }

    private var queries: [Key: StoreQuery] = [:]
    /// How many requests were answered from the cache (for tests).
    package private(set) var hits = 0
    /// The most shapes kept; past it, the cache starts over.
    static let limit = 64

    package init() {}

    /// `request` checked against `model`, as ``StoreQuery/init(_:model:)`` checks it.
    package func query(for request: FetchRequest, model: Model) throws -> StoreQuery {
        var constants: [AttributeValue] = []
        var tokens: ShapeKey?
        if let predicate = request.predicate {
            guard let shape = predicate.shape() else { return try StoreQuery(request, model: model) }
            (tokens, constants) = shape
        }
        let key = Key(entityName: request.entityName, includesSubentities: request.includesSubentities,
                      predicate: tokens, sortDescriptors: request.sortDescriptors)
        if let template = queries[key] {
            guard let predicate = request.predicate else {
                hits += 1
                return StoreQuery(template, predicate: nil, window: request)
            }
            // A constant that does not coerce: the full check says what is wrong.
            if let checked = template.predicate?.replacingConstants(constants, of: predicate) {
                hits += 1
                return StoreQuery(template, predicate: checked, window: request)
            }
            return try StoreQuery(request, model: model)
        }
        var query = try StoreQuery(request, model: model)
        query.statements = ShapeStatements()
        if queries.count >= Self.limit { queries.removeAll() }
        queries[key] = query
        return query
    }
}
