public import TroveModel

/// A store could not be created, opened, read or written.
///
/// Match on ``code``; ``message`` says what was wrong, where, and what to do.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case alreadyExists, notFound, notATroveStore, unsupportedFormat, modelMismatch,
                 constraintViolation, corruptValue, unknownEntity, busy, fileAccess, readOnly, sqlite, migrationBlocked,
                 unreachable, server
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// `create` was asked for a store file that exists already.
        public static let alreadyExists = Code(.alreadyExists)
        /// No store file at the path.
        public static let notFound = Code(.notFound)
        /// The file is not SQLite, or SQLite without Trove's metadata.
        public static let notATroveStore = Code(.notATroveStore)
        /// The store was written by a newer Trove with a format this one does not read.
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// The store was created with another model; the message lists the differences.
        public static let modelMismatch = Code(.modelMismatch)
        /// A write broke a uniqueness or reference constraint.
        public static let constraintViolation = Code(.constraintViolation)
        /// A stored value cannot be read as its attribute's type.
        public static let corruptValue = Code(.corruptValue)
        /// A request named an entity that the model does not have.
        public static let unknownEntity = Code(.unknownEntity)
        /// Another process is writing to the store and did not finish within
        /// ``SQLiteStore/Options/busyTimeout``; nothing was written. Retryable: try again.
        public static let busy = Code(.busy)
        /// A file beside the store (its write-lock file `STORE-lock`) could not be created or
        /// opened: check the folder's permissions.
        public static let fileAccess = Code(.fileAccess)
        /// A write was asked of a store that cannot be written: opened with
        /// ``SQLiteStore/Options/readOnly``, or its file, its folder or the disk is read-only.
        public static let readOnly = Code(.readOnly)
        /// A migration to a new model cannot run as the data stands; the message lists each
        /// blocking change with its path in the model file and what to do. Nothing was changed.
        public static let migrationBlocked = Code(.migrationBlocked)
        /// SQLite reported an error (I/O, full disk, …); the message has SQLite's words.
        public static let sqlite = Code(.sqlite)
        /// A database server could not be reached, refused the credentials, or the connection
        /// to it was lost; the message names the server (never the password). Retryable once
        /// the server is back.
        public static let unreachable = Code(.unreachable)
        /// A database server reported an error (not one of the codes above); the message has
        /// its words and its SQLSTATE.
        public static let server = Code(.server)

        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What was wrong, where, and what to do.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// A save found rows that changed or vanished since they were read (optimistic locking).
public struct ConflictError: Error, Sendable, CustomStringConvertible {
    /// One row that failed its version check.
    public struct Conflict: Sendable, Hashable {
        /// The row's ID.
        public let objectID: ObjectID
        /// The version the saving context had read.
        public let expectedVersion: Int64
        /// The version in the store now; `nil` when the row was deleted.
        public let storeVersion: Int64?
        /// The attributes the saving context changed (filled in by the context).
        public let changedKeys: [String]
        /// The object's attribute values in the store now; `nil` when the row was deleted
        /// (filled in by the context).
        public let storeValues: [String: AttributeValue]?
        /// The object's attribute values in the saving context (filled in by the context).
        public let contextValues: [String: AttributeValue]

        /// Creates a conflict.
        public init(objectID: ObjectID, expectedVersion: Int64, storeVersion: Int64?, changedKeys: [String] = [],
                    storeValues: [String: AttributeValue]? = nil, contextValues: [String: AttributeValue] = [:]) {
            self.objectID = objectID
            self.expectedVersion = expectedVersion
            self.storeVersion = storeVersion
            self.changedKeys = changedKeys
            self.storeValues = storeValues
            self.contextValues = contextValues
        }
    }

    /// Every conflicting row.
    public let conflicts: [Conflict]

    /// Creates an error.
    public init(conflicts: [Conflict]) {
        self.conflicts = conflicts
    }

    public var description: String {
        let lines = conflicts.map { c in
            var line = c.storeVersion.map { "  - \(c.objectID): read at version \(c.expectedVersion), the store has version \($0)" }
                ?? "  - \(c.objectID): read at version \(c.expectedVersion), deleted from the store since"
            for key in c.changedKeys {
                let mine = c.contextValues[key].map(\.description) ?? "?"
                let theirs = c.storeValues.map { $0[key].map(\.description) ?? "?" } ?? "deleted"
                line += "\n      \(key): this context has \(mine), the store has \(theirs)"
            }
            return line
        }
        return "save conflict: \(conflicts.count) object\(conflicts.count == 1 ? "" : "s") changed in the store since they were read; refresh them and save again:\n"
            + lines.joined(separator: "\n")
    }
}
