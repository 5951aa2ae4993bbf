/// A condition on objects, written in Apple's predicate language and parsed into a tree.
///
/// ```swift
/// let recent = try ObjectPredicate(format: "whoTook.name = %@ AND views > %d", "Ada", 10)
/// let checked = try recent.checked(for: photo, in: model)
/// let matches = checked.evaluate(with: somePhoto)
/// ```
/// Format arguments (`%@`, `%K`, …) are bound while parsing; `$NAME` variables are bound later
/// with ``substituting(_:)``. A predicate means nothing until it is checked against an entity
/// (``checked(for:in:)``): checking resolves key paths, types constants and reports errors; the
/// result is what the in-memory evaluator and the SQL compiler consume.
///
/// Two predicates are equal when their trees are equal; the text they were parsed from and the
/// columns of their parts are kept only to point at errors.
///
/// Foundation's typed `#Predicate` is translated into this same tree (see the fetch methods
/// that take one), so both forms compile to the same SQL and evaluate alike in memory.
public struct ObjectPredicate: Sendable, Hashable {
    /// The tree of the condition.
    public var root: Node
    /// The text this predicate was parsed from, if any; used to draw carets under errors.
    public var format: String?

    package init(root: Node, format: String?) {
        self.root = root
        self.format = format
    }

    public static func == (lhs: ObjectPredicate, rhs: ObjectPredicate) -> Bool { lhs.root == rhs.root }
    public func hash(into hasher: inout Hasher) { hasher.combine(root) }

    // MARK: Tree

    /// A node of a predicate: a constant, a combination of predicates, or a comparison.
    public indirect enum Node: Sendable, Hashable {
        /// `TRUEPREDICATE` or `FALSEPREDICATE`.
        case constant(Bool)
        /// `NOT p`.
        case not(Node)
        /// `p AND q AND …` (two or more, flattened).
        case and([Node])
        /// `p OR q OR …` (two or more, flattened).
        case or([Node])
        /// `left op right`, with an optional `ANY`/`ALL`/`NONE` modifier.
        case comparison(Comparison)
    }

    /// A comparison such as `ANY photos.title CONTAINS[c] "sun"`.
    public struct Comparison: Sendable, Hashable {
        /// How a to-many left key path is quantified; ``Modifier/direct`` for a single value.
        public var modifier: Modifier
        /// The left operand.
        public var left: Expression
        /// The operator.
        public var op: Operator
        /// `[c]`, `[d]`, `[cd]` after the operator.
        public var options: StringOptions
        /// The right operand.
        public var right: Expression
        /// The 1-based column of the operator in ``source``; not part of equality.
        public var column: Int?
        /// The text the comparison was parsed from (the whole format it is part of), so that an
        /// error in it shows that text, also inside a predicate combined with
        /// ``ObjectPredicate/and(_:)``; not part of equality.
        public var source: String?

        /// A comparison; `column` and `source` only locate errors.
        public init(
            _ left: Expression, _ op: Operator, _ right: Expression, modifier: Modifier = .direct,
            options: StringOptions = [], column: Int? = nil, source: String? = nil
        ) {
            self.modifier = modifier
            self.left = left
            self.op = op
            self.options = options
            self.right = right
            self.column = column
            self.source = source
        }

        public static func == (lhs: Comparison, rhs: Comparison) -> Bool {
            lhs.modifier == rhs.modifier && lhs.left == rhs.left && lhs.op == rhs.op
                && lhs.options == rhs.options && lhs.right == rhs.right
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(modifier)
            hasher.combine(left)
            hasher.combine(op)
            hasher.combine(options)
            hasher.combine(right)
        }
    }

    /// How a comparison treats a left key path that reaches many values.
    public enum Modifier: String, Sendable, Hashable, CaseIterable {
        /// The left operand is one value.
        case direct = ""
        /// True when some value matches (`ANY`, also spelled `SOME`); false for none.
        case any = "ANY"
        /// True when every value matches, and for none (`ALL`).
        case all = "ALL"
        /// True when no value matches, and for none (`NONE`, that is `NOT ANY`).
        case none = "NONE"
    }

    /// A comparison operator, named as the canonical format spells it.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        /// `=` or `==`: equal; nil equals nil only.
        case equal = "=="
        /// `!=` or `<>`: not equal; nil differs from every value.
        case notEqual = "!="
        /// `<`: false when either side is nil.
        case less = "<"
        /// `<=` or `=<`.
        case lessOrEqual = "<="
        /// `>`.
        case greater = ">"
        /// `>=` or `=>`.
        case greaterOrEqual = ">="
        /// `x BETWEEN {low, high}`: `low <= x <= high`.
        case between = "BETWEEN"
        /// `x IN {a, b}` or `x IN %@` with an array: `x` equals one of them.
        case `in` = "IN"
        /// The left string contains the right one (every string contains `""`).
        case contains = "CONTAINS"
        /// The left string starts with the right one.
        case beginsWith = "BEGINSWITH"
        /// The left string ends with the right one.
        case endsWith = "ENDSWITH"
        /// Whole-string match with wildcards `*` (any run) and `?` (one character); see
        /// ``PredicateText/like(_:pattern:options:)``.
        case like = "LIKE"
        /// Whole-string regular expression match; see ``PredicateText/matches(_:regex:options:)``.
        case matches = "MATCHES"

