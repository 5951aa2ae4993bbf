public import TroveModel

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

    /// Checks `request` against `model`.
    /// - Throws: ``StoreError`` `.unknownEntity`, or the ``ObjectPredicateError`` of the predicate or a sort descriptor.
    public init(_ request: FetchRequest, model: Model) throws {
        guard let entity = model.entity(named: request.entityName) else {
            throw StoreError(.unknownEntity,
                "the model has no entity '\(request.entityName)'; its entities are: \(model.entities.map(\.name).joined(separator: ", "))")
        }
        self.entity = entity
        self.includesSubentities = request.includesSubentities
        self.predicate = try request.predicate?.checked(for: entity, in: model)
        self.sortDescriptors = try request.sortDescriptors.map { try $0.checked(for: entity, in: model) }
        self.limit = request.fetchLimit > 0 ? request.fetchLimit : nil
        self.offset = max(0, request.fetchOffset)
    }

    /// The same query without its window (every matching row).
    public var unbounded: StoreQuery {
        var copy = self
        copy.limit = nil
        copy.offset = 0
        return copy
    }
}
