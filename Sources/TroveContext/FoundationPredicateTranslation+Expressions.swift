import Foundation
import TroveModel
import TrovePredicate

// The `PredicateExpressions` types of the supported subset (see `ObjectPredicate.init(_:)`),
// each translated into predicate tree parts.

// MARK: Leaves

extension PredicateExpressions.Variable: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        try translation.variable(key)
    }
}

extension PredicateExpressions.Value: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        try translation.constant(value)
    }
}

extension PredicateExpressions.NilLiteral: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        .operand(.value(.null))
    }
}

extension PredicateExpressions.KeyPath: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        try translation.keyPath(
            root: root, keyPath, isCount: kind == .collectionCount, isEmpty: kind == .collectionIsEmpty,
            isFirstOrLast: kind == .collectionFirst || kind == .bidirectionalCollectionLast)
    }
}

// MARK: Comparisons

extension PredicateExpressions.Equal: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        .condition(try translation.compare(translation.part(of: lhs), .equal, translation.part(of: rhs)))
    }
}

extension PredicateExpressions.NotEqual: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        .condition(try translation.compare(translation.part(of: lhs), .notEqual, translation.part(of: rhs)))
    }
}

extension PredicateExpressions.Comparison: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        let mapped: ObjectPredicate.Operator = switch op {
        case .lessThan: .less
        case .lessThanOrEqual: .lessOrEqual
        case .greaterThan: .greater
        case .greaterThanOrEqual: .greaterOrEqual
        }
        return .condition(try translation.compare(translation.part(of: lhs), mapped, translation.part(of: rhs)))
    }
}

// MARK: Logic

extension PredicateExpressions.Conjunction: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        let left = try translation.condition(translation.part(of: lhs))
        let right = try translation.condition(translation.part(of: rhs))
        return .condition(PredicateTranslation.and([left, right]))
    }
}

extension PredicateExpressions.Disjunction: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        let left = try translation.condition(translation.part(of: lhs))
        let right = try translation.condition(translation.part(of: rhs))
        return .condition(PredicateTranslation.or([left, right]))
    }
}

extension PredicateExpressions.Negation: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        .condition(.not(try translation.condition(translation.part(of: wrapped))))
    }
}

// MARK: Optionals

extension PredicateExpressions.OptionalFlatMap: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        let path = try translation.keyPath(of: wrapped)
        translation.bind(variable.key, to: path)
        let isNil = PredicateTranslation.isNil(.keyPath(path), true)
        switch try translation.part(of: transform) {
        case .operand(let expression) where expression.isKeyPathOrAggregate:
            // Key paths through a nil read as nil: `$0.whoTook?.name` is `whoTook.name`.
            return .operand(expression)
        case .condition(let node):
            return .optionalCondition(node, isNil: isNil)
        case .optionalCondition(let node, let innerNil):
            return .optionalCondition(node, isNil: PredicateTranslation.or([isNil, innerNil]))
        case let other:
            throw PredicateTranslation.unsupported(self, "its closure gives \(other): compare inside the closure, or use a key path")
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        try translation.part(of: inner)
    }
}

extension PredicateExpressions.NilCoalesce: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        let fallback = try translation.part(of: rhs)
        switch try translation.part(of: lhs) {
        case .operand(let expression):
            return .coalesced(expression, fallback: fallback)
        case .optionalCondition(let node, let isNil):
            let otherwise = try translation.condition(fallback)
            return .condition(PredicateTranslation.or([
                PredicateTranslation.and([isNil, otherwise]), PredicateTranslation.and([.not(isNil), node]),
            ]))
        case let other:
            throw PredicateTranslation.unsupported(self, "?? after \(other)")
        }
    }
}

extension ObjectPredicate.Expression {
    fileprivate var isKeyPathOrAggregate: Bool {
        switch self {
        case .keyPath, .aggregate: true
        default: false
        }
    }
}

// MARK: Strings and collections

extension PredicateExpressions.CollectionContainsCollection: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        .condition(try translation.compare(translation.part(of: base), .contains, translation.part(of: other)))
    }
}

extension PredicateExpressions.SequenceStartsWith: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        .condition(try translation.compare(translation.part(of: base), .beginsWith, translation.part(of: prefix)))
    }
}

extension PredicateExpressions.SequenceContains: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        let collection = try translation.part(of: sequence)
        let item = try translation.part(of: element)
        // A constant collection holding the value is IN; a key path holding it (a to-many
        // relationship and an object, a string and a character) is CONTAINS.
        if case .operand(.list) = collection {
            return .condition(try translation.compare(item, .in, collection))
        }
        return .condition(try translation.compare(collection, .contains, item))
    }
}

