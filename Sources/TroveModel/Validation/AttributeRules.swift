import Foundation

/// An attribute's `default` fits its type (``Attribute/checked(_:)``) and can be written to a model file.
enum AttributeDefaultRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var findings: [ModelIssue] = []
        for (e, entity) in model.entities.enumerated() {
            for (a, attribute) in entity.attributes.enumerated() where !attribute.defaultValue.isNull {
                if let hint = attribute.misfitHint(for: attribute.defaultValue) {
                    findings.append(ModelIssue(
                        path: ModelPath.attribute(e, a) + ".default",
                        message: "\(model.label(entity: e, attribute: a)): default \(attribute.defaultValue)"
                            + " does not fit type \(attribute.type.rawValue); \(hint)"))
                }
            }
        }
        return findings
    }
}

/// `min` and `max` are values of the type for numbers and dates, non-negative lengths for strings
/// and binary data, absent for other types, and `min` ≤ `max`.
enum AttributeBoundsRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var findings: [ModelIssue] = []
        for (e, entity) in model.entities.enumerated() {
            for (a, attribute) in entity.attributes.enumerated() {
                let label = model.label(entity: e, attribute: a)
                var fitting: [AttributeValue] = []
                for (key, bound) in [("min", attribute.minimum), ("max", attribute.maximum)] {
                    guard let bound else { continue }
                    let path = ModelPath.attribute(e, a) + "." + key
                    if let problem = problem(with: bound, of: attribute) {
                        findings.append(ModelIssue(path: path, message: "\(label): \(key) \(bound) \(problem)"))
                    } else if let value = try? attribute.boundValue(bound).get() {
                        fitting.append(value)
                    }
                }
                if fitting.count == 2, let minimum = attribute.minimum, let maximum = attribute.maximum,
                   AttributeValue.isOrdered(fitting[1], before: fitting[0]) {
                    findings.append(ModelIssue(
                        path: ModelPath.attribute(e, a) + ".min",
                        message: "\(label): min \(minimum) is greater than max \(maximum); swap them or fix one"))
                }
            }
        }
        return findings
    }

    /// What is wrong with `bound` as a min or max of `attribute`, completing "min 3 …", or `nil`.
    private static func problem(with bound: AttributeValue, of attribute: Attribute) -> String? {
        let type = attribute.type
        switch type {
        case .string, .binary:
            guard case .integer(let length) = bound, length >= 0 else {
                return "is not a length; for a \(type.rawValue) attribute min and max are lengths,"
                    + " so use a non-negative integer"
            }
            return nil
        case _ where type.isNumeric || type == .date:
            return attribute.misfitHint(for: bound).map { "does not fit type \(type.rawValue); \($0)" }
        default:
            return "is not allowed on a \(type.rawValue) attribute (min and max apply to numbers, dates, and the"
                + " length of strings and binary data); remove it"
        }
    }
}

/// `regex` is given only on string attributes and compiles.
enum AttributeRegexRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var findings: [ModelIssue] = []
        for (e, entity) in model.entities.enumerated() {
            for (a, attribute) in entity.attributes.enumerated() {
                guard let regex = attribute.regex else { continue }
                let path = ModelPath.attribute(e, a) + ".regex"
                let label = model.label(entity: e, attribute: a)
                if attribute.type != .string {
                    findings.append(ModelIssue(
                        path: path,
                        message: "\(label): regex applies only to string attributes, not \(attribute.type.rawValue); remove it"))
                } else if regex.utf16.count > RegexMatcher.maximumPatternLength {
                    findings.append(ModelIssue(
                        path: path,
                        message: "\(label): regex is \(regex.utf16.count) UTF-16 units long, over the \(RegexMatcher.maximumPatternLength) a pattern may have; shorten it"))
                } else if RegexMatcher.problem(with: regex) != nil {
                    findings.append(ModelIssue(
                        path: path,
                        message: "\(label): regex \(AttributeValue.string(regex)) is not a valid regular expression; fix its syntax"))
                }
            }
        }
        return findings
    }
}

// MARK: - Value checks shared with the model file

extension Attribute {
    /// The value `bound` stands for as a min or max: normalized by ``checked(_:)`` for numbers
    /// and dates, as given for lengths.
    func boundValue(_ bound: AttributeValue) -> Result<AttributeValue, AttributeValueProblem> {
        type.isNumeric || type == .date ? checked(bound) : .success(bound)
    }

    /// What to give instead when `value` does not fit this attribute's type or cannot be written
    /// to a model file (infinity, NaN); `nil` when it fits.
    func misfitHint(for value: AttributeValue) -> String? {
        switch checked(value) {
        case .failure:
            return "use \(type.valueHint)"
        case .success(.double(let d)) where !d.isFinite:
            return "a model file cannot hold \(d), use a finite number"
        case .success(.decimal(let d)) where d.isNaN:
            return "a model file cannot hold NaN, use a number"
        case .success(.date(let d)) where ISO8601Timestamp.string(from: d) == nil:
            return "a model file cannot hold a date so far from now, use a date within a few million years"
        case .success:
            return nil
        }
    }
}

extension AttributeType {
    /// What a value of this type looks like in a model file, completing "use …".
    var valueHint: String {
        switch self {
        case .integer16, .integer32, .integer64:
            let range = integerRange ?? Int64.min...Int64.max
            return "an integer from \(range.lowerBound) to \(range.upperBound)"
        case .double, .float, .decimal: return "a number"
        case .string: return "a string"
        case .boolean: return "true or false"
        case .date: return "an ISO 8601 date string such as \"2024-01-31T09:30:00Z\""
        case .binary: return "a base64 string"
        case .uuid: return "a UUID string such as \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\""
        case .uri: return "a URI string"
        case .character: return "a one-character string"
        case .json: return "any JSON value"
        }
    }
}

extension AttributeValue {
    /// Whether `lhs` comes before `rhs`, for two values of one kind that have an order (integers,
    /// doubles, decimals, dates); `false` for anything else.
    static func isOrdered(_ lhs: AttributeValue, before rhs: AttributeValue) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let l), .integer(let r)): l < r
        case (.double(let l), .double(let r)): l < r
        case (.decimal(let l), .decimal(let r)): l < r
        case (.date(let l), .date(let r)): l < r
        default: false
        }
    }
}
