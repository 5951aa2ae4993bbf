/// One piece of a predicate's shape, flattened for hashing: a name, or a code (an operator, a
/// flag, a count, a marker of the tree's structure, a constant's kind).
package enum ShapeToken: Hashable, Sendable {
    case name(String)
    case code(Int)
}

/// A shape as a key: flat tokens that hash and compare in a fraction of the time a tree does.
///
/// Shapes let a caller that runs predicates of few shapes many times — `id == %@` with one id,
/// then another — check or compile each shape once.
package struct ShapeKey: Hashable, Sendable {
    package var tokens: [ShapeToken] = []

    package init() {}

    /// Hashes each token's payload directly (hashing the array of enums went through a protocol
    /// witness per token: a thousand instructions for a dozen tokens).
    package func hash(into hasher: inout Hasher) {
        hasher.combine(tokens.count)
        for token in tokens {
            switch token {
            case .name(let name): hasher.combine(name)
            case .code(let code): hasher.combine(code)
            }
        }
    }

    /// Appends a name.
    package mutating func name(_ name: String) { tokens.append(.name(name)) }
    /// Appends a code.
    package mutating func code(_ code: Int) { tokens.append(.code(code)) }

    // The tree's nodes and operands, the same for checked and unchecked predicates: a node or
    // operand starts with a code that says what it is.

    /// Appends a comparison's head (its operands follow).
    package mutating func comparison(_ modifier: ObjectPredicate.Modifier, _ op: ObjectPredicate.Operator, _ options: StringOptions) {
        code(5)
        name(modifier.rawValue)
        name(op.rawValue)
        code(Int(options.rawValue))
    }

    /// Appends a TRUEPREDICATE or FALSEPREDICATE.
    package mutating func constant(_ value: Bool) { code(value ? 1 : 0) }

    /// Appends a NOT's head (its operand follows).
    package mutating func not() { code(2) }

    /// Appends the head of an AND (or an OR) of `count` parts (the parts follow).
    package mutating func group(isAnd: Bool, count: Int) {
        code(isAnd ? 3 : 4)
        code(count)
    }

    /// Appends a list of `elements`, each of the kind (99 and up) `kind` gives: the head, then
    /// that kind once when every element has it (the usual `IN %@` list, so that a list of 100
    /// ids hashes and compares as four tokens), else a kind per element.
    package mutating func list<C: Collection>(_ elements: C, kind: (C.Element) -> Int) {
        code(20)
        code(elements.count)
        guard let first = elements.first.map(kind) else { return }
        if elements.allSatisfy({ kind($0) == first }) {
            code(22)
            code(first)
        } else {
            for element in elements { code(kind(element)) }
        }
    }

    /// Appends a key path's head: where it starts and how many keys it has (a name per key follows).
    package mutating func keyPath(from start: String, count: Int) {
        code(21)
        name(start)
        code(count)
    }
}

extension ObjectPredicate {
    /// The predicate's shape — its tree with each constant reduced to its kind — and its
    /// constants, in order (left operand before right, parts in order, list elements in order);
    /// `nil` for a predicate with objects, variables, aggregates or subqueries, which are
    /// checked every time.
    package func shape() -> (key: ShapeKey, constants: [AttributeValue])? {
        var key = ShapeKey()
        // Room for a few comparisons: growing the arrays one append at a time took a tenth of
        // a fetch by unique key.
        key.tokens.reserveCapacity(32)
        var constants: [AttributeValue] = []
        constants.reserveCapacity(4)
        guard Self.flatten(root, into: &key, constants: &constants) else { return nil }
        return (key, constants)
    }

    private static func flatten(_ node: Node, into key: inout ShapeKey, constants: inout [AttributeValue]) -> Bool {
        switch node {
        case .constant(let value):
            key.constant(value)
            return true
        case .not(let operand):
            key.not()
            return flatten(operand, into: &key, constants: &constants)
        case .and(let parts), .or(let parts):
            key.group(isAnd: node.isAnd, count: parts.count)
            return parts.allSatisfy { flatten($0, into: &key, constants: &constants) }
        case .comparison(let comparison):
            key.comparison(comparison.modifier, comparison.op, comparison.options)
            return flatten(comparison.left, into: &key, constants: &constants)
                && flatten(comparison.right, into: &key, constants: &constants)
        }
    }

