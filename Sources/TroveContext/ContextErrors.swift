public import TroveModel

/// A context or an object was used in a way the model or the object's state does not allow:
/// an unknown key, a value of the wrong type, an object of another context.
public struct ObjectError: Error, Sendable, CustomStringConvertible {
    /// The kind of misuse. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unknownEntity, abstractEntity, unknownKey, typeMismatch, objectDeleted, notInContext, objectNotFound
            case readOnly, editingDisabled, notOnStore
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The model has no entity of that name.
        public static let unknownEntity = Code(.unknownEntity)
        /// The entity is abstract: insert one of its sub-entities.
        public static let abstractEntity = Code(.abstractEntity)
        /// The entity has no attribute of that name.
        public static let unknownKey = Code(.unknownKey)
        /// The value does not fit the attribute's type or range.
        public static let typeMismatch = Code(.typeMismatch)
        /// The object was deleted and cannot change.
        public static let objectDeleted = Code(.objectDeleted)
        /// The object belongs to another context, or to none (after `reset()` or a save of its delete).
        public static let notInContext = Code(.notInContext)
        /// No object with that ID exists in the context or the store.
        public static let objectNotFound = Code(.objectNotFound)
        /// The attribute is derived: the store computes its value, nothing sets it.
        public static let readOnly = Code(.readOnly)
        /// The context takes no change for now: its document is saving or reverting. Make the
        /// change when the document's state no longer contains `editingDisabled`.
        public static let editingDisabled = Code(.editingDisabled)
        /// The operation writes to the store, and the context is a child context, which reads
        /// and saves through its parent: run it in a context on the store.
        public static let notOnStore = Code(.notOnStore)

        public var description: String { base.rawValue }
    }

    /// The kind of misuse.
    public let code: Code
    /// What was wrong, on which entity and key, and what to do.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// A save found objects whose values break the model's rules; ``failures`` lists every one.
///
/// Nothing was written, and the context's changes are as they were.
public struct ValidationError: Error, Sendable, CustomStringConvertible {
    /// One value that breaks one rule.
    public struct Failure: Sendable, Hashable, CustomStringConvertible {
        /// The rule a value broke.
        public enum Rule: String, Sendable, Hashable {
            /// A required attribute is nil, or a required relationship is empty.
            case required
            /// A value, length or count is below its minimum.
            case minimum
            /// A value, length or count is above its maximum.
            case maximum
            /// A string does not match its pattern.
            case regex
            /// A deleted object's relationship with the `deny` rule still holds objects.
            case deny
            /// A custom validator (``ObjectHooks/validate(_:_:)``, or a class's
            /// ``ManagedObject/validateForInsert()`` and its family) refused the object.
            case custom
        }

        /// The object at fault.
        public let objectID: ObjectID
        /// The attribute or relationship at fault; `nil` when a custom validator refused the
        /// object as a whole.
        public let key: String?
        /// The rule it broke.
        public let rule: Rule
        /// What is wrong, with the value and the bound.
        public let message: String

        /// Creates a failure.
        public init(objectID: ObjectID, key: String?, rule: Rule, message: String) {
            self.objectID = objectID
            self.key = key
            self.rule = rule
            self.message = message
        }

        public var description: String { key.map { "\(objectID).\($0): \(message)" } ?? "\(objectID): \(message)" }
    }

    /// Every value at fault, in object then attribute order.
    public let failures: [Failure]

    /// Creates an error.
    public init(failures: [Failure]) {
        self.failures = failures
    }

    public var description: String {
        "validation failed for \(failures.count) value\(failures.count == 1 ? "" : "s"); nothing was saved:\n"
            + failures.map { "  - \($0)" }.joined(separator: "\n")
    }
}
