import Foundation
import Testing
import TrovePostgres
import TroveTesting

/// The store conformance suite on the PostgreSQL store, each check on a new database.
@Suite(.enabled(if: PostgresServer.isConfigured, PostgresServer.skipMessage))
struct PostgresConformanceTests {
    @Test(arguments: StoreConformance.checks) func postgresConforms(_ check: StoreConformance.Check) throws {
        let database = try TemporaryDatabase()
        let location = database.location
        let report = try check.run(StoreConformance.Fixture { model in try PostgresStore(location: location, model: model) })
        // Nothing refused: every predicate and sort gives SQLite's answer.
        #expect(report.refused.isEmpty, "refused \(report.refused)")
        withExtendedLifetime(database) {}
    }
}
