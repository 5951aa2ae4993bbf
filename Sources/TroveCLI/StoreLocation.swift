import Foundation
import Trove
import TrovePostgres
import TroveStore

/// Where a command's store lives, read from its `STORE` argument: the one place that chooses
/// between an SQLite file and a PostgreSQL database.
enum StoreLocation {
    /// An SQLite store file (the one inside a document package, when the argument names one).
    case file(URL)
    /// A PostgreSQL database, credentials completed from the `PG*` variables.
    case postgres(PostgresLocation)

    /// Reads `argument`: a `postgres://` or `postgresql://` URL, or a file path.
    /// - Throws: ``StoreError`` (exit 3) for a URL of another scheme, or a PostgreSQL URL that
    ///   does not parse; messages show no password.
    init(_ argument: String) throws {
        if PostgresLocation.isPostgresURL(argument) {
            self = .postgres(try PostgresLocation(argument))
        } else if let scheme = argument.firstRange(of: "://").map({ argument[..<$0.lowerBound] }),
                  !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) {
            throw StoreError(.notFound, "'\(PostgresLocation.redacted(argument))' is a \(scheme): URL; STORE is a file path or a"
                + " postgres:// (postgresql://) URL such as postgres://USER@HOST:5432/DATABASE")
        } else {
            self = .file(Document.storeURL(for: URL(fileURLWithPath: argument)))
        }
    }

    /// Opens the store there with the model it keeps — for reading only when `readOnly` (an
    /// SQLite file is then opened read-only; a PostgreSQL store is only ever opened without
    /// creating anything, whatever `readOnly` says).
    func open(readOnly: Bool) throws -> any PersistentStore {
        switch self {
        case .file(let url): try SQLiteStore(url: url, options: SQLiteStore.Options(readOnly: readOnly))
        case .postgres(let location): try PostgresStore(location: location)
        }
    }

    /// Creates a store with `model`: a new file, or the tables in a database (made first when
    /// the server has none of that name) that holds nothing yet.
    /// - Throws: a ``CLIFailure`` (exit 3) when a store is there already; the store's error
    ///   otherwise. A failed creation leaves no file, and drops the database it made.
    func create(model: Model, name: String) throws -> any PersistentStore {
        switch self {
        case .file(let url):
            guard !FileManager.default.fileExists(atPath: url.path) else {
                throw CLIFailure(.storeError, "\(name) already exists; remove it or choose another path")
            }
            return try SQLiteStore(url: url, model: model)
        case .postgres(let location):
            let created = try PostgresStore.createDatabaseIfMissing(at: location)
            if !created {
                do {
                    _ = try PostgresStore(location: location)
                    throw CLIFailure(.storeError, "\(location) already holds a Trove store; drop the database or choose another")
                } catch let error as StoreError where error.code == .notFound {
                    // No store there yet: make one (a database holding other tables is refused below).
                }
            }
            do {
                return try PostgresStore(location: location, model: model)
            } catch {
                guard created else { throw error }
                do {
                    try PostgresStore.administer("DROP DATABASE IF EXISTS \(quoted(location.database))", on: location)
                } catch let dropError {
                    throw CLIFailure(.storeError, "\(error); the database \(location.database) made for it is left behind: \(dropError)")
                }
                throw error
            }
        }
    }

    /// The database engine holding `store` and its version, for `trove inspect`.
    static func engine(of store: any PersistentStore) throws -> (name: String, version: String) {
        switch store {
        case let store as SQLiteStore: ("SQLite", try store.sqliteVersion())
        case let store as PostgresStore: ("PostgreSQL", try store.serverVersion())
        default: (String(describing: type(of: store)), "?")
        }
    }
}