        /// Whether the operator works on strings only.
        public var isStringOperator: Bool {
            switch self {
            case .contains, .beginsWith, .endsWith, .like, .matches: true
            default: false
            }
        }

        /// Whether the operator orders its operands (`<`, `<=`, `>`, `>=`, `BETWEEN`).
        public var isOrdering: Bool {
            switch self {
            case .less, .lessOrEqual, .greater, .greaterOrEqual, .between: true
            default: false
            }
        }
    }

    /// An operand of a comparison.
    public enum Expression: Sendable, Hashable {
        // Only the cases that hold an expression are `indirect`: an indirect enum boxes every
        // value, and a list argument of 100 values made 100 boxes.
        /// A constant: a literal, or a value bound from an argument or a variable.
        case value(AttributeValue)
        /// `{a, b, …}`, or an array argument.
        case list([Expression])
        /// A key path: `title`, `whoTook.name`, `$p.views` inside a `SUBQUERY`; `SELF` (the
        /// evaluated object) and `$p` alone are key paths without keys.
        case keyPath(KeyPath)
        /// An object, by its identity (an object or ``ObjectID`` given for `%@`): compared with
        /// a relationship or `SELF` (`whoTook == %@`, `SELF IN %@`, `tags CONTAINS %@`).
        case object(ObjectID)
        /// A `$NAME` placeholder not yet bound (see ``ObjectPredicate/substituting(_:)``).
        case variable(String)
        /// `collection.@count`, `collection.@avg.key`, …: a function over a to-many key path or a
        /// `SUBQUERY`; `key` is the key path within each element (empty for `@count`).
        indirect case aggregate(Aggregate, of: Expression, key: [String])
        /// `SUBQUERY(collection, $variable, predicate)`: the elements of `collection` matching
        /// `predicate`, where `$variable` names each element. Appears under an aggregate.
        indirect case subquery(collection: KeyPath, variable: String, predicate: Node)
    }

    /// A path of keys, from the evaluated object or from a `SUBQUERY` variable. Without keys it
    /// is the object itself: `SELF`, or the `SUBQUERY` variable's element.
    public struct KeyPath: Sendable, Hashable, CustomStringConvertible {
        /// The `SUBQUERY` variable the path starts from (`p` in `$p.views`), or `nil` for the
        /// evaluated object.
        public var variable: String?
        /// The keys, in order.
        public var keys: [String]
        /// The 1-based column where the path starts in ``ObjectPredicate/format``; not part of equality.
        public var column: Int?

        /// A key path; `column` only locates errors.
        public init(_ keys: [String], variable: String? = nil, column: Int? = nil) {
            self.keys = keys
            self.variable = variable
            self.column = column
        }

        /// The dotted path as written (without `#` escapes); `SELF` for the evaluated object.
        public var description: String {
            if keys.isEmpty, variable == nil { return "SELF" }
            return ((variable.map { ["$" + $0] } ?? []) + keys).joined(separator: ".")
        }

        public static func == (lhs: KeyPath, rhs: KeyPath) -> Bool {
            lhs.variable == rhs.variable && lhs.keys == rhs.keys
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(variable)
            hasher.combine(keys)
        }
    }

    /// A function over the elements of a to-many key path: the model's ``AggregateFunction``
    /// (a derived attribute's derivation names one too), under the name code has spelled it by.
    public typealias Aggregate = AggregateFunction
}

/// Options of a string comparison: `[c]` case-insensitive, `[d]` diacritic-insensitive.
public struct StringOptions: OptionSet, Sendable, Hashable {
    /// The options as bits: 1 for `[c]`, 2 for `[d]` (how the SQL side passes them to its functions).
    public let rawValue: UInt8
    /// Options from their bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `[c]`: full Unicode case folding (`Straße` matches `STRASSE`).
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// `[d]`: combining marks removed after canonical decomposition (`é` matches `e`).
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    /// The options as written after an operator: `""`, `"[c]"`, `"[d]"` or `"[cd]"`.
    public var formatSuffix: String {
        if isEmpty { return "" }
        return "[" + (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "") + "]"
    }
}

// MARK: - Combining