extension PredicateExpressions.SequenceContainsWhere: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        let collection = try translation.keyPath(of: sequence)
        let name = translation.bindElement(variable.key)
        let condition = try translation.condition(translation.part(of: self.test))
        let count = ObjectPredicate.Expression.aggregate(.count, of: .subquery(collection: collection, variable: name, predicate: condition), key: [])
        return .condition(.comparison(.init(count, .greater, .value(.integer(0)))))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        let collection = try translation.keyPath(of: sequence)
        let name = translation.bindElement(variable.key)
        let condition = try translation.condition(translation.part(of: self.test))
        let count = ObjectPredicate.Expression.aggregate(.count, of: .subquery(collection: collection, variable: name, predicate: .not(condition)), key: [])
        return .condition(.comparison(.init(count, .equal, .value(.integer(0)))))
    }
}

extension PredicateExpressions.Filter: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        let collection = try translation.keyPath(of: sequence)
        let name = translation.bindElement(variable.key)
        let condition = try translation.condition(translation.part(of: filter))
        return .operand(.subquery(collection: collection, variable: name, predicate: condition))
    }
}

// MARK: Ranges

extension PredicateExpressions.ClosedRange: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        guard case .operand(let low) = try translation.part(of: lower), case .operand(let high) = try translation.part(of: upper) else {
            throw PredicateTranslation.unsupported(self, "its bounds must be values")
        }
        return .range(lower: low, upper: high, closed: true)
    }
}

extension PredicateExpressions.Range: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        guard case .operand(let low) = try translation.part(of: lower), case .operand(let high) = try translation.part(of: upper) else {
            throw PredicateTranslation.unsupported(self, "its bounds must be values")
        }
        return .range(lower: low, upper: high, closed: false)
    }
}

extension PredicateExpressions.RangeExpressionContains: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        let item = try translation.part(of: element)
        guard case .range(let low, let high, let closed) = try translation.part(of: range) else {
            throw PredicateTranslation.unsupported(range, "write the range in the predicate, as (1...10).contains($0.views)")
        }
        if closed {
            return .condition(try translation.compare(item, .between, .operand(.list([low, high]))))
        }
        return .condition(PredicateTranslation.and([
            try translation.compare(item, .greaterOrEqual, .operand(low)), try translation.compare(item, .less, .operand(high)),
        ]))
    }
}

// MARK: Arithmetic on constants

extension PredicateExpressions.UnaryMinus: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        guard case .operand(.value(let value)) = try translation.part(of: wrapped),
              let result = ConstantArithmetic.negate(value) else {
            throw PredicateTranslation.unsupported(self, "only a number constant can be negated")
        }
        return .operand(.value(result))
    }
}

extension PredicateExpressions.Arithmetic: TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part {
        guard case .operand(.value(let a)) = try translation.part(of: lhs), case .operand(.value(let b)) = try translation.part(of: rhs) else {
            throw PredicateTranslation.unsupported(self, "arithmetic on key paths: only constants can be added, subtracted or multiplied")
        }
        let result: AttributeValue? = switch op {
        case .add: ConstantArithmetic.apply(a, b, integer: { $0.addingReportingOverflow($1) }, double: +, decimal: +)
        case .subtract: ConstantArithmetic.apply(a, b, integer: { $0.subtractingReportingOverflow($1) }, double: -, decimal: -)
        case .multiply: ConstantArithmetic.apply(a, b, integer: { $0.multipliedReportingOverflow(by: $1) }, double: *, decimal: *)
        }
        guard let result else {
            throw ObjectPredicateError(.unsupported, "a typed predicate computes \(a) \(op) \(b), which overflows or mixes kinds of numbers")
        }
        return .operand(.value(result))
    }
}

/// Arithmetic on the constants of a typed predicate, which never traps.
private enum ConstantArithmetic {
    static func negate(_ value: AttributeValue) -> AttributeValue? {
        switch value {
        case .integer(let i): i == .min ? nil : .integer(-i)
        case .double(let d): .double(-d)
        case .decimal(let d): .decimal(-d)
        default: nil
        }
    }

    static func apply(_ a: AttributeValue, _ b: AttributeValue, integer: (Int64, Int64) -> (partialValue: Int64, overflow: Bool),
                      double: (Double, Double) -> Double, decimal: (Decimal, Decimal) -> Decimal) -> AttributeValue? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            let (result, overflow) = integer(x, y)
            return overflow ? nil : .integer(result)
        case (.double(let x), .double(let y)): return .double(double(x, y))
        case (.decimal(let x), .decimal(let y)): return .decimal(decimal(x, y))
        default: return nil
        }
    }
}
