public import Foundation
import TroveModel
import TroveStore

/// The `Document.json` of a document package: small facts about the document, apart from
/// the store (the store's own metadata holds what must change with its data).
struct DocumentMetadata: Codable, Sendable {
    /// The package layout's version (``Document/formatVersion`` when written).
    var formatVersion: Int
    /// The ``Model/versionHash`` of the model the document was created with (for tools; the
    /// store checks the model itself when it opens).
    var modelVersionHash: String
    /// When the document was created.
    var created: Date
}

extension Document {
    /// The store file of the document package at `url` (its `Store.sqlite`), or `url` itself
    /// when it is not a package (a plain store file, or nothing yet): what a tool that takes a
    /// store path opens — `trove` does, so its commands work on documents too. Reads the disk.
    public nonisolated static func storeURL(for url: URL) -> URL {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.appending(path: DocumentPackage.metadataName).path),
              FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue else { return url }
        return url.appending(path: DocumentPackage.storeName)
    }
}

/// Reading, checking and making document packages on disk (off the main actor: these block).
enum DocumentPackage {
    static let metadataName = "Document.json"
    static let storeName = "Store.sqlite"

    /// Opens the store of the package at `url`, after checking the package.
    static func open(_ url: URL, model: Model, options: SQLiteStore.Options) throws -> SQLiteStore {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw DocumentError(.notFound, url, "no document here; create it with create()")
        }
        guard isFolder.boolValue else {
            throw DocumentError(.notADocument, url,
                "this is a file, not a document package (a folder holding \(metadataName) and \(storeName)); "
                + "open a plain store with Container(model:url:) instead")
        }
        let metadata = try readMetadata(url)
        guard metadata.formatVersion <= Document.formatVersion else {
            throw DocumentError(.unsupportedFormat, url,
                "the package's format version is \(metadata.formatVersion), this Trove reads up to \(Document.formatVersion); open it with a newer Trove")
        }
        let storeURL = url.appending(path: storeName)
        guard FileManager.default.fileExists(atPath: storeURL.path) else {
            throw DocumentError(.notADocument, url, "the package has no \(storeName): its data is gone; restore it from a copy")
        }
        return try SQLiteStore(url: storeURL, model: model, options: options)
    }

    /// Makes a new package at `url` with an empty store; on failure, removes what it made.
    static func create(_ url: URL, model: Model, options: SQLiteStore.Options, now: Date) throws -> SQLiteStore {
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw DocumentError(.alreadyExists, url, "something is here already; open it with open(), or create the document at another URL")
        }
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        do {
            let metadata = DocumentMetadata(formatVersion: Document.formatVersion, modelVersionHash: model.versionHash, created: now)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            try encoder.encode(metadata).write(to: url.appending(path: metadataName), options: .atomic)
            return try SQLiteStore(url: url.appending(path: storeName), model: model, options: options)
        } catch {
            try? FileManager.default.removeItem(at: url) // best effort: the first error is the one to report
            throw error
        }
    }

    /// The package's metadata.
    /// - Throws: ``DocumentError`` `.notADocument` when it is missing or unreadable.
    static func readMetadata(_ url: URL) throws -> DocumentMetadata {
        let file = url.appending(path: metadataName)
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw DocumentError(.notADocument, url, "the folder has no \(metadataName), so it is not a document package; open a document package, or create one elsewhere")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(DocumentMetadata.self, from: data)
        } catch {
            throw DocumentError(.notADocument, url, "\(metadataName) is not a document's metadata (\(error)); restore it from a copy")
        }
    }
}
