public import Foundation

/// A document could not be opened, created, saved or closed: what was wrong, at which path,
/// and what to do. Store failures (a locked or damaged store, a store of another model) are
/// thrown as the store's `StoreError`; invalid changes as ``ValidationError`` or ``ObjectError``.
public struct DocumentError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case notFound, alreadyExists, notADocument, unsupportedFormat, notOpen, alreadyOpen, inConflict, notInConflict
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Nothing is at the document's URL: ``Document/create()`` it.
        public static let notFound = Code(.notFound)
        /// Something is already at the URL given to ``Document/create()``: ``Document/open()``
        /// it, or choose another URL. Nothing was changed.
        public static let alreadyExists = Code(.alreadyExists)
        /// What is at the URL is not a document package (a plain file, or a folder without a
        /// readable `Document.json` or without its store). Nothing was changed.
        public static let notADocument = Code(.notADocument)
        /// The package was written by a newer version of Trove (its `formatVersion` is higher
        /// than ``Document/formatVersion``): open it with that version.
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// The document is closed (or being opened): open or create it first.
        public static let notOpen = Code(.notOpen)
        /// The document is open already, or being opened or created: close it first.
        public static let alreadyOpen = Code(.alreadyOpen)
        /// The document has conflicts with saves made elsewhere (``Document/conflicts``), so it
        /// does not save: resolve them first. Nothing was written.
        public static let inConflict = Code(.inConflict)
        /// The object named has no conflict (``Document/conflicts`` lists those that do).
        public static let notInConflict = Code(.notInConflict)

        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// The document's URL.
    public let url: URL
    /// What was wrong and what to do.
    public let message: String

    init(_ code: Code, _ url: URL, _ message: String) {
        self.code = code
        self.url = url
        self.message = message
    }

    public var description: String { "\(url.path): \(message)" }
}
