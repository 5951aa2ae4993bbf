/// A predicate checked against an entity: every key path resolved, every constant typed as
/// the attribute it is compared with. What the in-memory evaluator
/// (``evaluate(with:)``) and the SQL compiler consume.
///
/// Obtain one with ``ObjectPredicate/checked(for:in:)``. Meaning, shared by both evaluators:
/// - `=` and `!=` are null-safe: `x = nil` is true when `x` is nil, `x != 3` is true when `x` is nil.
/// - Ordering operators, `BETWEEN`, string operators and `MATCHES` are false when either side
///   is nil. Logic is two-valued: `NOT (x > 3)` is true when `x` is nil (SQL must write
///   `NOT` as `(…) IS NOT TRUE`).
/// - Numbers compare by value across integer, double and decimal.
/// - `ANY` is false and `ALL` and `NONE` are true for an empty to-many.
/// - `@count` and `@sum` of nothing are 0; `@avg`, `@min`, `@max` of nothing are nil; nil
///   values are skipped by every aggregate but `@count` (which counts objects).
/// - Strings compare as ``PredicateText`` defines.
/// - Objects compare by ``ObjectID``: a relationship that holds no object is none of them.
///   An unsaved object (a temporary ID) is no stored row, so SQL finds nothing that refers to
///   it; a context's fetch evaluates its unsaved changes in memory, where the object is found.
public struct CheckedPredicate: Sendable, Hashable {
    /// The name of the entity the predicate was checked for (its sub-entities match too).
    public let entityName: String
    /// The checked tree.
    public let root: Node
    /// The predicate as written.
    public let predicate: ObjectPredicate

    /// A node of a checked predicate.
    public indirect enum Node: Sendable, Hashable {
        /// `TRUEPREDICATE` or `FALSEPREDICATE`.
        case constant(Bool)
        /// True when the operand is false (two-valued: nil comparisons are false, not unknown).
        case not(Node)
        /// True when every part is.
        case and([Node])
        /// True when some part is.
        case or([Node])
        /// A comparison of two operands.
        case comparison(Comparison)
        /// A comparison of objects: `whoTook == %@`, `SELF IN %@`, `ANY tags IN %@`.
        case objects(ObjectComparison)
    }

    /// Whether the object a key path reaches (or the evaluated object itself) is one of some
    /// objects: `whoTook == %@`, `whoTook != %@`, `SELF IN %@`, `tags CONTAINS %@` (that is
    /// `ANY tags == %@`), `ANY tags IN %@`.
    public struct ObjectComparison: Sendable, Hashable {
        /// ``ObjectPredicate/Modifier/direct`` for a path of to-one steps (or none); how the
        /// objects are quantified when the path has a to-many step.
        public var modifier: ObjectPredicate.Modifier
        /// To-one steps and at most one to-many step, ending in a relationship; no steps for
        /// `SELF` (or a `SUBQUERY` variable's element).
        public var path: ResolvedKeyPath
        /// The objects compared with.
        public var objects: Set<ObjectID>
        /// `!=`: true when the object is not among ``objects`` (also when there is none).
        public var isNegated: Bool
    }

    /// A checked comparison. A key path with a to-many step is only ever the left operand of
    /// a comparison whose ``modifier`` is not ``ObjectPredicate/Modifier/direct``.
    public struct Comparison: Sendable, Hashable {
        /// How the values of a to-many left key path are quantified.
        public var modifier: ObjectPredicate.Modifier
        /// The left operand; the only one that may go through a to-many relationship.
        public var left: Operand
        /// The operator.
        public var op: ObjectPredicate.Operator
        /// `[c]` and `[d]`; only ever set when both operands are strings.
        public var options: StringOptions
        /// For `IN` a ``Operand/list(_:)``; for `BETWEEN` a list of exactly two values.
        public var right: Operand
    }

    /// A checked operand.
    public indirect enum Operand: Sendable, Hashable {
        /// A constant, of the type of the key it is compared with (numbers may stay of another
        /// numeric kind: `views > 2.5` keeps `2.5` as a double).
        case value(AttributeValue)
        /// The right side of `IN` or `BETWEEN`.
        case list([AttributeValue])
        /// A key path ending in an attribute, or in a to-one relationship compared with nil.
        case keyPath(ResolvedKeyPath)
        /// A function over a collection; `key` (to-one steps then an attribute) is read from
        /// each element, and is `nil` for `@count`.
        case aggregate(ObjectPredicate.Aggregate, of: Collection, key: ResolvedKeyPath?)
    }