extension ObjectPredicate {
    /// True when every part is (Core Data's `NSCompoundPredicate(andPredicateWithSubpredicates:)`);
    /// `TRUEPREDICATE` for no parts.
    ///
    /// ```swift
    /// let recent = try ObjectPredicate(format: "uploadDate > %@", lastWeek)
    /// let popular = try ObjectPredicate(format: "views > %d", 100)
    /// request.predicate = .and([recent, popular])
    /// ```
    /// An error found when the result is checked (an unknown key, a type mismatch) shows the
    /// text of the part it is in, with the column in that text.
    public static func and(_ parts: [ObjectPredicate]) -> ObjectPredicate {
        combined(parts, empty: true) { .and($0) }
    }

    /// True when some part is (`NSCompoundPredicate(orPredicateWithSubpredicates:)`);
    /// `FALSEPREDICATE` for no parts. Errors show each part's own text, as for ``and(_:)``.
    public static func or(_ parts: [ObjectPredicate]) -> ObjectPredicate {
        combined(parts, empty: false) { .or($0) }
    }

    /// True when `part` is false (`NSCompoundPredicate(notPredicateWithSubpredicate:)`).
    public static func not(_ part: ObjectPredicate) -> ObjectPredicate {
        ObjectPredicate(root: .not(part.root), format: nil)
    }

    private static func combined(_ parts: [ObjectPredicate], empty: Bool, _ make: ([Node]) -> Node) -> ObjectPredicate {
        switch parts.count {
        case 0: return ObjectPredicate(root: .constant(empty), format: nil)
        case 1: return parts[0]
        default:
            // Flattened as the parser flattens `a AND b AND c`, so that equal conditions give equal trees.
            let nodes = parts.flatMap { part -> [Node] in
                switch (part.root, make([])) {
                case (.and(let inner), .and), (.or(let inner), .or): inner
                default: [part.root]
                }
            }
            return ObjectPredicate(root: make(nodes), format: nil)
        }
    }
}

// MARK: - Variables

extension ObjectPredicate {
    /// The names of the `$NAME` variables still unbound (without `$`; `SUBQUERY` variables
    /// are not listed).
    public var variableNames: Set<String> {
        var names: Set<String> = []
        root.collectVariables(into: &names)
        return names
    }

    /// This predicate with `$NAME` variables replaced by the values given for `NAME`.
    ///
    /// Values are taken as for `%@`: an array becomes a list (for `IN` and `BETWEEN`); a
    /// `String` is a string value, never a key path. Names not used are ignored; a variable
    /// left unbound makes ``checked(for:in:)`` throw.
    public func substituting(_ variables: [String: any PredicateArgument]) -> ObjectPredicate {
        let values = variables.mapValues { $0.predicateArgumentValue.expression }
        return ObjectPredicate(root: root.substituting { values[$0] }, format: format)
    }
}

extension ObjectPredicate.Node {
    func collectVariables(into names: inout Set<String>) {
        switch self {
        case .constant: break
        case .not(let p): p.collectVariables(into: &names)
        case .and(let ps), .or(let ps): for p in ps { p.collectVariables(into: &names) }
        case .comparison(let c):
            c.left.collectVariables(into: &names)
            c.right.collectVariables(into: &names)
        }
    }

    /// The node with each variable `value(name)` gives an expression for replaced by it.
    func substituting(_ values: (String) -> ObjectPredicate.Expression?) -> ObjectPredicate.Node {
        switch self {
        case .constant:
            return self
        case .not(let p):
            return .not(p.substituting(values))
        case .and(let ps):
            return .and(ps.map { $0.substituting(values) })
        case .or(let ps):
            return .or(ps.map { $0.substituting(values) })
        case .comparison(var c):
            c.left = c.left.substituting(values)
            c.right = c.right.substituting(values)
            return .comparison(c)
        }
    }
}

extension ObjectPredicate.Expression {
    func collectVariables(into names: inout Set<String>) {
        switch self {
        case .value, .keyPath, .object: break
        case .variable(let name): names.insert(name)
        case .list(let items): for item in items { item.collectVariables(into: &names) }
        case .aggregate(_, let collection, _): collection.collectVariables(into: &names)
        case .subquery(_, _, let predicate): predicate.collectVariables(into: &names)
        }
    }

    func substituting(_ values: (String) -> ObjectPredicate.Expression?) -> ObjectPredicate.Expression {
        switch self {
        case .value, .keyPath, .object: self
        case .variable(let name): values(name) ?? self
        case .list(let items): .list(items.map { $0.substituting(values) })
        case .aggregate(let function, let collection, let key):
            .aggregate(function, of: collection.substituting(values), key: key)
        case .subquery(let collection, let variable, let predicate):
            .subquery(collection: collection, variable: variable, predicate: predicate.substituting(values))
        }
    }
}
