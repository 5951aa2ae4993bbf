/// Checking comparisons of objects (Core Data's `whoTook == %@` with an object): a relationship
/// or `SELF` on one side, objects (or a list of them) on the other.
extension PredicateChecker {
    /// What one side of a comparison is, as far as objects go.
    private enum ObjectSide {
        /// A key path ending in a relationship, or `SELF`.
        case path(ResolvedKeyPath)
        /// One object.
        case object(ObjectID)
        /// A list whose items are all objects (or an empty list).
        case objects([ObjectID])
        /// Anything else.
        case other
    }

    /// The comparison checked as a comparison of objects, or `nil` when it compares no objects
    /// (a relationship with nil is an ordinary comparison).
    mutating func objectComparison(_ comparison: ObjectPredicate.Comparison, entity: Entity) throws(ObjectPredicateError) -> CheckedPredicate.ObjectComparison? {
        // Most comparisons have no object, no list of objects and no SELF: nothing to resolve twice.
        guard Self.mayCompareObjects(comparison.left) || Self.mayCompareObjects(comparison.right) else { return nil }
        let column = comparison.column
        var left = try side(comparison.left, entity: entity, column: column)
        var right = try side(comparison.right, entity: entity, column: column)
        var op = comparison.op
        switch (left, right) {
        case (.path, .path), (.other, .other), (.objects, .other), (.other, .objects), (.objects, .objects):
            return nil
        case (.path(let path), .other), (.other, .path(let path)):
            // A relationship with nil, or with something that is not an object: the ordinary
            // checks say what is wrong. SELF is an object and nothing else.
            guard path.isSelf else { return nil }
            let other = if case .path = left { comparison.right } else { comparison.left }
            guard case .value(.null) = other, op == .equal || op == .notEqual else { throw Self.selfMisused(path, column: column) }
            return try make(path, op, [], modifier: .direct, column: column)
        case (.object(let id), .other), (.other, .object(let id)), (.object(let id), .object), (.object(let id), .objects), (.objects, .object(let id)):
            throw ObjectPredicateError(
                .typeMismatch, "an object (\(id)) can only be compared with a relationship or SELF, such as whoTook == %@", column: column)
        case (.object, .path), (.objects, .path):
            // `%@ == whoTook`, `%@ IN tags`: the path on the left.
            swap(&left, &right)
            if op == .in { op = .contains }
        case (.path, .object), (.path, .objects):
            break
        }
        guard case .path(let path) = left else { return nil }
        let label = path.isSelf ? path.variable.map { "$" + $0 } ?? "SELF" : "relationship '\(path)'"
        guard comparison.options.isEmpty else {
            throw ObjectPredicateError(.typeMismatch, "\(op.rawValue)\(comparison.options.formatSuffix) compares strings, but \(label) holds objects", column: column)
        }
        var modifier = comparison.modifier
        let ids: [ObjectID]
        switch (op, right) {
        case (.equal, .object(let id)), (.notEqual, .object(let id)):
            ids = [id]
        case (.in, .objects(let list)):
            ids = list
        case (.in, .object(let id)):
            ids = [id]
        case (.contains, .object(let id)) where modifier == .direct && path.steps.last?.isToMany == true:
            // `tags CONTAINS %@` is `ANY tags == %@`.
            modifier = .any
            op = .equal
            ids = [id]
        case (.contains, _):
            throw ObjectPredicateError(.typeMismatch, "CONTAINS with an object needs a to-many relationship on the left (tags CONTAINS %@), not \(label)", column: column)
        case (.equal, .objects), (.notEqual, .objects):
            throw ObjectPredicateError(.typeMismatch, "\(label) is compared with a list of objects: write \(path) IN %@", column: column)
        default:
            throw ObjectPredicateError(.typeMismatch, "objects compare with ==, !=, IN and CONTAINS, not \(op.rawValue) (\(label))", column: column)
        }
        return try make(path, op, ids, modifier: modifier, column: column)
    }

    /// `SELF` (or `$x` alone) compared with something other than objects.
    static func selfMisused(_ path: some CustomStringConvertible, column: Int?) -> ObjectPredicateError {
        ObjectPredicateError(.typeMismatch, "\(path) can only be compared with objects (\(path) == %@, \(path) IN %@), or a key of it", column: column)
    }

    private func make(_ path: ResolvedKeyPath, _ op: ObjectPredicate.Operator, _ ids: [ObjectID], modifier: ObjectPredicate.Modifier,
                      column: Int?) throws(ObjectPredicateError) -> CheckedPredicate.ObjectComparison {
        switch (modifier, path.toManyStepIndex) {
        case (.direct, _?):
            throw ObjectPredicateError(.keyPath, "'\(path)' goes through a to-many relationship: write \(path) CONTAINS %@, or ANY \(path) IN %@", column: column)
        case (let modifier, nil) where modifier != .direct:
            throw ObjectPredicateError(.keyPath, "\(modifier.rawValue) needs a key path through a to-many relationship, not '\(path)'", column: column)
        default:
            break
        }
        let destinationName = path.steps.last?.relationship?.destination ?? path.entityName
        let destination = model.entity(named: destinationName)
        for id in ids where id.rootEntityName != destination?.rootName {
            throw ObjectPredicateError(
                .typeMismatch, "compares '\(path)' (objects of \(destinationName)) with \(id), an object of \(id.entityName)", column: column)
        }
        return CheckedPredicate.ObjectComparison(modifier: modifier, path: path, objects: Set(ids), isNegated: op == .notEqual)
    }

    /// Whether `expression` is what makes a comparison one of objects: an object, a list of
    /// objects only (or an empty list), or `SELF` (a key path without keys).
    private static func mayCompareObjects(_ expression: ObjectPredicate.Expression) -> Bool {
        switch expression {
        case .object: true
        case .list(let items): items.allSatisfy { if case .object = $0 { true } else { false } }
        case .keyPath(let path): path.keys.isEmpty
        default: false
        }
    }

    private func side(_ expression: ObjectPredicate.Expression, entity: Entity, column: Int?) throws(ObjectPredicateError) -> ObjectSide {
        switch expression {
        case .object(let id):
            return .object(id)
        case .list(let items):
            var ids: [ObjectID] = []
            for item in items {
                guard case .object(let id) = item else { return .other }
                ids.append(id)
            }
            return .objects(ids)
        case .keyPath(let path) where path.keys.isEmpty:
            var start = entity
            if let variable = path.variable {
                guard let bound = scope[variable] else {
                    throw ObjectPredicateError(.keyPath, "$\(variable) is not a SUBQUERY variable in reach", column: path.column)
                }
                start = bound
            }
            let resolved = ResolvedKeyPath(variable: path.variable, entityName: start.name, steps: [])
            return .path(resolved)
        case .keyPath(let path):
            let resolved = try resolve(path, from: entity)
            guard resolved.steps.last?.relationship != nil else { return .other }
            return .path(resolved)
        default:
            return .other
        }
    }
}
