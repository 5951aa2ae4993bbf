import Foundation

extension CheckedPredicate {
    /// Whether `subject` (an object of ``entityName`` or a sub-entity) matches, with the meaning
    /// stated on ``CheckedPredicate``.
    /// - Throws: ``ObjectPredicateError/Code/regexGaveUp`` when a `MATCHES` cannot be decided
    ///   (the regular-expression engine gave up on the value).
    public func evaluate(with subject: some PredicateSubject) throws(ObjectPredicateError) -> Bool {
        try PredicateEvaluator(bindings: []).matches(root, subject)
    }
}

/// Evaluates a checked tree over ``PredicateSubject``s; `bindings` are the `SUBQUERY`
/// elements in reach, innermost last.
struct PredicateEvaluator {
    var bindings: [(name: String, subject: any PredicateSubject)]

    func matches(_ node: CheckedPredicate.Node, _ subject: any PredicateSubject) throws(ObjectPredicateError) -> Bool {
        switch node {
        case .constant(let value):
            return value
        case .not(let operand):
            return try !matches(operand, subject)
        case .and(let parts):
            for part in parts where try !matches(part, subject) { return false }
            return true
        case .or(let parts):
            for part in parts where try matches(part, subject) { return true }
            return false
        case .comparison(let comparison):
            return try matches(comparison, subject)
        case .objects(let comparison):
            return matches(comparison, subject)
        }
    }

    private func matches(_ comparison: CheckedPredicate.ObjectComparison, _ subject: any PredicateSubject) -> Bool {
        func test(_ object: (any PredicateSubject)?) -> Bool {
            (object.map { comparison.objects.contains($0.objectID) } ?? false) != comparison.isNegated
        }
        let path = comparison.path
        guard comparison.modifier != .direct, let split = path.toManyStepIndex else {
            return test(object(along: path.steps[...], from: start(of: path, subject)))
        }
        let elements = objects(along: path.steps[...split], from: start(of: path, subject))
        let reached = elements.lazy.map { object(along: path.steps[(split + 1)...], from: $0) }
        switch comparison.modifier {
        case .any: return reached.contains(where: test)
        case .all: return reached.allSatisfy(test)
        case .none, .direct: return !reached.contains(where: test)
        }
    }

    private func matches(_ comparison: CheckedPredicate.Comparison, _ subject: any PredicateSubject) throws(ObjectPredicateError) -> Bool {
        let right = try operand(comparison.right, subject)
        func test(_ left: AttributeValue) throws(ObjectPredicateError) -> Bool {
            try Self.compare(left, comparison.op, right, options: comparison.options)
        }
        guard comparison.modifier != .direct, case .keyPath(let path) = comparison.left else {
            return try test(try value(of: comparison.left, subject))
        }
        let values = manyValues(of: path, subject)
        // ANY: one value passes; ALL: no value fails; NONE: no value passes.
        let wanted = comparison.modifier != .all
        for value in values where try test(value) == wanted {
            return comparison.modifier == .any
        }
        return comparison.modifier != .any
    }

    // MARK: Operands

    /// A right operand: one value, or the values of a list.
    private enum Evaluated {
        case one(AttributeValue)
        case list([AttributeValue])
    }

    private func operand(_ operand: CheckedPredicate.Operand, _ subject: any PredicateSubject) throws(ObjectPredicateError) -> Evaluated {
        if case .list(let values) = operand { return .list(values) }
        return .one(try value(of: operand, subject))
    }

    private func value(of operand: CheckedPredicate.Operand, _ subject: any PredicateSubject) throws(ObjectPredicateError) -> AttributeValue {
        switch operand {
        case .value(let value): value
        case .list: .null
        case .keyPath(let path): value(of: path, subject)
        case .aggregate(let function, let collection, let key): aggregate(function, try elements(of: collection, subject), key: key)
        }
    }

    /// The value at the end of a path without to-many steps; an object present at the end of a
    /// to-one path reads as `true` (only ever compared with nil).
    func value(of path: ResolvedKeyPath, _ subject: any PredicateSubject) -> AttributeValue {
        guard var current = start(of: path, subject) else { return .null }
        for step in path.steps {
            switch (step.kind, current.predicateValue(for: step.key)) {
            case (.attribute, .value(let value)):
                return value
            case (.toOne, .object(let object?)):
                current = object
            default:
                return .null
            }
        }
        return .boolean(true)
    }

