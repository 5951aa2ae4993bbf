import Foundation
package import TroveModel
package import TrovePredicate

/// Compiles a ``StoreQuery`` into one SQL statement, with every value bound as a parameter.
///
/// - To-one steps of key paths become `LEFT JOIN`s, one per distinct path.
/// - `ANY`/`ALL`/`NONE` over a to-many key path become `EXISTS` / `NOT EXISTS` subqueries;
///   aggregates and `SUBQUERY` become correlated scalar subqueries.
/// - Logic is two-valued as in ``CheckedPredicate``: `NOT p` is written `(p) IS NOT TRUE`, `=`
///   and `!=` are `IS` and `IS NOT`.
/// - String operators, `[c]`/`[d]`, `LIKE` and `MATCHES` call the functions of
///   ``SQLFunctions``, which run ``PredicateText``: the same code the in-memory evaluator runs.
/// - Decimals (stored as exact text) compare through the `trove_decimal` collation.
/// - A derived attribute is its derivation's value, computed where it is used (see
///   ``derivedValue(of:in:at:)``); a transient attribute has no value in the store and is refused.
package struct QueryCompiler {
    let schema: StoreSchema
    let model: Model
    let dialect: SQLDialect
    package private(set) var arguments: [AttributeValue] = []
    /// How each constant of the predicate was bound, in order (see ``ShapedStatement``).
    private(set) var bindings: [Binding] = []
    private var aliasCount = 0
    private var scopes: [Scope] = []
    /// PostgreSQL: the stored text attributes' columns in this statement, by their SQL, with the
    /// alias and attribute their ``TextForm`` columns are found by (see ``folded(_:_:)``).
    var textColumns: [String: (alias: String, attribute: String)] = [:]
    /// PostgreSQL: the `@min`/`@max` of stored text attributes, by their SQL: the statement with a
    /// marker for its selection, the value's column, and where its text forms are.
    var textExtremes: [String: (template: String, value: String, source: (alias: String, attribute: String))] = [:]
    /// PostgreSQL: the text attributes whose ``TextForm`` columns the tables read keep; `nil`
    /// for every stored one. An aggregate request's groups, read as rows of its results
    /// entity, keep those ``grouping(_:)`` selected (``groupTextForms``).
    package var textFormAttributes: Set<String>?
    /// PostgreSQL: runs a statement selecting one text column and gives its values. With it, a
    /// `MATCHES` PostgreSQL's regular expressions cannot run exactly is answered from the texts
    /// that match, read first (see ``postgresMatches(_:folded:type:pattern:_:)``); without it,
    /// such a `MATCHES` is refused.
    package var readTexts: ((String) throws -> [String])?
    /// PostgreSQL: the results' text attributes whose forms ``grouping(_:)`` selected beside
    /// them (a group's key, and the `@min`/`@max` of a stored text attribute).
    package internal(set) var groupTextForms: Set<String> = []
    /// How many parameters precede this statement's in the one it is part of.
    private var parameterOffset = 0

    /// A table in a FROM clause that key paths start from, with the joins they added.
    private struct Scope {
        let alias: String
        let entity: Entity
        /// The `SUBQUERY` variable naming this scope's rows, if any.
        let variable: String?
        var joins: [String] = []
        var joinAliases: [String: String] = [:]
    }

    package init(schema: StoreSchema, model: Model, dialect: SQLDialect = .sqlite) {
        self.schema = schema
        self.model = model
        self.dialect = dialect
    }

    // MARK: Statements

    /// `SELECT <selection> FROM … WHERE … ORDER BY … LIMIT …` for `query`; the root table is `t`.
    /// `from` replaces the table with another source of its rows (a subquery).
    package mutating func select(_ selection: (StoreSchema.EntityLayout) throws -> String, for query: StoreQuery,
                         ordered: Bool = true, from source: String? = nil) throws -> String {
        let layout = try schema.layout(of: query.entity.name)
        var conditions = start(at: layout, includesSubentities: query.includesSubentities)
        if let predicate = query.predicate {
            conditions.append(try compile(predicate.root))
        }
        var orderTerms: [String] = []
        if ordered {
            for descriptor in query.sortDescriptors {
                orderTerms.append(try orderTerm(descriptor))
            }
            orderTerms.append("\"t\".\"_pk\"")
        }
        var sql = "SELECT \(try selection(layout)) FROM \(source ?? quoted(layout.table)) AS \"t\""
        for join in scopes[0].joins { sql += " " + join }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if !orderTerms.isEmpty { sql += " ORDER BY " + orderTerms.joined(separator: ", ") }
        if query.limit != nil || query.offset > 0 {
            sql += " LIMIT \(dialect.placeholder(parameterOffset + arguments.count + 1)) OFFSET \(dialect.placeholder(parameterOffset + arguments.count + 2))"
            arguments += Self.windowArguments(query, dialect)
        }
        return sql
    }

    /// The condition of `query` (its window ignored) on its table as `t`, for an `UPDATE` or a
    /// `DELETE` of that table, which cannot join: `nil` when its key paths need joins.
    package mutating func conditions(for query: StoreQuery) throws -> String? {
        let layout = try schema.layout(of: query.entity.name)
        var conditions = start(at: layout, includesSubentities: query.includesSubentities)
        if let predicate = query.predicate {
            conditions.append(try compile(predicate.root))
        }
        guard scopes[0].joins.isEmpty else { return nil }
        return conditions.isEmpty ? "TRUE" : conditions.joined(separator: " AND ")
    }

    /// `SELECT … FROM … WHERE … GROUP BY …` computing an aggregate request's groups: a row per
    /// group, its columns named as the request's results entity's attributes (after `_pk` and
    /// `_version`, both 0, so that the results read as rows of that entity).
    package mutating func grouping(_ request: CheckedAggregateRequest) throws -> String {
        let layout = try schema.layout(of: request.entity.name)
        var conditions = start(at: layout, includesSubentities: request.includesSubentities)
        var selection = ["0 AS \"_pk\"", "0 AS \"_version\""]
        var groups: [String] = []
        for (column, attribute) in zip(request.columns, request.results.attributes) {
            var value = "NULL", type: AttributeType?
            if let path = column.path {
                (value, type) = try self.column(along: path.steps[...], from: 0)
            }
            let sql: String
            switch column.function {
            case nil:
                sql = value
                groups.append(value)
            case .count?: sql = "count(*)"
            case .min?: sql = "min(\(collated(value, type)))"
            case .max?: sql = "max(\(collated(value, type)))"
            case let function?:
                // PredicateAccumulator, as the in-memory evaluation (see aggregate(_:_:key:owner:)).
                let kind = PredicateAccumulator.Kind(function, of: type)
                sql = dialect == .postgres ? SQLDialect.postgresAccumulation(function, kind: kind, of: value)
                    : "\(SQLFunctions.Aggregate(function: function, kind: kind).functionName)(\(value))"
            }
            selection.append("\(sql) AS \(quoted(attribute.name))")
            selection += try groupTextForms(of: value, function: column.function, as: attribute.name)
        }
        // After the selection: its key paths added the joins the conditions' paths reuse.
        if let predicate = request.predicate {
            conditions.append(try compile(predicate.root))
        }
        var sql = "SELECT \(selection.joined(separator: ", ")) FROM \(quoted(layout.table)) AS \"t\""
        for join in scopes[0].joins { sql += " " + join }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if !groups.isEmpty { sql += " GROUP BY " + groups.joined(separator: ", ") }
        return sql
    }

    /// Starts a statement on `layout`'s table as `t`: its scope, and the condition that picks
    /// the rows of the entity (and its sub-entities) in a table shared by a hierarchy.
    private mutating func start(at layout: StoreSchema.EntityLayout, includesSubentities: Bool) -> [String] {
        scopes = [Scope(alias: "t", entity: layout.entity, variable: nil)]
        guard layout.hasEntityColumn else { return [] }
        let names = includesSubentities ? layout.entityNames : [layout.entity.name]
        return ["\"t\".\"_entity\" IN (\(names.map(sqlStringLiteral).joined(separator: ", ")))"]
    }

    /// Numbers this statement's parameters after `count` others: for a statement that another
    /// one (with `count` parameters) becomes part of, in a dialect whose markers are numbered.
    package mutating func skipParameters(_ count: Int) {
        parameterOffset = count
    }

    // MARK: Predicates

    private mutating func compile(_ node: CheckedPredicate.Node) throws -> String {
        switch node {
        case .constant(let value): return value ? "TRUE" : "FALSE"
        case .not(let operand): return "((\(try compile(operand))) IS NOT TRUE)"
        case .and(let parts): return "(" + (try parts.map { try compile($0) }).joined(separator: " AND ") + ")"
        case .or(let parts): return "(" + (try parts.map { try compile($0) }).joined(separator: " OR ") + ")"
        case .comparison(let comparison): return try compile(comparison)
        case .objects(let comparison): return try compile(comparison)
        }
    }

    private mutating func compile(_ comparison: CheckedPredicate.Comparison) throws -> String {
        guard comparison.modifier != .direct, case .keyPath(let path) = comparison.left,
              let split = path.toManyStepIndex else {
            // A constant on the left (`'abc' ==[c] name`) is read as the type of the right side,
            // so that it is folded and collated as that key would be.
            if case .value(let value) = comparison.left, dialect == .postgres {
                // Bound as the right side's type, folded here: PostgreSQL folds no text itself.
                let type = Self.attributeType(of: comparison.right)
                let folds = !comparison.options.isEmpty && type.map(TextForm.applies) ?? true
                return try test(bind(value, type, folds ? comparison.options : []), type: type, comparison, leftIsFolded: true)
            }
            let (left, leftType) = try expression(comparison.left)
            return try test(left, type: leftType ?? Self.attributeType(of: comparison.right), comparison)
        }
        return try quantified(path, split: split, comparison.modifier) { compiler, left, type in
            try compiler.test(left, type: type, comparison)
        }
    }

    /// A quantified to-many key path: `condition` runs on each element in a subquery, given the
    /// column the rest of the path (after the to-many step at `split`) ends in.
    private mutating func quantified(
        _ path: ResolvedKeyPath, split: Int, _ modifier: ObjectPredicate.Modifier,
        condition: (inout QueryCompiler, String, AttributeType?) throws -> String
    ) throws -> String {
        let scopeIndex = startScope(of: path)
        let owner = try joinedAlias(along: path.steps[..<split], from: scopeIndex)
        let element = try openElementScope(path.steps[split], from: owner, variable: nil)
        let (left, type) = try column(along: path.steps[(split + 1)...], from: scopes.count - 1)
        let test = try condition(&self, left, type)
        let subquery = closeElementScope(element, condition: modifier == .all ? "(\(test)) IS NOT TRUE" : test)
        switch modifier {
        case .any, .direct: return "EXISTS (\(subquery))"
        case .all, .none: return "NOT EXISTS (\(subquery))"
        }
    }

    /// A comparison of objects: the primary key of the object a path reaches (a to-one's
    /// foreign key, a joined row's key, or the row's own for `SELF`) against the objects' keys.
    /// A temporary ID names no stored row, so it matches nothing here (the context evaluates
    /// its unsaved objects in memory).
    private mutating func compile(_ comparison: CheckedPredicate.ObjectComparison) throws -> String {
        let keys = comparison.objects.compactMap(\.primaryKey).sorted()
        func test(_ compiler: inout QueryCompiler, _ column: String) -> String {
            let placeholders = keys.map { compiler.bind(.integer($0), nil, []) }
            switch (comparison.isNegated, placeholders.count) {
            case (false, 0): return "FALSE"
            case (true, 0): return "TRUE"
            case (false, 1): return "\(column) \(compiler.dialect.isEqualToValue) \(placeholders[0])"
            case (true, 1): return "\(column) \(compiler.dialect.isNotEqual) \(placeholders[0])"
            case (false, _): return "\(column) IN (\(placeholders.joined(separator: ", ")))"
            case (true, _): return "(\(column) IS NULL OR \(column) NOT IN (\(placeholders.joined(separator: ", "))))"
            }
        }
        let path = comparison.path
        guard comparison.modifier != .direct, let split = path.toManyStepIndex else {
            let (column, _) = try column(along: path.steps[...], from: startScope(of: path))
            return test(&self, column)
        }
        return try quantified(path, split: split, comparison.modifier) { compiler, column, _ in test(&compiler, column) }
    }

    /// The SQL test of `left` (of attribute type `type`) against the comparison's right side;
    /// `leftIsFolded` when `left` is a constant bound already folded with the options.
    private mutating func test(_ left: String, type: AttributeType?, _ comparison: CheckedPredicate.Comparison,
                               leftIsFolded: Bool = false) throws -> String {
        var operand = left, type = type
        if type == .decimal, Self.hasDoubleBeyondDecimal(comparison.right) {
            // A decimal against a double no decimal holds (1e300): both as doubles, as in memory.
            operand = "CAST(\(left) AS \(dialect.doubleType))"
            type = .double
        }
        let options = comparison.options
        // With [c] or [d] both sides are strings (the checker saw to it), constants included.
        let isText = type.map(TextForm.applies) ?? !options.isEmpty
        let folds = isText && !options.isEmpty
        // SQLite's string operators fold inside their functions; PostgreSQL's compare folded operands.
        let foldsOperands = folds && (!comparison.op.isStringOperator || dialect == .postgres)
        let left = foldsOperands && !leftIsFolded ? try folded(operand, options) : collated(operand, type)

        switch comparison.right {
        case .list(let values):
            let present = values.filter { !$0.isNull }
            switch comparison.op {
            case .between:
                guard values.count == 2 else { return "FALSE" }
                return "\(left) BETWEEN \(bind(values[0], type, foldsOperands ? options : [])) AND \(bind(values[1], type, foldsOperands ? options : []))"
            default:
                var parts: [String] = []
                if !present.isEmpty {
                    parts.append("\(left) IN (\(present.map { bind($0, type, foldsOperands ? options : []) }.joined(separator: ", ")))")
                }
                if present.count < values.count { parts.append("\(left) IS NULL") }
                return parts.isEmpty ? "FALSE" : "(" + parts.joined(separator: " OR ") + ")"
            }
        case .value(.null):
            switch comparison.op {
            case .equal: return "\(left) IS NULL"
            case .notEqual: return "\(left) IS NOT NULL"
            default: return "FALSE"
            }
        default:
            let right: String
            // A constant here is not NULL (a NULL one is compared above).
            var equal = dialect.isEqual
            if case .value(let value) = comparison.right {
                equal = dialect.isEqualToValue
                if comparison.op == .like, dialect == .postgres, let pattern = value.text {
                    let folded = PredicateText.fold(pattern, options: foldsOperands ? options : [])
                    return "\(left) LIKE \(bind(.string(SQLDialect.postgresLikePattern(folded)), type, []))"
                }
                if comparison.op == .matches, dialect == .postgres, let pattern = value.text {
                    return try postgresMatches(operand, folded: left, type: type, pattern: pattern, comparison)
                }
                right = bind(value, type, foldsOperands ? options : [])
            } else {
                if dialect == .postgres, comparison.op == .like || comparison.op == .matches {
                    throw StoreError(.unsupportedFormat, "LIKE and MATCHES with a pattern read from a key path do not run on PostgreSQL; give the pattern as a constant")
                }
                let (sql, rightType) = try expression(comparison.right)
                right = foldsOperands ? try folded(sql, options) : collated(sql, rightType ?? type)
            }
            if dialect == .postgres {
                switch comparison.op {
                case .contains: return "(strpos(\(left), \(right)) > 0)"
                case .beginsWith: return "starts_with(\(left), \(right))"
                case .endsWith: return "(right(\(left), char_length(\(right))) = \(right))"
                default: break
                }
            }
            switch comparison.op {
            case .equal: return "\(left) \(equal) \(right)"
            case .notEqual: return "\(left) \(dialect.isNotEqual) \(right)"
            case .less: return "\(left) < \(right)"
            case .lessOrEqual: return "\(left) <= \(right)"
            case .greater: return "\(left) > \(right)"
            case .greaterOrEqual: return "\(left) >= \(right)"
            case .contains: return "trove_contains(\(left), \(right), \(options.rawValue))"
            case .beginsWith: return "trove_beginswith(\(left), \(right), \(options.rawValue))"
            case .endsWith: return "trove_endswith(\(left), \(right), \(options.rawValue))"
            case .like: return "trove_like(\(left), \(right), \(options.rawValue))"
            case .matches: return "trove_matches(\(left), \(right), \(options.rawValue))"
            case .between, .in: return "FALSE"
            }
        }
    }

    /// Whether a constant operand holds a double that no decimal can hold.
    private static func hasDoubleBeyondDecimal(_ operand: CheckedPredicate.Operand) -> Bool {
        let values: [AttributeValue]
        switch operand {
        case .value(let value): values = [value]
        case .list(let list): values = list
        default: return false
        }
        return values.contains { value in
            if case .double(let d) = value { return Decimal(shortestDigitsOf: d) == nil }
            return false
        }
    }

    /// An operand as SQL, with the attribute type its values have (nil when unknown).
    private mutating func expression(_ operand: CheckedPredicate.Operand) throws -> (String, AttributeType?) {
        switch operand {
        case .value(let value): return (bind(value, nil, []), nil)
        case .list: return ("NULL", nil)
        case .keyPath(let path): return try column(along: path.steps[...], from: startScope(of: path))
        case .aggregate(let function, let collection, let key): return try aggregate(function, collection, key: key)
        }
    }

    /// The attribute type an operand's values have, without compiling it (nil for constants).
    private static func attributeType(of operand: CheckedPredicate.Operand) -> AttributeType? {
        switch operand {
        case .value, .list: return nil
        case .keyPath(let path): return path.attribute?.type
        case .aggregate(let function, _, let key):
            let type = key?.attribute?.type
            switch function {
            case .count: return .integer64
            case .avg: return type == .decimal ? .decimal : .double
            case .sum, .min, .max: return type
            }
        }
    }

    /// An aggregate as a correlated subquery; its collection starts at `owner` when given
    /// (a derived attribute's, one to-many step), else at its scope.
    private mutating func aggregate(_ function: ObjectPredicate.Aggregate, _ collection: CheckedPredicate.Collection,
                                    key: ResolvedKeyPath?, owner: String? = nil) throws -> (String, AttributeType?) {
        let path: ResolvedKeyPath, variable: String?, filter: CheckedPredicate.Node?
        switch collection {
        case .keyPath(let p): (path, variable, filter) = (p, nil, nil)
        case .subquery(let s): (path, variable, filter) = (s.collection, s.variable, s.predicate)
        }
        guard let last = path.steps.indices.last else { return ("NULL", nil) }
        let owner = try owner ?? joinedAlias(along: path.steps[..<last], from: startScope(of: path))
        let element = try openElementScope(path.steps[last], from: owner, variable: variable)
        var value = "NULL", type: AttributeType?
        if function != .count, let key {
            (value, type) = try column(along: key.steps[...], from: scopes.count - 1)
        }
        let condition = try filter.map { try compile($0) } ?? "TRUE"
        let result: String
        switch function {
        case .count: result = "count(*)"
        case .sum, .avg:
            let kind = PredicateAccumulator.Kind(function, of: type)
            // Not SQLite's sum() and avg(): they read decimal text as doubles and sum() fails on
            // integer overflow. These run PredicateAccumulator, as the in-memory evaluator does.
            result = dialect == .postgres ? SQLDialect.postgresAccumulation(function, kind: kind, of: value)
                : "\(SQLFunctions.Aggregate(function: function, kind: kind).functionName)(\(value))"
        case .min: result = "min(\(collated(value, type)))"
        case .max: result = "max(\(collated(value, type)))"
        }
        let resultType: AttributeType?
        switch function {
        case .count: resultType = .integer64
        case .avg: resultType = type == .decimal ? .decimal : .double
        default: resultType = type
        }
        if function == .min || function == .max, let source = textColumns[value] {
            return (textExtreme(function, of: value, source: source, element: element, condition: condition), resultType)
        }
        return ("(\(closeElementScope(element, selecting: result, condition: condition)))", resultType)
    }

    // MARK: Key paths

    /// The scope a key path starts from: its `SUBQUERY` variable's, or the fetched object's.
    private func startScope(of path: ResolvedKeyPath) -> Int {
        guard let variable = path.variable else { return 0 }
        return scopes.lastIndex { $0.variable == variable } ?? 0
    }

    /// The column a path of to-one steps then an attribute (or a final to-one, read as its
    /// key) ends in, joining what it passes through into scope `scopeIndex`.
    mutating func column(along steps: ArraySlice<ResolvedKeyPath.Step>, from scopeIndex: Int) throws -> (String, AttributeType?) {
        guard let last = steps.last else { return ("\(quoted(scopes[scopeIndex].alias)).\"_pk\"", nil) }
        let alias = try joinedAlias(along: steps.dropLast(), from: scopeIndex)
        switch last.kind {
        case .attribute(let attribute) where attribute.isTransient:
            throw ObjectPredicateError(.keyPath, "'\(attribute.name)' is a transient attribute of \(last.entityName): it lives in"
                + " memory only, so a store cannot filter or sort by it; filter and sort the fetched objects in memory instead")
        case .attribute(let attribute) where attribute.isDerived:
            return try derivedValue(of: attribute, in: try entity(at: alias, named: last.entityName), at: alias)
        case .attribute(let attribute):
            let sql = "\(quoted(alias)).\(quoted(attribute.name))"
            if dialect == .postgres, TextForm.applies(to: attribute.type), textFormAttributes?.contains(attribute.name) ?? true {
                textColumns[sql] = (alias, attribute.name)
            }
            return (sql, attribute.type)
        case .toOne(let relationship):
            let entity = try entity(at: alias, named: last.entityName)
            if case .foreignKey(let column) = try schema.storage(of: relationship.name, in: entity) {
                return ("\(quoted(alias)).\(quoted(column))", .integer64)
            }
            return ("\(quoted(try join(relationship, of: entity, from: alias, in: scopeIndex))).\"_pk\"", .integer64)
        case .toMany:
            return ("NULL", nil)
        }
    }

    /// The value of a derived attribute of `entity` for the row at `alias`: an expression that
    /// refers to nothing but `alias`, so that it fits in any statement that has that row — a
    /// subquery aggregating a to-many relationship, or one following to-one relationships.
    /// - Throws: ``ObjectPredicateError`` when the derivation does not resolve.
    package mutating func derivedValue(of attribute: Attribute, in entity: Entity, at alias: String) throws -> (sql: String, type: AttributeType?) {
        switch try model.derivedOperand(of: attribute, in: entity) {
        case .aggregate(let function, let collection, let key):
            return try aggregate(function, collection, key: key, owner: alias)
        case .keyPath(let path) where path.steps.count > 1 && !path.steps[0].isToMany:
            // The first to-one as a subquery; the rest joined inside it.
            let element = try openElementScope(path.steps[0], from: alias, variable: nil)
            let (value, type) = try column(along: path.steps[1...], from: scopes.count - 1)
            return ("(\(closeElementScope(element, selecting: value, condition: "TRUE")))", type)
        default:
            throw ObjectPredicateError(.keyPath, "derivation '\(attribute.derivation ?? "")' of \(entity.name).\(attribute.name) is not one a store computes")
        }
    }

    /// The alias reached by following to-one steps from scope `scopeIndex`'s table.
    private mutating func joinedAlias(along steps: ArraySlice<ResolvedKeyPath.Step>, from scopeIndex: Int) throws -> String {
        var alias = scopes[scopeIndex].alias
        for step in steps {
            guard case .toOne(let relationship) = step.kind else { continue }
            alias = try join(relationship, of: try entity(at: alias, named: step.entityName), from: alias, in: scopeIndex)
        }
        return alias
    }

    private func entity(at alias: String, named name: String) throws -> Entity {
        guard let entity = model.entity(named: name) else {
            throw StoreError(.unknownEntity, "the model has no entity '\(name)'")
        }
        return entity
    }

    /// LEFT JOINs the destination of a to-one relationship into a scope, once per path.
    private mutating func join(_ relationship: Relationship, of entity: Entity, from alias: String, in scopeIndex: Int) throws -> String {
        let key = "\(alias).\(relationship.name)"
        if let existing = scopes[scopeIndex].joinAliases[key] { return existing }
        let destination = try schema.layout(of: relationship.destination)
        let joined = newAlias("j")
        switch try schema.storage(of: relationship.name, in: entity) {
        case .foreignKey(let column):
            scopes[scopeIndex].joins.append(
                "LEFT JOIN \(quoted(destination.table)) AS \(quoted(joined)) ON \(quoted(joined)).\"_pk\" = \(quoted(alias)).\(quoted(column))")
        case .inverseForeignKey(let table, let column):
            scopes[scopeIndex].joins.append(
                "LEFT JOIN \(quoted(table)) AS \(quoted(joined)) ON \(quoted(joined)).\(quoted(column)) = \(quoted(alias)).\"_pk\"")
        case .joinTable(let name, let sourceIsFirst):
            let link = newAlias("k")
            let (mine, other) = sourceIsFirst ? ("source", "target") : ("target", "source")
            scopes[scopeIndex].joins.append(
                "LEFT JOIN \(quoted(name)) AS \(quoted(link)) ON \(quoted(link)).\(quoted(mine)) = \(quoted(alias)).\"_pk\"")
            scopes[scopeIndex].joins.append(
                "LEFT JOIN \(quoted(destination.table)) AS \(quoted(joined)) ON \(quoted(joined)).\"_pk\" = \(quoted(link)).\(quoted(other))")
        }
        scopes[scopeIndex].joinAliases[key] = joined
        return joined
    }

    /// A subquery over the objects of a relationship step (the elements of a to-many, or the
    /// object of a to-one), as a new scope: returns the FROM clause and the condition linking
    /// them to their owner at `owner`.
    private mutating func openElementScope(_ step: ResolvedKeyPath.Step, from owner: String, variable: String?) throws -> (from: String, link: String) {
        guard let relationship = step.relationship else { return ("", "FALSE") }
        let source = try entity(at: owner, named: step.entityName)
        let destination = try schema.layout(of: relationship.destination)
        let alias = newAlias("s")
        scopes.append(Scope(alias: alias, entity: destination.entity, variable: variable))
        switch try schema.storage(of: relationship.name, in: source) {
        case .inverseForeignKey(let table, let column):
            return ("\(quoted(table)) AS \(quoted(alias))", "\(quoted(alias)).\(quoted(column)) = \(quoted(owner)).\"_pk\"")
        case .joinTable(let name, let sourceIsFirst):
            let link = newAlias("k")
            let (mine, other) = sourceIsFirst ? ("source", "target") : ("target", "source")
            return ("\(quoted(name)) AS \(quoted(link)) JOIN \(quoted(destination.table)) AS \(quoted(alias)) ON \(quoted(alias)).\"_pk\" = \(quoted(link)).\(quoted(other))",
                    "\(quoted(link)).\(quoted(mine)) = \(quoted(owner)).\"_pk\"")
        case .foreignKey(let column):
            return ("\(quoted(destination.table)) AS \(quoted(alias))", "\(quoted(alias)).\"_pk\" = \(quoted(owner)).\(quoted(column))")
        }
    }

    /// Closes the innermost element scope into `SELECT selection FROM … WHERE link AND condition`.
    mutating func closeElementScope(_ element: (from: String, link: String), selecting selection: String = "1",
                                            condition: String) -> String {
        let scope = scopes.removeLast()
        let joins = scope.joins.isEmpty ? "" : " " + scope.joins.joined(separator: " ")
        return "SELECT \(selection) FROM \(element.from)\(joins) WHERE \(element.link) AND \(condition)"
    }

    // MARK: Values

    /// How a constant is bound: as the type of the column it is compared with, folded with
    /// the options of the comparison.
    struct Binding: Sendable {
        var type: AttributeType?
        var options: StringOptions
    }

    /// A parameter for `value`, in the form the column holds (see ``bound(_:_:)``).
    mutating func bind(_ value: AttributeValue, _ type: AttributeType?, _ options: StringOptions) -> String {
        let binding = Binding(type: type, options: options)
        bindings.append(binding)
        let bound = Self.bound(value, binding)
        arguments.append(bound)
        let marker = dialect.placeholder(parameterOffset + arguments.count)
        // PostgreSQL types a parameter from what it meets; a constant meeting no column
        // (`nil = nil`, `1 = 1`) is typed by its value.
        guard dialect == .postgres, type == nil else { return marker }
        return "CAST(\(marker) AS \(SQLDialect.postgresType(of: bound)))"
    }

    /// `value` in the form the column holds: decimals as decimal text, text folded when the
    /// options say so.
    static func bound(_ value: AttributeValue, _ binding: Binding) -> AttributeValue {
        var value = value
        if binding.type == .decimal {
            switch value {
            case .integer(let i): value = .decimal(Decimal(i))
            case .double(let d): value = Decimal(shortestDigitsOf: d).map { .decimal($0) } ?? value
            default: break
            }
        }
        if !binding.options.isEmpty, let text = value.text {
            value = .string(PredicateText.fold(text, options: binding.options))
        }
        return value
    }

    /// The arguments of `LIMIT ? OFFSET ?`, when the query has a window.
    static func windowArguments(_ query: StoreQuery, _ dialect: SQLDialect = .sqlite) -> [AttributeValue] {
        guard query.limit != nil || query.offset > 0 else { return [] }
        let all: AttributeValue = dialect == .sqlite ? .integer(-1) : .null
        return [query.limit.map { .integer(Int64($0)) } ?? all, .integer(Int64(query.offset))]
    }

    func collated(_ sql: String, _ type: AttributeType?) -> String {
        type == .decimal && dialect == .sqlite ? "\(sql) COLLATE trove_decimal" : sql
    }

    private mutating func newAlias(_ prefix: String) -> String {
        aliasCount += 1
        return "\(prefix)\(aliasCount)"
    }
}
