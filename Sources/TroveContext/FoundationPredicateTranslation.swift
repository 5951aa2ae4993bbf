public import Foundation
import TroveModel
public import TrovePredicate

extension ObjectPredicate {
    /// Translates Foundation's typed predicate into the tree a format string gives, so that it
    /// compiles to the same SQL and evaluates the same in memory.
    ///
    /// ```swift
    /// let ann = try ObjectPredicate(#Predicate<Photo> { $0.views > 100 && $0.whoTook?.name == "Ann" })
    /// // the same tree as: try ObjectPredicate(format: "views > 100 AND whoTook.name == %@", "Ann")
    /// ```
    /// Key paths become model keys through the class's ``EntityClass/modelKeyPath(for:)``
    /// (generated with the class); captured values become constants. Foundation's predicates
    /// capture only `Codable` and `Sendable` values, so objects are compared by their
    /// ``ManagedObject/objectID`` (as SwiftData compares `persistentModelID`):
    /// `let id = ann.objectID; #Predicate<Photo> { $0.whoTook?.objectID == id }`.
    ///
    /// ## Supported subset
    ///
    /// | Swift | predicate |
    /// |---|---|
    /// | `==` `!=` `<` `<=` `>` `>=` between attributes, constants and captured values | the same operators |
    /// | `&&` `\|\|` `!`, a `Bool` attribute alone (`$0.isPublic`) | `AND` `OR` `NOT`, `isPublic == TRUE` |
    /// | `$0.whoTook?.name`, `$0.title!` | `whoTook.name`, `title` (nil makes comparisons false) |
    /// | `$0.title == nil`, `!= nil` | `title == nil`, `title != nil` |
    /// | `($0.title ?? "") == "x"`, `$0.title?.contains("x") ?? false`, `… == true` | spelled out with `== nil` |
    /// | `$0.title.contains("x")` (also `?.contains`), `$0.title.starts(with: "x")` | `CONTAINS`, `BEGINSWITH` |
    /// | `names.contains($0.title)` (a captured array or set) | `title IN %@` |
    /// | `(1...10).contains($0.views)`, `(1..<10).contains(…)` | `BETWEEN`, `>=` and `<` |
    /// | `$0.tags.contains(where: { … })`, `allSatisfy { … }`, `filter { … }.count` | `SUBQUERY(…).@count` |
    /// | `$0.tags.count`, `$0.tags.isEmpty` | `tags.@count`, `tags.@count == 0` |
    /// | `$0.whoTook?.objectID == id`, `$0.objectID == id`, `ids.contains($0.objectID)`, `$0.tags.contains { $0.objectID == id }` | objects: `whoTook == %@`, `SELF == %@`, `SELF IN %@`, `ANY tags == %@` |
    /// | `-x`, `a + b`, `a - b`, `a * b` of constants | the computed constant |
    ///
    /// String comparisons are exact (the `[c]` and `[d]` options have no spelling in
    /// Foundation's predicates on Linux: `caseInsensitiveCompare` and
    /// `localizedStandardContains` do not exist there); write a format string for them.
    ///
    /// - Throws: ``ObjectPredicateError``: ``ObjectPredicateError/Code/unsupported`` naming any
    ///   other construct (the ternary operator, `is`/`as?`, subscripts, regular expressions,
    ///   arithmetic or `count` of strings on key paths, `first`/`last`, `min()`/`max()`, …);
    ///   ``ObjectPredicateError/Code/unknownKey`` for a key path the class does not map (a
    ///   computed property). Never a crash, and never a predicate that is not run in the store.
    public init<T: EntityClass>(_ predicate: Predicate<T>) throws(ObjectPredicateError) {
        var translation = PredicateTranslation(input: predicate.variable.key)
        let root = try translation.condition(translation.part(of: predicate.expression))
        self.init(root: root, format: nil)
    }
}

