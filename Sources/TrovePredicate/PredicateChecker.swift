import Foundation

extension ObjectPredicate {
    /// Checks this predicate against `entity`: resolves key paths, types constants, and reports
    /// the first problem with its column.
    ///
    /// A to-many key path needs `ANY`, `ALL`, `NONE`, an aggregate or a `SUBQUERY`. A constant
    /// compared with an attribute must fit its type: integers, doubles and decimals mix freely;
    /// an ISO 8601 string (`"2011-07-23"`, `"2011-07-23T22:30:40Z"`, with or without
    /// fractional seconds) is read as a date for a date attribute, a UUID string as a UUID, a
    /// URL string as a URI, a one-character string as a character, 0 and 1 as booleans.
    /// String operators and `[c]`/`[d]` need string, character or URI operands.
    /// - Throws: ``ObjectPredicateError`` (``ObjectPredicateError/Code/unknownKey`` with suggestions,
    ///   ``ObjectPredicateError/Code/keyPath``, ``ObjectPredicateError/Code/typeMismatch``,
    ///   ``ObjectPredicateError/Code/unboundVariable``, ``ObjectPredicateError/Code/invalidRegex``,
    ///   ``ObjectPredicateError/Code/tooLarge`` past one of ``PredicateLimits``).
    public func checked(for entity: Entity, in model: Model) throws(ObjectPredicateError) -> CheckedPredicate {
        do {
            try PredicateLimits.check(self.root)
            var checker = PredicateChecker(model: model)
            let root = try checker.check(self.root, entity: entity)
            return CheckedPredicate(entityName: entity.name, root: root, predicate: self)
        } catch {
            throw error.located(in: format)
        }
    }
}

/// Checks a predicate tree; `scope` holds the entities of the `SUBQUERY` variables in reach.
struct PredicateChecker {
    let model: Model
    var scope: [String: Entity] = [:]

    init(model: Model) {
        self.model = model
    }

    mutating func check(_ node: ObjectPredicate.Node, entity: Entity) throws(ObjectPredicateError) -> CheckedPredicate.Node {
        switch node {
        case .constant(let value):
            return .constant(value)
        case .not(let operand):
            return .not(try check(operand, entity: entity))
        case .and(let parts):
            var checked: [CheckedPredicate.Node] = []
            for part in parts { checked.append(try check(part, entity: entity)) }
            return .and(checked)
        case .or(let parts):
            var checked: [CheckedPredicate.Node] = []
            for part in parts { checked.append(try check(part, entity: entity)) }
            return .or(checked)
        case .comparison(let comparison):
            do {
                if let objects = try objectComparison(comparison, entity: entity) { return .objects(objects) }
                return .comparison(try check(comparison, entity: entity))
            } catch {
                throw error.located(in: comparison.source)
            }
        }
    }

    // MARK: Key paths

