/// One value an ``AggregateRequest`` computes for each group: a count of its objects, or the
/// sum, mean, least or greatest value of a key path over them.
///
/// Nil values are skipped by every aggregate but the count (which counts objects); the sum of
/// nothing is 0, the mean, least and greatest of nothing are nil. Integers sum as 64-bit
/// integers (a sum past their range goes on as a double), decimals exactly; the mean of integers is a double, of decimals a decimal.
public struct AggregateField: Sendable, Hashable {
    /// What is computed.
    public let function: ObjectPredicate.Aggregate
    /// The key path it is computed over (to-one steps, then an attribute); `nil` for a count.
    public let keyPath: String?
    /// The key of the value in each result: the name given, else the function and key path
    /// as written (`count()`, `sum(views)`). A having-predicate or sort descriptor can name
    /// it when it is an identifier (`total`).
    public let name: String

    /// The number of objects in the group.
    public static func count(as name: String? = nil) -> AggregateField { AggregateField(.count, nil, name) }
    /// The sum of a numeric key path's values.
    public static func sum(_ keyPath: String, as name: String? = nil) -> AggregateField { AggregateField(.sum, keyPath, name) }
    /// The mean of a numeric key path's values.
    public static func avg(_ keyPath: String, as name: String? = nil) -> AggregateField { AggregateField(.avg, keyPath, name) }
    /// The least of a key path's values.
    public static func min(_ keyPath: String, as name: String? = nil) -> AggregateField { AggregateField(.min, keyPath, name) }
    /// The greatest of a key path's values.
    public static func max(_ keyPath: String, as name: String? = nil) -> AggregateField { AggregateField(.max, keyPath, name) }

    /// The field computing `function` over `keyPath` (ignored for a count).
    public init(_ function: ObjectPredicate.Aggregate, _ keyPath: String?, _ name: String? = nil) {
        self.function = function
        self.keyPath = function == .count ? nil : keyPath
        self.name = name ?? "\(function.rawValue.dropFirst())(\(function == .count ? "" : keyPath ?? ""))"
    }
}

/// A fetch of values instead of objects: the objects of an entity that match a predicate,
/// grouped by key paths, with aggregates computed per group — Core Data's dictionary fetch with
/// `propertiesToGroupBy`, `NSExpressionDescription`s and a `havingPredicate`, run as one SQL
/// statement.
///
/// ```swift
/// var request = AggregateRequest(entityName: "Photo", groupBy: ["whoTook.name"],
///                                aggregates: [.count(as: "photos"), .sum("views", as: "total")])
/// request.having = try ObjectPredicate(format: "photos > %d", 1)
/// request.sortDescriptors = [SortKey("total", ascending: false)]
/// ```
///
/// Each result holds the group keys (by key path) and the aggregates (by name). Without group
/// keys there is one result, for all matching objects; with group keys and no aggregates the
/// results are the distinct values of the keys. A store computes it from what is saved: a
/// context's unsaved changes are not counted (as in Core Data).
public struct AggregateRequest: Sendable, Hashable {
    /// The entity whose objects are grouped.
    public var entityName: String
    /// The objects counted; `nil` for every object.
    public var predicate: ObjectPredicate?
    /// The key paths (to-one steps, then an attribute) whose values make a group.
    public var groupBy: [String]
    /// The values computed per group.
    public var aggregates: [AggregateField]
    /// The condition a group's results must meet, naming aggregates by name and group keys of
    /// one step by key (filter on longer key paths in ``predicate``).
    public var having: ObjectPredicate?
    /// The order of the results, by aggregate names and group key paths; results that tie are
    /// ordered by their group keys.
    public var sortDescriptors: [SortKey]
    /// The most results; 0 for no limit.
    public var fetchLimit: Int
    /// How many results to skip first.
    public var fetchOffset: Int
    /// Whether objects of sub-entities are included (default `true`).
    public var includesSubentities: Bool

    /// A request grouping the objects of `entityName`.
    public init(entityName: String, predicate: ObjectPredicate? = nil, groupBy: [String] = [], aggregates: [AggregateField] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.groupBy = groupBy
        self.aggregates = aggregates
        self.having = nil
        self.sortDescriptors = []
        self.fetchLimit = 0
        self.fetchOffset = 0
        self.includesSubentities = true
    }