    /// The elements an aggregate runs over.
    public indirect enum Collection: Sendable, Hashable {
        /// A key path whose last step is to-many (earlier steps are to-one).
        case keyPath(ResolvedKeyPath)
        /// The elements of a to-many key path that match a predicate.
        case subquery(Subquery)
    }

    /// `SUBQUERY(collection, $variable, predicate)`, checked.
    public struct Subquery: Sendable, Hashable {
        /// The to-many key path (its last step is to-many).
        public var collection: ResolvedKeyPath
        /// The name each element is bound to, without `$`.
        public var variable: String
        /// The entity of the elements.
        public var elementEntityName: String
        /// The condition on each element; key paths starting at ``variable`` read the element,
        /// others read the outer object.
        public var predicate: Node
    }
}

/// A key path resolved against the model: each step an attribute or relationship, with its
/// position in the entity it belongs to.
public struct ResolvedKeyPath: Sendable, Hashable, CustomStringConvertible {
    /// One key of the path.
    public struct Step: Sendable, Hashable {
        /// What the key names.
        public enum Kind: Sendable, Hashable {
            /// An attribute: always the last step.
            case attribute(Attribute)
            /// A to-one relationship.
            case toOne(Relationship)
            /// A to-many relationship: at most one per path.
            case toMany(Relationship)
        }

        /// What the key names.
        public let kind: Kind
        /// The key as a ``PredicateSubject`` is asked for it.
        public let key: PredicateKey
        /// The entity the key belongs to.
        public let entityName: String

        /// The attribute, when this step names one.
        public var attribute: Attribute? {
            if case .attribute(let a) = kind { return a }
            return nil
        }

        /// The relationship, when this step names one.
        public var relationship: Relationship? {
            switch kind {
            case .attribute: nil
            case .toOne(let r), .toMany(let r): r
            }
        }

        /// Whether this step is a to-many relationship.
        public var isToMany: Bool {
            if case .toMany = kind { return true }
            return false
        }

        /// Hashes the key and its entity only: steps that differ elsewhere (a whole attribute
        /// or relationship) are rare and still told apart by `==`, while hashing every field of
        /// the attribute made each lookup of a cached statement cost microseconds.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(key)
            hasher.combine(entityName)
        }
    }

    /// The `SUBQUERY` variable the path starts from, or `nil` for the evaluated object.
    public let variable: String?
    /// The entity the path starts from.
    public let entityName: String
    /// The steps, in order; empty only for `SELF` in an ``CheckedPredicate/ObjectComparison``.
    public let steps: [Step]

    /// The attribute the path ends in, if it does.
    public var attribute: Attribute? { steps.last?.attribute }

    /// Whether the path has no steps: `SELF`, or a `SUBQUERY` variable's element (only in an
    /// ``CheckedPredicate/ObjectComparison``).
    public var isSelf: Bool { steps.isEmpty }

    /// The position of the to-many step, if there is one.
    public var toManyStepIndex: Int? { steps.firstIndex(where: \.isToMany) }

    /// The dotted path, with `$variable.` in front when it has one; `SELF` for no steps.
    public var description: String {
        if steps.isEmpty, variable == nil { return "SELF" }
        return ((variable.map { ["$" + $0] } ?? []) + steps.map(\.key.name)).joined(separator: ".")
    }
}

/// A key of an entity as a ``PredicateSubject`` is asked for it: its name and its position.
public struct PredicateKey: Sendable, Hashable {
    /// The attribute's or relationship's name.
    public let name: String
    /// The position in ``Entity/attributes`` (for an attribute) or ``Entity/relationships`` (for
    /// a relationship) of the entity the key belongs to; the same in its sub-entities, whose
    /// resolved lists start with the parent's.
    public let index: Int
    /// Whether the key names a relationship.
    public let isRelationship: Bool

    /// A key; checking creates these, so callers rarely need to.
    public init(name: String, index: Int, isRelationship: Bool) {
        self.name = name
        self.index = index
        self.isRelationship = isRelationship
    }
}
