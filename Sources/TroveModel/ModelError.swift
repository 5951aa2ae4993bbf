/// A problem found in a model: where it is and what is wrong.
public struct ModelIssue: Sendable, Hashable, CustomStringConvertible {
    /// How serious a finding is.
    public enum Severity: String, Sendable, Hashable {
        /// The model cannot be used.
        case error
        /// The model works, but probably not as meant.
        case warning
    }

    /// Where the problem is, as a path into the model file: `entities[1].attributes[0].type`.
    public let path: String
    /// What is wrong and what to do, naming the entity and property.
    public let message: String
    /// Whether the model can be used despite this finding.
    public let severity: Severity

    /// Creates a finding.
    public init(path: String, message: String, severity: Severity = .error) {
        self.path = path
        self.message = message
        self.severity = severity
    }

    public var description: String { "\(path): \(message)" }
}

/// A model could not be built or loaded; ``issues`` lists every problem found.
public struct ModelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Every problem found, in model order.
    public let issues: [ModelIssue]

    /// Creates an error from its findings.
    public init(issues: [ModelIssue]) {
        self.issues = issues
    }

    public var description: String {
        let lines = issues.map { "  - \($0)" }.joined(separator: "\n")
        return "the model has \(issues.count) problem\(issues.count == 1 ? "" : "s"):\n\(lines)"
    }
}