    /// Resolves every key of `path`, starting at its variable's entity or at `entity`.
    func resolve(_ path: ObjectPredicate.KeyPath, from entity: Entity) throws(ObjectPredicateError) -> ResolvedKeyPath {
        var current = entity
        if let variable = path.variable {
            guard let bound = scope[variable] else {
                throw ObjectPredicateError(.keyPath, "$\(variable) is not a SUBQUERY variable in reach", column: path.column)
            }
            current = bound
        }
        guard !path.keys.isEmpty else { throw Self.selfMisused(path, column: path.column) }
        let start = current
        var steps: [ResolvedKeyPath.Step] = []
        for key in path.keys {
            if let previous = steps.last, let attribute = previous.attribute {
                throw ObjectPredicateError(
                    .keyPath, "'\(attribute.name)' is \(attribute.type.withArticle) attribute of \(previous.entityName) and has no key '\(key)'",
                    column: path.column)
            }
            if let index = current.attributeIndex(named: key) {
                let attribute = current.attributes[index]
                steps.append(.init(kind: .attribute(attribute), key: PredicateKey(name: key, index: index, isRelationship: false), entityName: current.name))
            } else if let index = current.relationshipIndex(named: key) {
                let relationship = current.relationships[index]
                guard let destination = model.entity(named: relationship.destination) else {
                    throw ObjectPredicateError(.keyPath, "relationship '\(key)' of \(current.name) leads to \(relationship.destination), which the model lacks", column: path.column)
                }
                let kind: ResolvedKeyPath.Step.Kind = relationship.isToMany ? .toMany(relationship) : .toOne(relationship)
                steps.append(.init(kind: kind, key: PredicateKey(name: key, index: index, isRelationship: true), entityName: current.name))
                current = destination
            } else {
                let candidates = current.attributes.map(\.name) + current.relationships.map(\.name)
                let hint = KeySuggestion.hint(for: key, among: candidates)
                let place = path.keys.count > 1 || path.variable != nil ? " (in '\(path)')" : ""
                throw ObjectPredicateError(.unknownKey, "\(current.name) has no key '\(key)'\(place); \(hint.text)",
                                     column: path.column, suggestions: hint.suggestions)
            }
        }
        let toManyCount = steps.count { $0.isToMany }
        if toManyCount > 1 {
            throw ObjectPredicateError(.keyPath, "'\(path)' goes through more than one to-many relationship; use a SUBQUERY", column: path.column)
        }
        return ResolvedKeyPath(variable: path.variable, entityName: start.name, steps: steps)
    }

    // MARK: Operands

    /// A checked operand with what checking needs to know of its type.
    struct Typed {
        enum Kind {
            /// An attribute or an aggregate, of a type.
            case typed(AttributeType)
            /// A to-one relationship: compared with nil only.
            case relationship
            case constant(AttributeValue)
            case list([AttributeValue])
        }

        /// What an operand is, for messages: the text is made only when a message needs it.
        enum Description {
            case value(AttributeValue)
            case list
            case attribute(AttributeType, ResolvedKeyPath)
            case relationship(ResolvedKeyPath)
            case text(String)
        }

        var operand: CheckedPredicate.Operand
        var kind: Kind
        var description: Description
        var hasToMany = false
        var column: Int?

        /// "integer64 attribute 'views'", for messages.
        var label: String {
            switch description {
            case .value(let value): value.kindWithArticle
            case .list: "a list"
            case .attribute(let type, let path): "\(type.rawValue) attribute '\(path)'"
            case .relationship(let path): "relationship '\(path)'"
            case .text(let text): text
            }
        }
    }

    mutating func typed(_ expression: ObjectPredicate.Expression, entity: Entity, column: Int?) throws(ObjectPredicateError) -> Typed {
        switch expression {
        case .value(let value):
            return Typed(operand: .value(value), kind: .constant(value), description: .value(value), column: column)
        case .list(let items):
            var values: [AttributeValue] = []
            for item in items {
                switch item {
                case .value(let value): values.append(value)
                case .variable(let name): throw unbound(name, column: column)
                default: throw ObjectPredicateError(.typeMismatch, "a list may hold only values, not \(item)", column: column)
                }
            }
            return Typed(operand: .list(values), kind: .list(values), description: .list, column: column)
        case .variable(let name):
            throw unbound(name, column: column)
        case .object(let id):
            throw ObjectPredicateError(.typeMismatch, "an object (\(id)) can only be compared with a relationship or SELF, such as whoTook == %@", column: column)
        case .keyPath(let path):
            let resolved = try resolve(path, from: entity)
            let hasToMany = resolved.toManyStepIndex != nil
            guard let last = resolved.steps.last else { throw ObjectPredicateError(.keyPath, "empty key path", column: path.column) }
            switch last.kind {
            case .attribute(let attribute):
                return Typed(operand: .keyPath(resolved), kind: .typed(attribute.type),
                             description: .attribute(attribute.type, resolved), hasToMany: hasToMany, column: path.column)
            case .toOne:
                return Typed(operand: .keyPath(resolved), kind: .relationship,
                             description: .relationship(resolved), hasToMany: hasToMany, column: path.column)
            case .toMany(let relationship):
                throw ObjectPredicateError(
                    .keyPath, "'\(resolved)' is a to-many relationship: compare a key of its objects (ANY \(resolved).\(firstKey(of: relationship)) …) or count them with \(resolved).@count",
                    column: path.column)
            }
        case .aggregate(let function, let source, let key):
            return try aggregate(function, of: source, key: key, entity: entity, column: column)
        case .subquery:
            throw ObjectPredicateError(.keyPath, "a SUBQUERY must be followed by a function such as .@count", column: column)
        }
    }

