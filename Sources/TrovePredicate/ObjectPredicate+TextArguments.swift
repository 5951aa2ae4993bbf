import Foundation

extension ObjectPredicate {
    /// Parses a predicate whose format arguments are texts, as a command line gives them: each
    /// text for `%@` is read as the type of the key it is compared with.
    ///
    /// ```swift
    /// try ObjectPredicate(format: "uploadDate > %@ AND views >= %@ AND isPublic = %@",
    ///               textArguments: ["2011-07-23", "100", "true"], for: photo, in: model)
    /// // uploadDate > <date>, views >= 100, isPublic == true
    /// ```
    /// A date reads ISO 8601 (`2011-07-23`, `2011-07-23T22:30:40Z`, with fractional seconds or
    /// an offset); integers, doubles and decimals a number (`42`, `-3.5`, `1e3`); a boolean
    /// `true`/`false` (also `yes`/`no`, `1`/`0`); a UUID, a URL, a character (one letter),
    /// binary (base64) and JSON (a JSON text) what their names say; a string anything. A text
    /// compared with something other than an attribute or aggregate (another argument, a
    /// constant, a relationship) stays a string. `%K` takes a key path and `%s` a string; `%d`
    /// and `%f` a number. A list argument (`IN %@`) cannot be written as one text: write
    /// `IN {%@, %@}`.
    /// - Throws: ``ObjectPredicateError``: ``ObjectPredicateError/Code/argument`` when there are more or
    ///   fewer texts than specifiers, or a text does not fit its key (the message names the
    ///   argument by its 1-based position, the key and the type expected); the syntax and key
    ///   errors of ``init(format:_:)`` and ``checked(for:in:)``.
    public init(format: String, textArguments: [String], for entity: Entity, in model: Model) throws(ObjectPredicateError) {
        do {
            var placeholders: [AttributeValue: Int] = [:]
            let specifiers = try PredicateLexer.tokens(of: format).compactMap { token -> String? in
                if case .specifier(let letters) = token.kind { return letters }
                return nil
            }
            let values = textArguments.enumerated().map { index, text -> PredicateArgumentValue in
                let letters = index < specifiers.count ? specifiers[index] : "@"
                switch letters {
                case "@":
                    let placeholder = TextArgumentTyper.placeholder(index)
                    placeholders[placeholder] = index
                    return .value(placeholder)
                case "K", "s":
                    return .value(.string(text))
                default:
                    return .value(Int64(text).map(AttributeValue.integer) ?? Double(text).map(AttributeValue.double) ?? .string(text))
                }
            }
            var parser = try PredicateParser(format: format, arguments: values)
            let parsed = try parser.parse()
            var typer = TextArgumentTyper(texts: textArguments, placeholders: placeholders, checker: PredicateChecker(model: model))
            self.init(root: try typer.type(parsed, entity: entity), format: format)
        } catch {
            throw error.located(in: format)
        }
    }
}

/// Replaces the placeholders the parser bound for `%@` texts with values of the type of the key
/// each is compared with.
///
/// A placeholder is a `binary` value: no literal of the predicate language is binary, so every
/// binary constant in the tree is one of ours.
struct TextArgumentTyper {
    let texts: [String]
    let placeholders: [AttributeValue: Int]
    /// Resolves the other side of each comparison; its `scope` follows `SUBQUERY` variables.
    var checker: PredicateChecker

    static func placeholder(_ index: Int) -> AttributeValue {
        .binary(Data("trove.text-argument.\(index)".utf8))
    }

    mutating func type(_ node: ObjectPredicate.Node, entity: Entity) throws(ObjectPredicateError) -> ObjectPredicate.Node {
        switch node {
        case .constant:
            return node
        case .not(let operand):
            return .not(try type(operand, entity: entity))
        case .and(let parts):
            var typed: [ObjectPredicate.Node] = []
            for part in parts { typed.append(try type(part, entity: entity)) }
            return .and(typed)
        case .or(let parts):
            var typed: [ObjectPredicate.Node] = []
            for part in parts { typed.append(try type(part, entity: entity)) }
            return .or(typed)
        case .comparison(var comparison):
            // Subqueries first, so that the sides are whole when their types are looked up.
            comparison.left = try typeSubqueries(in: comparison.left, entity: entity)
            comparison.right = try typeSubqueries(in: comparison.right, entity: entity)
            let leftType = keyType(of: comparison.left, entity: entity, column: comparison.column)
            let rightType = keyType(of: comparison.right, entity: entity, column: comparison.column)
            comparison.right = try substitute(comparison.right, as: leftType, column: comparison.column)
            comparison.left = try substitute(comparison.left, as: rightType, column: comparison.column)
            return .comparison(comparison)
        }
    }