    /// The key of each result's values, in order: the group key paths, then the aggregate names.
    public var resultKeys: [String] { groupBy + aggregates.map(\.name) }
}

/// An ``AggregateRequest`` checked against its entity, as a store runs it and as
/// ``evaluate(over:)`` runs it in memory (the differential tests hold both to one answer).
public struct CheckedAggregateRequest: Sendable {
    /// A value of each result: a group key or an aggregate.
    package struct Column: Sendable {
        /// Its key in the results.
        package let key: String
        /// The aggregate computed; `nil` for a group key.
        package let function: ObjectPredicate.Aggregate?
        /// The key path read; `nil` for a count.
        package let path: ResolvedKeyPath?
    }

    package let entity: Entity
    package let includesSubentities: Bool
    package let predicate: CheckedPredicate?
    /// The group keys, then the aggregates.
    package let columns: [Column]
    package let groupCount: Int
    /// An entity with one attribute per column (of the column's result type), named so that
    /// the having-predicate and sort descriptors resolve against it.
    package let results: Entity
    package let resultsModel: Model
    package let having: CheckedPredicate?
    /// The sort descriptors on ``results``, then the group keys.
    package let sortDescriptors: [CheckedSortKey]
    package let limit: Int?
    package let offset: Int

    /// Checks `request` against `entity` of `model`.
    /// - Throws: ``ObjectPredicateError`` naming the field, key path or name that is wrong.
    package init(_ request: AggregateRequest, entity: Entity, in model: Model) throws(ObjectPredicateError) {
        guard !request.groupBy.isEmpty || !request.aggregates.isEmpty else {
            throw ObjectPredicateError(.unsupported, "an aggregate request needs a group key or an aggregate; to fetch objects, use a fetch request")
        }
        let keys = request.resultKeys
        if let twice = keys.first(where: { key in keys.filter { $0 == key }.count > 1 }) {
            throw ObjectPredicateError(.argument, "two results are named '\(twice)'; name the aggregates apart (as:)")
        }
        var columns: [Column] = []
        var attributes: [Attribute] = []
        let checker = PredicateChecker(model: model)
        for key in request.groupBy {
            let path = try Self.attributePath(key, of: entity, checker, use: "group by")
            columns.append(Column(key: key, function: nil, path: path))
        }
        for field in request.aggregates {
            var path: ResolvedKeyPath?
            if let keyPath = field.keyPath {
                path = try Self.attributePath(keyPath, of: entity, checker, use: field.name)
                let type = path?.attribute?.type
                if [.sum, .avg].contains(field.function), !(type?.isNumeric ?? false) {
                    throw ObjectPredicateError(.typeMismatch, "\(field.name): '\(keyPath)' is \(type?.withArticle ?? "no") attribute; \(field.function.rawValue.dropFirst()) needs a number")
                }
            }
            columns.append(Column(key: field.name, function: field.function, path: path))
        }
        // Attribute names of the results entity: the key when it is an identifier, else one
        // made from the column's position that no key takes.
        var used = Set(keys)
        for (index, column) in columns.enumerated() {
            var name = column.key
            if !Self.isIdentifier(name) {
                name = "\(column.function == nil ? "group" : "value")\(index)"
                while used.contains(name) { name += "_" }
                used.insert(name)
            }
            attributes.append(Attribute(name, Self.resultType(of: column)))
        }
        do {
            resultsModel = try Model(entities: [Entity("AggregateResult", attributes: attributes)])
        } catch {
            throw ObjectPredicateError(.argument, "the results cannot be described: \(error)")
        }
        guard let results = resultsModel.entity(named: "AggregateResult") else {
            throw ObjectPredicateError(.argument, "the results cannot be described")
        }
        self.results = results
        self.entity = entity
        self.includesSubentities = request.includesSubentities
        self.predicate = try request.predicate?.checked(for: entity, in: model)
        self.columns = columns
        self.groupCount = request.groupBy.count
        do {
            self.having = try request.having?.checked(for: results, in: resultsModel)
        } catch {
            throw ObjectPredicateError(error.code, "having: \(error.message) (a having-predicate names aggregates by name and group keys of one step by key: \(attributes.map(\.name).joined(separator: ", ")))")
        }
        var sorts: [CheckedSortKey] = []
        for descriptor in request.sortDescriptors {
            guard let index = keys.firstIndex(of: descriptor.keyPath) else {
                throw ObjectPredicateError(.unknownKey, "cannot sort by '\(descriptor.keyPath)': sort by a group key or an aggregate of the request (\(keys.joined(separator: ", ")))")
            }
            sorts.append(try SortKey(attributes[index].name, ascending: descriptor.ascending, comparison: descriptor.comparison)
                .checked(for: results, in: resultsModel))
        }
        for attribute in attributes.prefix(request.groupBy.count) {
            sorts.append(try SortKey(attribute.name).checked(for: results, in: resultsModel))
        }
        self.sortDescriptors = sorts
        self.limit = request.fetchLimit > 0 ? request.fetchLimit : nil
        self.offset = Swift.max(0, request.fetchOffset)
    }