extension SortKey {
    /// Translates Foundation's key-path `SortDescriptor` into a sort key.
    ///
    /// ```swift
    /// try SortKey(SortDescriptor(\Photo.views, order: .reverse))   // -views
    /// try SortKey(SortDescriptor(\Photo.whoTook?.name))            // whoTook.name
    /// ```
    /// The key path must be one ``EntityClass/modelKeyPath(for:)`` maps: an attribute, or one
    /// level through a to-one relationship. Strings sort by their bytes (`.lexical`, and no
    /// comparator); `.localizedStandard` (where Foundation has it: not on Linux) sorts as
    /// ``SortKey/Comparison/localizedStandard``.
    /// - Throws: ``ObjectPredicateError``: ``ObjectPredicateError/Code/unknownKey`` for a key
    ///   path the class does not map, ``ObjectPredicateError/Code/unsupported`` for a
    ///   descriptor without a key path or with another string comparator.
    public init<T: EntityClass>(_ descriptor: SortDescriptor<T>) throws(ObjectPredicateError) {
        guard let keyPath = descriptor.keyPath else {
            throw ObjectPredicateError(.unsupported, "a SortDescriptor of \(T.self) without a key path cannot be translated: sort by a key path, such as SortDescriptor(\\\(T.self).name)")
        }
        let key = try PredicateTranslation.modelKey(of: keyPath, in: T.self)
        self.init(key, ascending: descriptor.order == .forward, comparison: try Self.comparison(of: descriptor.stringComparator, key: key))
    }

    private static func comparison(of comparator: String.StandardComparator?, key: String) throws(ObjectPredicateError) -> Comparison {
        guard var comparator else { return .standard }
        comparator.order = .forward
        if comparator == .lexical { return .standard }
        #if canImport(Darwin)
        if comparator == .localizedStandard { return .localizedStandard }
        #endif
        throw ObjectPredicateError(.unsupported, "the string comparator of the sort by '\(key)' cannot be translated: use .lexical or .localizedStandard")
    }
}

// MARK: - Translation

extension EntityClass {
    /// `\Self.objectID`, which typed predicates compare with captured IDs.
    static var objectIDKeyPath: AnyKeyPath { \Self.objectID }
}

/// A Foundation predicate expression that Trove translates: every `PredicateExpressions` type
/// of the supported subset conforms; any other makes the translation fail with its name.
protocol TranslatableExpression {
    func translate(in translation: inout PredicateTranslation) throws(ObjectPredicateError) -> PredicateTranslation.Part
}

/// The state of one translation: what each variable of the predicate stands for.
struct PredicateTranslation {
    /// What a translated expression is.
    indirect enum Part {
        /// A key path, constant, list, aggregate or `SUBQUERY` (the last only under `.count`).
        case operand(ObjectPredicate.Expression)
        /// `x ?? fallback`: `x` when it is not nil.
        case coalesced(ObjectPredicate.Expression, fallback: Part)
        /// A `Bool`.
        case condition(ObjectPredicate.Node)
        /// A `Bool?` (`$0.title?.contains("x")`): `condition` unless `isNil` holds.
        case optionalCondition(ObjectPredicate.Node, isNil: ObjectPredicate.Node)
        /// `lower...upper` or `lower..<upper`.
        case range(lower: ObjectPredicate.Expression, upper: ObjectPredicate.Expression, closed: Bool)
    }

    /// The key path each variable stands for: the predicate's input is `SELF`, an optional's
    /// `flatMap` variable the key path it unwraps, a `contains(where:)` variable a `SUBQUERY`'s.
    private var bindings: [PredicateExpressions.VariableID: ObjectPredicate.KeyPath]
    private var subqueryCount = 0

    init(input: PredicateExpressions.VariableID) {
        bindings = [input: ObjectPredicate.KeyPath([])]
    }

    mutating func part(of expression: Any) throws(ObjectPredicateError) -> Part {
        guard let translatable = expression as? any TranslatableExpression else { throw Self.unsupported(expression) }
        return try translatable.translate(in: &self)
    }

    /// The key path an expression stands for.
    mutating func keyPath(of expression: Any) throws(ObjectPredicateError) -> ObjectPredicate.KeyPath {
        guard case .operand(.keyPath(let path)) = try part(of: expression) else {
            throw Self.unsupported(expression, "only a key path of an object, such as $0.tags, can stand here")
        }
        return path
    }

    // MARK: Leaves

    func variable(_ key: PredicateExpressions.VariableID) throws(ObjectPredicateError) -> Part {
        guard let path = bindings[key] else {
            throw ObjectPredicateError(.unsupported, "a typed predicate uses a variable it does not declare")
        }
        return .operand(.keyPath(path))
    }

    mutating func bind(_ key: PredicateExpressions.VariableID, to path: ObjectPredicate.KeyPath) {
        bindings[key] = path
    }

    /// A fresh `SUBQUERY` variable bound to `key`.
    mutating func bindElement(_ key: PredicateExpressions.VariableID) -> String {
        subqueryCount += 1
        let name = "x\(subqueryCount)"
        bindings[key] = ObjectPredicate.KeyPath([], variable: name)
        return name
    }

