import Foundation
import Testing
import TroveStore
import TroveTesting

/// The store conformance suite on the SQLite store, each check on a new file. SQLite refuses
/// nothing: it is the reference the other stores' answers are compared with.
@Suite struct ConformanceTests {
    @Test(arguments: StoreConformance.checks) func sqliteConforms(_ check: StoreConformance.Check) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("conformance.trove")
        let report = try check.run(StoreConformance.Fixture { model in try SQLiteStore(url: url, model: model) })
        #expect(report.refused.isEmpty, "SQLite refused \(report.refused)")
    }
}
