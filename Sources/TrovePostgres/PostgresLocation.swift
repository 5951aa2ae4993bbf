public import Foundation
import TroveStore

/// Where a PostgreSQL store lives: a server (host and port, or a Unix socket folder), a user, a
/// password and a database, read from a `postgres://` URL and, for what the URL leaves out, from
/// the usual `PG*` environment variables.
///
/// ```
/// postgres://USER:PASSWORD@HOST:PORT/DATABASE
/// postgres:///DATABASE?host=/var/run/postgresql        (a Unix socket folder)
/// ```
///
/// What the URL leaves out comes from `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD` and
/// `PGDATABASE`, then from the defaults: `localhost`, 5432, the user `postgres`, no password,
/// and a database named as the user. ``description`` never shows the password.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// The server's host name or address; `nil` when ``socketFolder`` is used.
    public let host: String?
    /// The server's port (also the number in the socket file's name).
    public let port: Int
    /// The folder holding the server's Unix socket `.s.PGSQL.PORT`, when connecting through it.
    public let socketFolder: String?
    /// The user to connect as.
    public let user: String
    /// The password, if any (never printed).
    let password: String?
    /// The database.
    public let database: String
    /// The schema the store's tables are in, when not the user's default (`search_path`): a
    /// scratch copy's (``PostgresStore/withScratchCopy(_:)``).
    let schema: String?

    /// Whether `text` names a PostgreSQL store (`postgres://` or `postgresql://`) rather than a file.
    public static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Reads a location from a `postgres://` URL, completed from `environment` (the process's
    /// by default).
    /// - Throws: ``StoreError/Code/notFound`` when `text` is not a `postgres://` URL or has a
    ///   port that is not a number.
    public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard Self.isPostgresURL(text), let components = URLComponents(string: text) else {
            throw StoreError(.notFound, "'\(Self.redacted(text))' is not a PostgreSQL URL; write postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let hostText = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? query["host"] ?? environment["PGHOST"] ?? "localhost"
        let portText = components.port.map(String.init) ?? query["port"] ?? environment["PGPORT"] ?? "5432"
        guard let port = Int(portText), (1...65_535).contains(port) else {
            throw StoreError(.notFound, "the port '\(portText)' of \(Self.redacted(text)) is not a port number")
        }
        self.port = port
        if hostText.hasPrefix("/") {
            (host, socketFolder) = (nil, hostText)
        } else {
            (host, socketFolder) = (hostText, nil)
        }
        user = components.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding } ?? environment["PGUSER"] ?? "postgres"
        password = components.password.flatMap { $0.removingPercentEncoding } ?? environment["PGPASSWORD"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? environment["PGDATABASE"] ?? user : path.removingPercentEncoding ?? path
        schema = nil
    }

    /// The same server and credentials, another database.
    public func database(_ name: String) -> PostgresLocation {
        PostgresLocation(host: host, port: port, socketFolder: socketFolder, user: user, password: password, database: name, schema: nil)
    }

    /// The same database, its schema `name`.
    func schema(_ name: String) -> PostgresLocation {
        PostgresLocation(host: host, port: port, socketFolder: socketFolder, user: user, password: password, database: database, schema: name)
    }

    private init(host: String?, port: Int, socketFolder: String?, user: String, password: String?, database: String, schema: String?) {
        self.host = host
        self.port = port
        self.socketFolder = socketFolder
        self.user = user
        self.password = password
        self.database = database
        self.schema = schema
    }

    /// `postgres://USER@HOST:PORT/DATABASE`, without the password.
    public var description: String {
        let inSchema = schema.map { " (schema \($0))" } ?? ""
        if let socketFolder { return "postgres://\(user)@/\(database)?host=\(socketFolder)&port=\(port)" + inSchema }
        return "postgres://\(user)@\(host ?? "localhost"):\(port)/\(database)" + inSchema
    }

    /// `text` — a `postgres://` URL as given, parsed or not — with any password replaced by
    /// `***`, for messages that name it. The password ends at the last `@`, so that one holding
    /// an `@` or a `/` the URL failed to percent-encode is hidden whole.
    public static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@"),
              let colon = text[scheme.upperBound..<at].firstIndex(of: ":") else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
    }
}
