public import TroveModel
public import TrovePredicate
import TroveStore

/// Values computed over objects in the store — counts, sums, means, least and greatest values,
/// grouped — without loading the objects (Core Data's expression fetches, MagicalRecord's
/// aggregate operations).
///
/// ```swift
/// let total = try context.sum(of: "views", in: "Photo", where: "whoTook.name == %@", "Ann")
/// let perPhotographer = try context.fetchAggregates(AggregateRequest(
///     entityName: "Photo", groupBy: ["whoTook.name"], aggregates: [.count(), .sum("views")]))
/// ```
/// They read what is saved: unsaved changes of the context are not counted (as in Core Data).
extension ObjectContext {
    /// The results of `request`, one dictionary per group, keyed by the request's
    /// ``AggregateRequest/resultKeys``, computed by one statement.
    /// - Throws: ``ObjectError`` `.unknownEntity`; ``ObjectPredicateError`` for a field, key
    ///   path, predicate, having-predicate or sort descriptor that is wrong; the store's error.
    public func fetchAggregates(_ request: AggregateRequest) throws -> [[String: AttributeValue]] {
        let checked = try checked(request)
        return checked.dictionaries(try store.fetchAggregates(checked))
    }

    /// `function` of `keyPath` over the objects of `entityName` that match (MagicalRecord's
    /// `aggregateOperation:onAttribute:withPredicate:`); nil values are skipped, and the mean,
    /// least and greatest of no value are `.null`.
    /// - Throws: as ``fetchAggregates(_:)``.
    public func aggregate(_ function: ObjectPredicate.Aggregate, of keyPath: String, in entityName: String,
                          where format: String? = nil, _ arguments: any PredicateArgument...) throws -> AttributeValue {
        try aggregate(function, keyPath, entityName, format, arguments)
    }

    /// The sum of `keyPath` over the objects of `entityName` that match (0 for none).
    public func sum(of keyPath: String, in entityName: String, where format: String? = nil,
                    _ arguments: any PredicateArgument...) throws -> AttributeValue {
        try aggregate(.sum, keyPath, entityName, format, arguments)
    }

    /// The mean of `keyPath` over the objects of `entityName` that match (`.null` for none).
    public func average(of keyPath: String, in entityName: String, where format: String? = nil,
                        _ arguments: any PredicateArgument...) throws -> AttributeValue {
        try aggregate(.avg, keyPath, entityName, format, arguments)
    }

    /// The least value of `keyPath` among the objects of `entityName` that match (`.null` for none).
    public func minimum(of keyPath: String, in entityName: String, where format: String? = nil,
                        _ arguments: any PredicateArgument...) throws -> AttributeValue {
        try aggregate(.min, keyPath, entityName, format, arguments)
    }

    /// The greatest value of `keyPath` among the objects of `entityName` that match (`.null` for none).
    public func maximum(of keyPath: String, in entityName: String, where format: String? = nil,
                        _ arguments: any PredicateArgument...) throws -> AttributeValue {
        try aggregate(.max, keyPath, entityName, format, arguments)
    }

    /// `request` checked against the context's model.
    package func checked(_ request: AggregateRequest) throws -> CheckedAggregateRequest {
        guard let entity = model.entity(named: request.entityName) else {
            throw ObjectError(.unknownEntity, "the model has no entity '\(request.entityName)'; its entities are: \(model.entities.map(\.name).joined(separator: ", "))")
        }
        return try CheckedAggregateRequest(request, entity: entity, in: model)
    }

    private func aggregate(_ function: ObjectPredicate.Aggregate, _ keyPath: String, _ entityName: String,
                           _ format: String?, _ arguments: [any PredicateArgument]) throws -> AttributeValue {
        let field = AggregateField(function, keyPath, "value")
        let request = AggregateRequest(entityName: entityName, predicate: try format.map { try ObjectPredicate(format: $0, arguments: arguments) },
                                       aggregates: [field])
        return try fetchAggregates(request).first?["value"] ?? .null
    }
}
