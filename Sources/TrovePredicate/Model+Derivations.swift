extension Model {
    /// The operand a derived attribute of `entity` is computed as — a key path through to-one
    /// relationships, or an aggregate over a to-many one — checked as a predicate's operand, for
    /// a store to compile into the statements that read the entity's objects.
    /// - Throws: ``ObjectPredicateError`` when the attribute is not derived or its derivation does
    ///   not resolve (a model that loaded has none such).
    package func derivedOperand(of attribute: Attribute, in entity: Entity) throws(ObjectPredicateError) -> CheckedPredicate.Operand {
        guard let derivation = attribute.derivation else {
            throw ObjectPredicateError(.keyPath, "attribute '\(attribute.name)' of \(entity.name) is not derived")
        }
        let keys = derivation.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let expression: ObjectPredicate.Expression
        if let f = keys.firstIndex(where: { $0.hasPrefix("@") }) {
            guard let function = ObjectPredicate.Aggregate(rawValue: keys[f]) else {
                throw ObjectPredicateError(.keyPath, "derivation '\(derivation)' of \(entity.name).\(attribute.name) uses an unknown function")
            }
            expression = .aggregate(function, of: .keyPath(ObjectPredicate.KeyPath(Array(keys[..<f]))), key: Array(keys[(f + 1)...]))
        } else {
            expression = .keyPath(ObjectPredicate.KeyPath(keys))
        }
        var checker = PredicateChecker(model: self)
        return try checker.typed(expression, entity: entity, column: nil).operand
    }
}