    /// Every value at the end of a path with one to-many step (nil for a missing to-one).
    private func manyValues(of path: ResolvedKeyPath, _ subject: any PredicateSubject) -> [AttributeValue] {
        guard let split = path.toManyStepIndex else { return [value(of: path, subject)] }
        let elements = objects(along: path.steps[...split], from: start(of: path, subject))
        let rest = ResolvedKeyPath(variable: nil, entityName: "", steps: Array(path.steps[(split + 1)...]))
        return elements.map { value(of: rest, $0) }
    }

    private func start(of path: ResolvedKeyPath, _ subject: any PredicateSubject) -> (any PredicateSubject)? {
        guard let variable = path.variable else { return subject }
        return bindings.last { $0.name == variable }?.subject
    }

    /// The object reached by to-one steps (`start` itself for none); `nil` past a missing one.
    private func object(along steps: ArraySlice<ResolvedKeyPath.Step>, from start: (any PredicateSubject)?) -> (any PredicateSubject)? {
        var current = start
        for step in steps {
            guard let object = current, case .object(let next) = object.predicateValue(for: step.key) else { return nil }
            current = next
        }
        return current
    }

    /// The objects reached by to-one steps then a final to-many step.
    private func objects(along steps: ArraySlice<ResolvedKeyPath.Step>, from start: (any PredicateSubject)?) -> [any PredicateSubject] {
        guard var current = start else { return [] }
        for step in steps {
            switch current.predicateValue(for: step.key) {
            case .object(let object?) where !step.isToMany: current = object
            case .objects(let objects) where step.isToMany: return objects
            default: return []
            }
        }
        return []
    }

    // MARK: Aggregates

    private func elements(of collection: CheckedPredicate.Collection, _ subject: any PredicateSubject) throws(ObjectPredicateError) -> [any PredicateSubject] {
        switch collection {
        case .keyPath(let path):
            return objects(along: path.steps[...], from: start(of: path, subject))
        case .subquery(let subquery):
            var inner = self
            var kept: [any PredicateSubject] = []
            for element in objects(along: subquery.collection.steps[...], from: start(of: subquery.collection, subject)) {
                inner.bindings = bindings + [(subquery.variable, element)]
                if try inner.matches(subquery.predicate, subject) { kept.append(element) }
            }
            return kept
        }
    }

    func aggregate(_ function: ObjectPredicate.Aggregate, _ elements: [any PredicateSubject], key: ResolvedKeyPath?) -> AttributeValue {
        guard function != .count, let key else { return .integer(Int64(elements.count)) }
        let values = elements.map { value(of: key, $0) }.filter { !$0.isNull }
        switch function {
        case .count:
            return .integer(Int64(elements.count))
        case .min, .max:
            let wanted: ComparisonResult = function == .min ? .orderedAscending : .orderedDescending
            return values.reduce(AttributeValue.null) { best, next in
                best.isNull || PredicateValueOrder.order(next, best, options: []) == wanted ? next : best
            }
        case .sum, .avg:
            var accumulator = PredicateAccumulator(function, of: key.attribute?.type)
            for value in values { accumulator.add(value) }
            return accumulator.result
        }
    }

    // MARK: Comparing

    private static func compare(_ left: AttributeValue, _ op: ObjectPredicate.Operator, _ right: Evaluated, options: StringOptions) throws(ObjectPredicateError) -> Bool {
        switch (op, right) {
        case (.in, .list(let values)):
            return values.contains { PredicateValueOrder.equal(left, $0, options: options) }
        case (.between, .list(let bounds)):
            guard bounds.count == 2,
                  let low = PredicateValueOrder.order(left, bounds[0], options: options),
                  let high = PredicateValueOrder.order(left, bounds[1], options: options) else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case (_, .list):
            return false
        case (.equal, .one(let value)):
            return PredicateValueOrder.equal(left, value, options: options)
        case (.notEqual, .one(let value)):
            return !PredicateValueOrder.equal(left, value, options: options)
        case (.less, .one(let value)), (.lessOrEqual, .one(let value)), (.greater, .one(let value)), (.greaterOrEqual, .one(let value)):
            guard let order = PredicateValueOrder.order(left, value, options: options) else { return false }
            switch op {
            case .less: return order == .orderedAscending
            case .lessOrEqual: return order != .orderedDescending
            case .greater: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        case (_, .one(let value)):
            guard let text = left.text, let operand = value.text else { return false }
            switch op {
            case .contains: return PredicateText.contains(text, operand, options: options)
            case .beginsWith: return PredicateText.hasPrefix(text, operand, options: options)
            case .endsWith: return PredicateText.hasSuffix(text, operand, options: options)
            case .like: return PredicateText.like(text, pattern: operand, options: options)
            case .matches: return try PredicateText.matches(text, regex: operand, options: options)
            default: return false
            }
        }
    }
}