    func constant(_ value: Any) throws(ObjectPredicateError) -> Part {
        guard let argument = value as? any PredicateArgument else {
            throw ObjectPredicateError(.unsupported, "a typed predicate cannot use a constant of type \(type(of: value)): use a value an attribute holds (String, Int, Date, …), an object, or an array or set of these")
        }
        return .operand(argument.predicateArgumentValue.expression)
    }

    mutating func keyPath(root: Any, _ keyPath: AnyKeyPath, isCount: Bool, isEmpty: Bool, isFirstOrLast: Bool) throws(ObjectPredicateError) -> Part {
        let base = try part(of: root)
        if isCount || isEmpty {
            guard case .operand(let collection) = base, Self.isCollection(collection) else {
                throw Self.unsupported(root, "count and isEmpty apply to a to-many relationship or a filter(_:) of one")
            }
            let count = ObjectPredicate.Expression.aggregate(.count, of: collection, key: [])
            return isCount ? .operand(count) : .condition(.comparison(.init(count, .equal, .value(.integer(0)))))
        }
        if isFirstOrLast {
            throw ObjectPredicateError(.unsupported, "a typed predicate cannot use first or last (\(keyPath)): relationships are unordered to predicates; use contains(where:)")
        }
        guard case .operand(.keyPath(let path)) = base else {
            throw Self.unsupported(root, "the key path \(keyPath) must start at an object")
        }
        let root = type(of: keyPath).rootType
        if let entityClass = root as? any EntityClass.Type, keyPath == entityClass.objectIDKeyPath {
            // `$0.whoTook?.objectID` is the object itself: compared with IDs, it is `whoTook == %@`.
            return .operand(.keyPath(path))
        }
        let key = try Self.modelKey(of: keyPath, in: root)
        return .operand(.keyPath(ObjectPredicate.KeyPath(path.keys + key.split(separator: ".").map(String.init), variable: path.variable)))
    }

    private static func isCollection(_ expression: ObjectPredicate.Expression) -> Bool {
        switch expression {
        case .keyPath(let path): !path.keys.isEmpty
        case .subquery: true
        default: false
        }
    }

    /// The model key path (`"whoTook.name"`) a Swift key path of an entity class stands for.
    static func modelKey(of keyPath: AnyKeyPath, in root: Any.Type) throws(ObjectPredicateError) -> String {
        guard let entityClass = root as? any EntityClass.Type else {
            throw ObjectPredicateError(.unsupported, "Trove cannot translate \(keyPath): it starts at \(root), which is not an entity class (EntityClass)")
        }
        guard let key = entityClass.modelKeyPath(for: keyPath), !key.isEmpty else {
            throw ObjectPredicateError(
                .unknownKey, "\(keyPath) is no key of entity '\(entityClass.entityName)': \(entityClass).modelKeyPath(for:) does not map it (a computed property, or a path more than one relationship deep)")
        }
        return key
    }

    // MARK: Conditions

    /// A part used as a `Bool`.
    func condition(_ part: Part) throws(ObjectPredicateError) -> ObjectPredicate.Node {
        switch part {
        case .condition(let node):
            return node
        case .operand(.value(.boolean(let value))):
            return .constant(value)
        case .operand(let expression) where Self.isKeyed(expression):
            return .comparison(.init(expression, .equal, .value(.boolean(true))))
        case .coalesced:
            return try compare(part, .equal, .operand(.value(.boolean(true))))
        default:
            throw ObjectPredicateError(.unsupported, "a typed predicate's condition must be a comparison or a Bool attribute, not \(part)")
        }
    }

    private static func isKeyed(_ expression: ObjectPredicate.Expression) -> Bool {
        switch expression {
        case .keyPath(let path): !path.keys.isEmpty
        case .aggregate: true
        default: false
        }
    }