    /// A key of the relationship's destination, to show in an example.
    func firstKey(of relationship: Relationship?) -> String {
        relationship.flatMap { model.entity(named: $0.destination) }?.attributes.first?.name ?? "name"
    }

    private func unbound(_ name: String, column: Int?) -> ObjectPredicateError {
        ObjectPredicateError(.unboundVariable, "$\(name) is not bound: call substituting([\"\(name)\": value]) before checking", column: column)
    }

    private mutating func aggregate(
        _ function: ObjectPredicate.Aggregate, of source: ObjectPredicate.Expression, key: [String], entity: Entity, column: Int?
    ) throws(ObjectPredicateError) -> Typed {
        let collection: CheckedPredicate.Collection
        let element: Entity
        let sourceLabel: String
        switch source {
        case .keyPath(let path):
            let resolved = try resolve(path, from: entity)
            (element, sourceLabel) = try toManyEnd(of: resolved, function: function, column: path.column)
            collection = .keyPath(resolved)
        case .subquery(let path, let variable, let predicate):
            let resolved = try resolve(path, from: entity)
            (element, sourceLabel) = try toManyEnd(of: resolved, function: function, column: path.column)
            let saved = scope[variable]
            scope[variable] = element
            let checked = try check(predicate, entity: entity)
            scope[variable] = saved
            collection = .subquery(.init(collection: resolved, variable: variable, elementEntityName: element.name, predicate: checked))
        default:
            throw ObjectPredicateError(.keyPath, "\(function.rawValue) must follow a to-many key path or a SUBQUERY", column: column)
        }
        guard function != .count else {
            return Typed(operand: .aggregate(.count, of: collection, key: nil), kind: .typed(.integer64),
                         description: .text("\(sourceLabel).@count"), column: column)
        }
        let resolvedKey = try resolve(ObjectPredicate.KeyPath(key, column: column), from: element)
        guard resolvedKey.toManyStepIndex == nil, let attribute = resolvedKey.attribute else {
            throw ObjectPredicateError(.keyPath, "\(function.rawValue) needs a key path to an attribute through to-one relationships, not '\(resolvedKey)'", column: column)
        }
        let label = "\(sourceLabel).\(function.rawValue).\(resolvedKey)"
        let type: AttributeType
        switch (function, attribute.type) {
        case (.sum, let t) where t.isInteger: type = .integer64
        case (.sum, .float), (.sum, .double), (.avg, .float), (.avg, .double), (.avg, .integer16), (.avg, .integer32), (.avg, .integer64):
            type = .double
        case (.sum, .decimal), (.avg, .decimal): type = .decimal
        case (.min, let t) where t.isNumeric || t == .date || t == .string:
            type = t.isInteger ? .integer64 : t
        case (.max, let t) where t.isNumeric || t == .date || t == .string:
            type = t.isInteger ? .integer64 : t
        default:
            throw ObjectPredicateError(.typeMismatch, "\(function.rawValue) cannot aggregate \(attribute.type.rawValue) attribute '\(resolvedKey)'", column: column)
        }
        return Typed(operand: .aggregate(function, of: collection, key: resolvedKey), kind: .typed(type), description: .text(label), column: column)
    }

    /// The element entity of a key path that must end in its only to-many step.
    private func toManyEnd(of path: ResolvedKeyPath, function: ObjectPredicate.Aggregate, column: Int?) throws(ObjectPredicateError) -> (Entity, String) {
        guard let last = path.steps.last, last.isToMany, let relationship = last.relationship,
              let element = model.entity(named: relationship.destination) else {
            throw ObjectPredicateError(.keyPath, "\(function.rawValue) needs a to-many relationship, but '\(path)' is not one", column: column)
        }
        return (element, path.description)
    }
}