    /// `expression` with the placeholders inside its `SUBQUERY`s typed.
    private mutating func typeSubqueries(in expression: ObjectPredicate.Expression, entity: Entity) throws(ObjectPredicateError) -> ObjectPredicate.Expression {
        switch expression {
        case .aggregate(let function, let source, let key):
            return .aggregate(function, of: try typeSubqueries(in: source, entity: entity), key: key)
        case .subquery(let collection, let variable, let predicate):
            guard let relationship = try? checker.resolve(collection, from: entity).steps.last?.relationship,
                  let element = checker.model.entity(named: relationship.destination) else {
                return expression  // checking reports the bad collection
            }
            let saved = checker.scope[variable]
            checker.scope[variable] = element
            defer { checker.scope[variable] = saved }
            return .subquery(collection: collection, variable: variable, predicate: try type(predicate, entity: entity))
        default:
            return expression
        }
    }

    /// The attribute type of a key path or aggregate with its label for messages; `nil` for
    /// anything else (checking reports what is wrong with it).
    private mutating func keyType(of expression: ObjectPredicate.Expression, entity: Entity, column: Int?) -> (AttributeType, String)? {
        switch expression {
        case .keyPath, .aggregate:
            guard let typed = try? checker.typed(expression, entity: entity, column: column),
                  case .typed(let type) = typed.kind else { return nil }
            return (type, typed.label)
        default:
            return nil
        }
    }

    private func substitute(_ expression: ObjectPredicate.Expression, as key: (AttributeType, String)?, column: Int?) throws(ObjectPredicateError) -> ObjectPredicate.Expression {
        switch expression {
        case .value(let value):
            guard let index = placeholders[value] else { return expression }
            return .value(try self.value(of: index, as: key, column: column))
        case .list(let items):
            var typed: [ObjectPredicate.Expression] = []
            for item in items { typed.append(try substitute(item, as: key, column: column)) }
            return .list(typed)
        default:
            return expression
        }
    }

    /// Argument `index` read as the key's type, or as a string when there is no key.
    private func value(of index: Int, as key: (type: AttributeType, label: String)?, column: Int?) throws(ObjectPredicateError) -> AttributeValue {
        let text = texts[index]
        guard let key else { return .string(text) }
        if let value = Self.value(of: text, as: key.type) { return value }
        throw ObjectPredicateError(
            .argument, "argument \(index + 1) (\"\(text)\") does not fit \(key.label): expected \(Self.expectation(for: key.type))",
            column: column)
    }

    /// `text` as a value an attribute of `type` compares with, or `nil`.
    static func value(of text: String, as type: AttributeType) -> AttributeValue? {
        let candidate: AttributeValue?
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal:
            candidate = number(text)
        case .boolean:
            switch text.lowercased() {
            case "true", "yes", "1": candidate = .boolean(true)
            case "false", "no", "0": candidate = .boolean(false)
            default: candidate = nil
            }
        case .binary:
            candidate = Data(base64Encoded: text).map(AttributeValue.binary)
        case .json:
            candidate = (try? JSONValue(parsing: text)).map(AttributeValue.json)
        case .string, .character, .date, .uuid, .uri:
            candidate = .string(text)
        }
        return candidate.flatMap { PredicateChecker.coerce($0, to: type) }
    }

    /// A decimal number written plainly (`42`, `-3.5`, `1e3`): an exact integer or decimal.
    private static func number(_ text: String) -> AttributeValue? {
        guard !text.isEmpty, text.allSatisfy({ "0123456789+-.eE".contains($0) }), Double(text) != nil else { return nil }
        if let integer = Int64(text) { return .integer(integer) }
        guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !decimal.isNaN else { return nil }
        return .decimal(decimal)
    }

    private static func expectation(for type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64: "a whole number such as 42"
        case .double, .float, .decimal: "a number such as 3.5"
        case .boolean: "true or false"
        case .date: "an ISO 8601 date such as 2011-07-23 or 2011-07-23T22:30:40Z"
        case .uuid: "a UUID such as E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        case .uri: "a URL"
        case .character: "a single character"
        case .binary: "base64"
        case .json: "a JSON text"
        case .string: "a string"
        }
    }
}