    /// `left op right`, with `??` spelled out: `(x ?? f) op r` is `(x != nil AND x op r) OR (x == nil AND f op r)`.
    func compare(_ left: Part, _ op: ObjectPredicate.Operator, _ right: Part) throws(ObjectPredicateError) -> ObjectPredicate.Node {
        switch (left, right) {
        case (.coalesced(let value, let fallback), _):
            return Self.or([
                Self.and([Self.isNil(value, false), try compare(.operand(value), op, right)]),
                Self.and([Self.isNil(value, true), try compare(fallback, op, right)]),
            ])
        case (_, .coalesced(let value, let fallback)):
            return Self.or([
                Self.and([Self.isNil(value, false), try compare(left, op, .operand(value))]),
                Self.and([Self.isNil(value, true), try compare(left, op, fallback)]),
            ])
        case (.condition(let node), .operand(.value(.boolean(let value)))), (.operand(.value(.boolean(let value))), .condition(let node)):
            guard op == .equal || op == .notEqual else { break }
            return value == (op == .equal) ? node : .not(node)
        case (.optionalCondition(let node, let isNil), .operand(.value(let value))),
             (.operand(.value(let value)), .optionalCondition(let node, let isNil)):
            guard op == .equal || op == .notEqual else { break }
            let equal: ObjectPredicate.Node
            switch value {
            case .null: equal = isNil
            case .boolean(let flag): equal = Self.and([.not(isNil), flag ? node : .not(node)])
            default: throw ObjectPredicateError(.unsupported, "a typed predicate compares an optional Bool with \(value)")
            }
            return op == .equal ? equal : .not(equal)
        case (.operand(let a), .operand(let b)):
            if case .subquery = a { throw Self.filterMisused }
            if case .subquery = b { throw Self.filterMisused }
            return .comparison(.init(a, op, b))
        default:
            break
        }
        throw ObjectPredicateError(.unsupported, "a typed predicate cannot compare \(left) \(op.rawValue) \(right)")
    }

    private static let filterMisused = ObjectPredicateError(.unsupported, "filter(_:) in a typed predicate must be followed by .count or .isEmpty")

    /// `expression == nil` (or `!= nil` when `isNil` is false).
    static func isNil(_ expression: ObjectPredicate.Expression, _ isNil: Bool) -> ObjectPredicate.Node {
        .comparison(.init(expression, isNil ? .equal : .notEqual, .value(.null)))
    }

    /// `AND` of the parts, flattened as the parser flattens, without constant `TRUE`s.
    static func and(_ parts: [ObjectPredicate.Node]) -> ObjectPredicate.Node {
        combined(parts, identity: true) { .and($0) } split: { if case .and(let inner) = $0 { inner } else { nil } }
    }

    /// `OR` of the parts, flattened as the parser flattens, without constant `FALSE`s.
    static func or(_ parts: [ObjectPredicate.Node]) -> ObjectPredicate.Node {
        combined(parts, identity: false) { .or($0) } split: { if case .or(let inner) = $0 { inner } else { nil } }
    }

    private static func combined(_ parts: [ObjectPredicate.Node], identity: Bool, make: ([ObjectPredicate.Node]) -> ObjectPredicate.Node,
                                 split: (ObjectPredicate.Node) -> [ObjectPredicate.Node]?) -> ObjectPredicate.Node {
        var kept: [ObjectPredicate.Node] = []
        for part in parts {
            if case .constant(let value) = part {
                if value == identity { continue }
                return part
            }
            kept += split(part) ?? [part]
        }
        switch kept.count {
        case 0: return .constant(identity)
        case 1: return kept[0]
        default: return make(kept)
        }
    }

    // MARK: Errors

    /// The construct's name without its generic arguments: `PredicateExpressions.Conditional`.
    static func unsupported(_ expression: Any, _ reason: String? = nil) -> ObjectPredicateError {
        let name = String(reflecting: type(of: expression))
        let short = name.prefix { $0 != "<" }.replacingOccurrences(of: "Foundation.", with: "")
            .replacingOccurrences(of: "FoundationEssentials.", with: "")
        return ObjectPredicateError(
            .unsupported,
            "a typed predicate cannot use \(short)" + (reason.map { " (\($0))" } ?? "")
                + "; Trove translates comparisons, && || !, optionals, String contains and starts(with:), contains(where:), allSatisfy, filter, count and isEmpty of to-many relationships, collection.contains (IN), ranges and objects: write this condition as a format string instead")
    }
}

extension PredicateTranslation.Part: CustomStringConvertible {
    var description: String {
        switch self {
        case .operand(let expression): expression.description
        case .coalesced(let expression, let fallback): "\(expression) ?? \(fallback)"
        case .condition(let node): "(\(node))"
        case .optionalCondition(let node, _): "(\(node))?"
        case .range(let lower, let upper, let closed): "\(lower)\(closed ? "..." : "..<")\(upper)"
        }
    }
}