    /// The results for `objects` — every object of the entity, which are filtered here —
    /// computed in memory: the values of each result, in the order of ``columns``.
    package func evaluate(over objects: [any PredicateSubject]) throws(ObjectPredicateError) -> [[AttributeValue]] {
        let evaluator = PredicateEvaluator(bindings: [])
        var groups: [[AttributeValue]: [any PredicateSubject]] = [:]
        var order: [[AttributeValue]] = []
        for object in objects {
            if let predicate, try !predicate.evaluate(with: object) { continue }
            let key = columns.prefix(groupCount).map { column in column.path.map { evaluator.value(of: $0, object) } ?? .null }
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(object)
        }
        // Without group keys, one result even for no object (as SQL's aggregate of no rows).
        if groupCount == 0 && order.isEmpty { order = [[]] }
        var rows: [ResultRow] = []
        let id = ObjectID.temporary(entity: results)
        for key in order {
            var values = key
            for column in columns.dropFirst(groupCount) {
                guard let function = column.function else { continue }
                values.append(evaluator.aggregate(function, groups[key] ?? [], key: column.path))
            }
            let row = ResultRow(values: values, objectID: id)
            if let having, try !having.evaluate(with: row) { continue }
            rows.append(row)
        }
        rows.sort { sortDescriptors.compare($0, $1) == .orderedAscending }
        let window = rows.dropFirst(offset).prefix(limit ?? Int.max)
        return window.map(\.values)
    }

    /// `rows` as dictionaries keyed by ``Column/key``.
    package func dictionaries(_ rows: [[AttributeValue]]) -> [[String: AttributeValue]] {
        rows.map { Dictionary(uniqueKeysWithValues: zip(columns.map(\.key), $0)) }
    }

    /// The attribute path `keyPath` names from `entity`: to-one steps, then a stored or derived attribute.
    private static func attributePath(_ keyPath: String, of entity: Entity, _ checker: PredicateChecker, use: String) throws(ObjectPredicateError) -> ResolvedKeyPath {
        let path = try checker.resolve(ObjectPredicate.KeyPath(keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)), from: entity)
        guard path.toManyStepIndex == nil else {
            throw ObjectPredicateError(.keyPath, "\(use): '\(keyPath)' goes through a to-many relationship; group and aggregate along to-one relationships (aggregate the to-many side's entity instead)")
        }
        guard let attribute = path.attribute else {
            throw ObjectPredicateError(.keyPath, "\(use): '\(keyPath)' is a relationship; name one of its attributes, such as \(keyPath).\(checker.firstKey(of: path.steps.last?.relationship))")
        }
        guard !attribute.isTransient else {
            throw ObjectPredicateError(.keyPath, "\(use): '\(keyPath)' is a transient attribute, which the store does not keep")
        }
        return path
    }

    /// The type of a column's values.
    private static func resultType(of column: Column) -> AttributeType {
        let type = column.path?.attribute?.type ?? .integer64
        switch column.function {
        case nil, .min, .max: return type
        case .count: return .integer64
        case .sum, .avg:
            switch PredicateAccumulator.Kind(column.function ?? .sum, of: type) {
            case .integer: return .integer64
            case .double: return .double
            case .decimal: return .decimal
            }
        }
    }

    private static func isIdentifier(_ name: String) -> Bool {
        IdentifierRule.problem(with: name) == nil
    }
}

/// One result of an aggregate request, read by its having-predicate and sort descriptors.
private struct ResultRow: PredicateSubject {
    let values: [AttributeValue]
    let objectID: ObjectID

    func predicateValue(for key: PredicateKey) -> PredicateSubjectValue {
        .value(key.index < values.count ? values[key.index] : .null)
    }
}
