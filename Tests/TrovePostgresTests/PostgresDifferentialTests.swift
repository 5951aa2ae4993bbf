import Foundation
import Testing
import Trove
import TrovePostgres
import TroveTesting

/// The differential suite's predicates on PostgreSQL: every case selects the same objects, in the
/// same order, as on SQLite (whose own suite checks it against the in-memory evaluator and the
/// hand counts), or is refused with a typed error naming what PostgreSQL cannot run yet — never a
/// different answer.
@Suite(.enabled(if: PostgresServer.isConfigured, PostgresServer.skipMessage))
struct PostgresDifferentialTests {
    /// Both stores, holding the differential data set.
    private func stores() throws -> (sqlite: ObjectContext, postgres: ObjectContext, keep: (TemporaryDirectory, TemporaryDatabase)) {
        let directory = try TemporaryDirectory()
        let sqlite = try DifferentialDataSet.makeContainer(at: directory.file("differential.trove")).newBackgroundContext()
        let database = try TemporaryDatabase()
        let postgres = try Container(store: PostgresStore(location: database.location, model: DifferentialDataSet.model()))
        try DifferentialDataSet.populate(postgres.newBackgroundContext())
        return (sqlite, postgres.newBackgroundContext(), (directory, database))
    }

    @Test func everyPredicateSelectsWhatSQLiteSelects() throws {
        let (sqlite, context, keep) = try stores()
        defer { withExtendedLifetime(keep) {} }
        var supported = 0
        var refused: [String] = []
        for test in DifferentialPredicates.all {
            var request = FetchRequest(entityName: test.entity, predicate: try test.predicate())
            request.includesPendingChanges = false
            let expected = try labels(sqlite.fetch(request))
            do {
                let selected = try labels(context.fetch(request))
                #expect(selected == expected, "\(test.entity) where \(test.format)")
                #expect(try context.count(for: request) == expected.count, "count of \(test.entity) where \(test.format)")
                supported += 1
            } catch let error as StoreError where error.code == .unsupportedFormat && error.message.contains("PostgreSQL") {
                refused.append(test.format)
            } catch {
                Issue.record(error, "\(test.entity) where \(test.format)")
            }
        }
        #expect(supported + refused.count == DifferentialPredicates.all.count)
        // Refused for now (11 of 394): MATCHES (ICU's regular expressions are not PostgreSQL's)
        // and [c] on a text @min/@max; the other 383 must run (a drop here is a regression).
        #expect(supported >= 383, "ran \(supported), refused \(refused.count): \(refused)")
    }

    /// Every sort of the suite gives SQLite's sequence — `[c]` and localized sorts through the
    /// kept text forms, nil first ascending — and the same windows of it.
    @Test func everySortGivesSQLitesOrder() throws {
        let (sqlite, context, keep) = try stores()
        defer { withExtendedLifetime(keep) {} }
        for test in DifferentialPredicates.sorts {
            for (limit, offset) in [(0, 0), (3, 0), (5, 4), (4, 100)] {
                var request = FetchRequest(entityName: test.entity, sortDescriptors: try SortKey.parse(test.sort))
                request.fetchLimit = limit
                request.fetchOffset = offset
                request.includesPendingChanges = false
                #expect(try labels(context.fetch(request)) == labels(sqlite.fetch(request)), "\(test.entity) by \(test.sort), limit \(limit) offset \(offset)")
            }
        }
    }

    /// Each object's first attribute (its id, name or label), in the fetch's order.
    private func labels(_ objects: some Sequence<ManagedObject>) throws -> [String] {
        try objects.map { object in
            let value = try object.value(forKey: object.entity.attributes[0].name)
            return value.text ?? "\(value)"
        }
    }
}
