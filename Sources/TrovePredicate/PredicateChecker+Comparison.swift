public import Foundation

extension PredicateChecker {
    mutating func check(_ comparison: ObjectPredicate.Comparison, entity: Entity) throws(ObjectPredicateError) -> CheckedPredicate.Comparison {
        let column = comparison.column
        let op = comparison.op
        var left = try typed(comparison.left, entity: entity, column: column)
        var right = try typed(comparison.right, entity: entity, column: column)
        let opText = op.rawValue + comparison.options.formatSuffix

        switch (comparison.modifier, left.hasToMany) {
        case (.direct, true):
            throw ObjectPredicateError(
                .keyPath, "\(left.label) goes through a to-many relationship: write ANY, ALL or NONE before it, or use an aggregate such as @count",
                column: left.column)
        case (let modifier, false) where modifier != .direct:
            throw ObjectPredicateError(.keyPath, "\(modifier.rawValue) needs a key path through a to-many relationship on the left, not \(left.label)", column: left.column)
        default:
            break
        }
        if right.hasToMany {
            throw ObjectPredicateError(.keyPath, "\(right.label) goes through a to-many relationship: put it on the left, after ANY, ALL or NONE", column: right.column)
        }

        if op.isStringOperator || !comparison.options.isEmpty {
            for side in [left, right] where !isNil(side) {
                guard side.isStringLike else {
                    let what = op.isStringOperator ? op.rawValue + " applies" : "[c] and [d] apply"
                    throw ObjectPredicateError(.typeMismatch, "\(what) to strings, but \(side.label) is not one", column: side.column)
                }
            }
        }
        switch op {
        case .in, .between:
            guard case .list(let values) = right.kind else {
                let example = op == .in ? "{1, 2} or an array argument" : "{1, 10}"
                throw ObjectPredicateError(.typeMismatch, "\(op.rawValue) needs a list on the right, such as \(example), not \(right.label)", column: column)
            }
            if op == .between, values.count != 2 {
                throw ObjectPredicateError(.typeMismatch, "BETWEEN needs a list of two values, such as {1, 10}, not \(values.count)", column: column)
            }
            var normalized: [AttributeValue] = []
            for value in values {
                normalized.append(try coerce(value, toMatch: left, op: opText, column: column))
            }
            right.operand = .list(normalized)
        default:
            if case .list = left.kind { throw listMisplaced(op, column: column) }
            if case .list = right.kind { throw listMisplaced(op, column: column) }
            if case .constant(let value) = right.kind {
                right.operand = .value(try coerce(value, toMatch: left, op: opText, column: column))
            } else if case .constant(let value) = left.kind {
                left.operand = .value(try coerce(value, toMatch: right, op: opText, column: column))
            } else {
                try requireCompatible(left, right, column: column)
            }
        }

        let isEquality = op == .equal || op == .notEqual
        if case .relationship = left.kind, !(isEquality && isNil(right)) { throw relationshipMisused(left) }
        if case .relationship = right.kind, !(isEquality && isNil(left)) { throw relationshipMisused(right) }
        if op == .matches, case .value(.string(let pattern)) = right.operand, let problem = RegexMatcher.problem(with: pattern) {
            throw ObjectPredicateError(.invalidRegex, problem, column: column)
        }
        return CheckedPredicate.Comparison(
            modifier: comparison.modifier, left: left.operand, op: op, options: comparison.options, right: right.operand)
    }

    private func listMisplaced(_ op: ObjectPredicate.Operator, column: Int?) -> ObjectPredicateError {
        ObjectPredicateError(.typeMismatch, "a list can only follow IN or BETWEEN, not \(op.rawValue)", column: column)
    }

    private func isNil(_ side: Typed) -> Bool {
        if case .constant(.null) = side.kind { return true }
        return false
    }

    private func relationshipMisused(_ side: Typed) -> ObjectPredicateError {
        var example = "its keys"
        if case .keyPath(let path) = side.operand, let relationship = path.steps.last?.relationship {
            example = "\(path).\(firstKey(of: relationship))"
        }
        return ObjectPredicateError(
            .typeMismatch, "\(side.label) can only be compared with nil (= nil, != nil) or an object (== %@); compare one of its keys instead, such as \(example)",
            column: side.column)
    }

    /// Two keys (or aggregates) compared with each other must have compatible types.
    private func requireCompatible(_ left: Typed, _ right: Typed, column: Int?) throws(ObjectPredicateError) {
        guard case .typed(let a) = left.kind, case .typed(let b) = right.kind else { return }
        let stringLike: Set<AttributeType> = [.string, .character, .uri]
        if a == b || (a.isNumeric && b.isNumeric) || (stringLike.contains(a) && stringLike.contains(b)) { return }
        throw ObjectPredicateError(.typeMismatch, "compares \(left.label) with \(right.label)", column: column)
    }