    private static func flatten(_ expression: Expression, into key: inout ShapeKey, constants: inout [AttributeValue]) -> Bool {
        switch expression {
        case .value(let value):
            constants.append(value)
            key.code(value.kindCode)
        case .list(let items):
            let start = constants.count
            constants.reserveCapacity(start + items.count)
            for item in items {
                guard case .value(let value) = item else { return false }
                constants.append(value)
            }
            key.list(constants[start...]) { $0.kindCode }
        case .keyPath(let path):
            guard path.variable == nil else { return false }
            key.keyPath(from: "", count: path.keys.count)
            for name in path.keys { key.name(name) }
        case .object, .variable, .aggregate, .subquery:
            return false
        }
        return true
    }
}

extension CheckedPredicate {
    /// This predicate checked with other constants: `predicate`, of the same ``ObjectPredicate/shape()``
    /// as the predicate this one was checked from, whose constants are `constants`, each coerced
    /// to the type of the key it is compared with as checking does. `nil` when a constant does
    /// not coerce or is not a valid regular expression for `MATCHES`: check `predicate` itself
    /// for the error.
    package func replacingConstants(_ constants: [AttributeValue], of predicate: ObjectPredicate) -> CheckedPredicate? {
        var next = 0
        guard let root = Self.replacing(root, with: constants, next: &next), next == constants.count else { return nil }
        return CheckedPredicate(entityName: entityName, root: root, predicate: predicate)
    }

    private static func replacing(_ node: Node, with constants: [AttributeValue], next: inout Int) -> Node? {
        switch node {
        case .constant:
            return node
        case .not(let operand):
            return replacing(operand, with: constants, next: &next).map { .not($0) }
        case .and(let parts), .or(let parts):
            var replaced: [Node] = []
            replaced.reserveCapacity(parts.count)
            for part in parts {
                guard let new = replacing(part, with: constants, next: &next) else { return nil }
                replaced.append(new)
            }
            if case .and = node { return .and(replaced) }
            return .or(replaced)
        case .comparison(var comparison):
            // A constant takes the type of the key on the other side; a constant facing a
            // constant stays as it is (as the checker does).
            let leftType = comparison.right.keyType, rightType = comparison.left.keyType
            guard let left = replacing(comparison.left, type: leftType, with: constants, next: &next),
                  let right = replacing(comparison.right, type: rightType, with: constants, next: &next) else { return nil }
            if comparison.op == .matches, case .value(.string(let pattern)) = right, RegexMatcher.problem(with: pattern) != nil {
                return nil
            }
            comparison.left = left
            comparison.right = right
            return .comparison(comparison)
        case .objects:
            return nil
        }
    }

    private static func replacing(_ operand: Operand, type: AttributeType?, with constants: [AttributeValue], next: inout Int) -> Operand? {
        func take() -> AttributeValue? {
            guard next < constants.count else { return nil }
            defer { next += 1 }
            guard let type else { return constants[next] }
            return PredicateChecker.coerce(constants[next], to: type)
        }
        switch operand {
        case .value:
            return take().map(Operand.value)
        case .list(let values):
            var replaced: [AttributeValue] = []
            replaced.reserveCapacity(values.count)
            for _ in values {
                guard let value = take() else { return nil }
                replaced.append(value)
            }
            return .list(replaced)
        case .keyPath:
            return operand
        case .aggregate:
            return nil
        }
    }
}

extension CheckedPredicate.Operand {
    /// The attribute type of a key path ending in an attribute; `nil` otherwise.
    fileprivate var keyType: AttributeType? {
        if case .keyPath(let path) = self { return path.attribute?.type }
        return nil
    }
}

extension AttributeValue {
    /// A number for the value's case, 100 and up (what checking reads of a constant before
    /// coercing it).
    package var kindCode: Int {
        switch self {
        case .null: 100
        case .string: 101
        case .integer: 102
        case .double: 103
        case .decimal: 104
        case .boolean: 105
        case .date: 106
        case .binary: 107
        case .uuid: 108
        case .uri: 109
        case .character: 110
        case .json: 111
        }
    }
}

extension ObjectPredicate.Node {
    fileprivate var isAnd: Bool {
        if case .and = self { return true }
        return false
    }
}
