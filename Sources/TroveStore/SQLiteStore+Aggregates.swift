public import TroveModel
public import TrovePredicate

extension SQLiteStore {
    /// The groups, computed by one statement: the grouping as a subquery whose rows read as rows
    /// of the request's results entity, filtered by the having-predicate, sorted and windowed
    /// around it as a fetch of that entity is.
    public func fetchAggregates(_ request: CheckedAggregateRequest) throws -> [[AttributeValue]] {
        var inner = QueryCompiler(schema: schema, model: model)
        let grouping = try inner.grouping(request)
        let resultsSchema = StoreSchema(model: request.resultsModel)
        guard let table = resultsSchema.tables.first else {
            throw StoreError(.unknownEntity, "no table for the aggregate results")
        }
        let plan = try ReadPlan(table: table, schema: resultsSchema, model: request.resultsModel)
        var results = FetchRequest(entityName: request.results.name, predicate: request.having?.predicate,
                                   sortDescriptors: request.sortDescriptors.map(\.descriptor))
        results.fetchLimit = request.limit ?? 0
        results.fetchOffset = request.offset
        var outer = QueryCompiler(schema: resultsSchema, model: request.resultsModel)
        let sql = try outer.select({ _ in plan.selection(from: "t") }, for: try StoreQuery(results, model: request.resultsModel),
                                   from: "(\(grouping))")
        let types = request.results.attributes.map(\.type)
        return try read("aggregating \(request.entity.name)") { source in
            try source.withStatement(sql) { statement in
                try statement.bind(inner.arguments + outer.arguments)
                var rows: [[AttributeValue]] = []
                while try statement.step() {
                    rows.append(try types.enumerated().map { index, type in
                        // After _pk and _version. A sum of integers past Int64's range goes on
                        // as a double (as PredicateAccumulator's does).
                        let column = Int32(index + 2)
                        guard let value = ValueCoding.read(statement.handle, column: column, as: type)
                                ?? (type == .integer64 ? ValueCoding.read(statement.handle, column: column, as: .double) : nil) else {
                            throw StoreError(.corruptValue, "aggregating \(request.entity.name): \(request.columns[index].key) is "
                                + "\(ValueCoding.describeColumn(statement.handle, column)), which is not a value of type \(type.rawValue); a stored value is damaged — check the store with trove inspect")
                        }
                        return value
                    })
                }
                return rows
            }
        }
    }
}
