import Foundation
import Testing
import TrovePostgres
import TroveStore

/// The PostgreSQL server the tests run against: `TROVE_POSTGRES_URL` names it (a user who may
/// create databases; `.ci/run` and `scripts/test` start one and set it). Without it the tests
/// are skipped, saying so — unless `TROVE_POSTGRES_REQUIRED` is set (as in CI), when they fail.
enum PostgresServer {
    static let url = ProcessInfo.processInfo.environment["TROVE_POSTGRES_URL"]
    static let isRequired = ProcessInfo.processInfo.environment["TROVE_POSTGRES_REQUIRED"] != nil

    /// Whether to run the tests: a server is named, or one is required (then a missing one fails).
    static var isConfigured: Bool { url != nil || isRequired }
    static let skipMessage: Comment = "no PostgreSQL server: set TROVE_POSTGRES_URL=postgres://USER@HOST:PORT/postgres (scripts/test starts one)"

    /// The server's location.
    static func location() throws -> PostgresLocation {
        guard let url else {
            throw StoreError(.unreachable, "TROVE_POSTGRES_REQUIRED is set but TROVE_POSTGRES_URL is not: start a server and name it")
        }
        return try PostgresLocation(url)
    }
}

/// A database of its own on the test server, dropped when the value goes away.
final class TemporaryDatabase {
    let location: PostgresLocation

    /// A new database; with `created: false`, only its name, for a test that creates it (it is
    /// dropped all the same).
    init(created: Bool = true) throws {
        let server = try PostgresServer.location()
        location = server.database("trove_test_\(UUID().uuidString.prefix(8).lowercased())")
        if created { try PostgresStore.createDatabase(at: location) }
    }

    /// The database's URL, as `trove` takes it, with `password` when given (the test server
    /// trusts local connections: it ignores one).
    func url(password: String? = nil) -> String {
        let user = password.map { "\(location.user):\($0)" } ?? location.user
        return "postgres://\(user)@\(location.host ?? "127.0.0.1"):\(location.port)/\(location.database)"
    }

    deinit {
        // WITH (FORCE) ends stores a failed test left open; a database left behind is only litter.
        _ = try? PostgresStore.administer("DROP DATABASE IF EXISTS \"\(location.database)\" WITH (FORCE)", on: location)
    }
}