    /// `value` as the type of `key`, or an error naming both. A constant against a constant
    /// or a relationship stays as it is (a relationship takes only nil, checked by the caller).
    private func coerce(_ value: AttributeValue, toMatch key: Typed, op: String, column: Int?) throws(ObjectPredicateError) -> AttributeValue {
        guard case .typed(let type) = key.kind else { return value }
        if let coerced = Self.coerce(value, to: type) { return coerced }
        var reason = ""
        if case .string(let text) = value {
            switch type {
            case .date: reason = " that is not an ISO 8601 date such as \"2011-07-23T22:30:40Z\""
            case .uuid: reason = " that is not a UUID"
            case .uri: reason = " that is not a URL"
            case .character: reason = " of \(text.count) characters"
            default: break
            }
        }
        throw ObjectPredicateError(.typeMismatch, "compares \(key.label) with \(value.kindWithArticle)\(reason) (\(op) \(value))", column: column)
    }

    /// The value as an attribute of `type` compares it, or `nil` when it cannot be.
    static func coerce(_ value: AttributeValue, to type: AttributeType) -> AttributeValue? {
        switch (type, value) {
        case (_, .null):
            return .null
        case (.string, .string), (.character, .character), (.boolean, .boolean), (.date, .date), (.uuid, .uuid),
             (.uri, .uri), (.binary, .binary), (.json, .json), (.decimal, .decimal),
             (.integer16, .integer), (.integer32, .integer), (.integer64, .integer),
             (.integer16, .double), (.integer32, .double), (.integer64, .double), (.double, .double), (.float, .double):
            return value
        case (.string, .character(let c)):
            return .string(String(c))
        case (.character, .string(let s)):
            return s.count == 1 ? s.first.map(AttributeValue.character) : nil
        case (.integer16, .decimal(let d)), (.integer32, .decimal(let d)), (.integer64, .decimal(let d)):
            return Int64(d.description).map(AttributeValue.integer) ?? value.numericDouble.map(AttributeValue.double)
        case (.double, _), (.float, _):
            return value.numericDouble.map(AttributeValue.double)
        case (.decimal, .integer(let i)):
            return .decimal(Decimal(i))
        case (.decimal, .double(let d)):
            // A double no decimal can hold (1e300, 1e-300) stays a double and compares by value.
            guard d.isFinite else { return nil }
            return Decimal(shortestDigitsOf: d).map(AttributeValue.decimal) ?? value
        case (.boolean, .integer(let i)) where i == 0 || i == 1:
            return .boolean(i == 1)
        case (.date, .string(let s)):
            return ISO8601.date(from: s).map(AttributeValue.date)
        case (.uuid, .string(let s)):
            return UUID(uuidString: s).map(AttributeValue.uuid)
        case (.uri, .string(let s)):
            return URL(string: s).map(AttributeValue.uri)
        default:
            return nil
        }
    }
}

extension Decimal {
    /// The decimal a double stands for as written (`0.1` → 0.1): its shortest digits read as
    /// a decimal; `nil` when no decimal reads back as that double (not finite, or beyond a
    /// decimal's range such as 1e300 and 1e-300).
    public init?(shortestDigitsOf value: Double) {
        guard value.isFinite, let decimal = Decimal(string: String(value), locale: Locale(identifier: "en_US_POSIX")),
              !decimal.isNaN, Double(decimal.description) == value else { return nil }
        self = decimal
    }
}

extension PredicateChecker.Typed {
    /// Whether string operators apply: a string-like attribute, a string constant, a list of them.
    var isStringLike: Bool {
        switch kind {
        case .typed(let type): type == .string || type == .character || type == .uri
        case .constant(let value): value.text != nil
        case .list(let values): values.allSatisfy { $0.isNull || $0.text != nil }
        case .relationship: false
        }
    }
}

/// Reading ISO 8601 dates given as strings for date attributes.
enum ISO8601 {
    /// `2011-07-23T22:30:40Z`, with fractional seconds, with an offset, or a date alone
    /// (`2011-07-23`, midnight UTC); `nil` for anything else.
    static func date(from text: String) -> Date? {
        let styles: [Date.ISO8601FormatStyle] = [
            .iso8601,
            Date.ISO8601FormatStyle(includingFractionalSeconds: true),
            Date.ISO8601FormatStyle().year().month().day(),
        ]
        for style in styles {
            if let date = try? style.parse(text) { return date }
        }
        return nil
    }
}
