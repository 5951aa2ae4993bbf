import Foundation
import Trove

/// Iterating every object of the data set through a batched fetch, touching one attribute of
/// each (dynamically and through a generated class), against stepping the same rows on the C
/// API and iterating a cursor of GRDB records. The number to watch is Trove's peak RSS,
/// compared across row counts by `trove-bench summarize` (run at 100k and 1M: it should be flat).
enum IterateScenario: Scenario {
    static let name = "iterate"
    static let summary = "iterate every row with fetchBatchSize 1000: time and peak RSS, against stepping the rows on the C API"
    static let defaultRows = 1_000_000
    static let batchSize = 1000

    static func run(_ settings: Settings) throws -> ScenarioResult {
        let url = try PhotoData.cachedStore(rows: settings.rows, scratch: settings.scratch, log: log)
        let store = try SQLiteStore(url: url, model: PhotoData.model)
        let container = try Container(store: store)
        try PhotoData.verify(container.newBackgroundContext(), rows: settings.rows)
        let typedContainer = try Container(store: store, classes: [Photo.self])
        let db = try RawDatabase(path: url.path)
        let grdb = try GRDBStore(url: url)

        var request = FetchRequest(entityName: "Photo")
        request.fetchBatchSize = batchSize
        // What Trove runs: first the IDs of every match, then each batch by primary key.
        let query = try StoreQuery(request, model: store.model)
        let idsStatement = try store.compiledFetch(query, selecting: .objectIDs)
        // The baseline reads the same rows in the same order, every column, one at a time.
        let rowsStatement = try store.compiledFetch(query, selecting: .objects)
        try RawPhoto.checkColumns(of: db.prepare(rowsStatement.sql))

        // Each side counts the rows it saw and sums their views.
        var tallies: [String: (count: Int, sum: Int64)] = [:]
        func tally(_ side: String, _ body: (inout Int, inout Int64) throws -> Void) rethrows {
            var count = 0
            var sum: Int64 = 0
            try body(&count, &sum)
            tallies[side] = (count, sum)
        }
        func dynamicRun() throws {
            try tally(Measure.Side.troveDynamic) { count, sum in
                let context = container.newBackgroundContext()
                for photo in try context.fetch(request) {
                    sum &+= try photo.value(forKey: "views", as: Int64.self) ?? 0
                    count += 1
                }
            }
        }
        func typedRun() throws {
            try tally(Measure.Side.troveTyped) { count, sum in
                let context = typedContainer.newBackgroundContext()
                for photo in try context.fetch(request, as: Photo.self) {
                    sum &+= photo.views
                    count += 1
                }
            }
        }
        func baselineRun() throws {
            try tally(Measure.Side.cAPI) { count, sum in
                let statement = try db.prepare(rowsStatement.sql)
                try statement.bind(rowsStatement.arguments)
                while try statement.step() {
                    let photo = RawPhoto(statement)
                    sum &+= photo.views ?? 0
                    count += 1
                }
            }
        }
        func grdbRun() throws {
            try tally(Measure.Side.grdb) { count, sum in
                try grdb.forEachPhoto { photo in
                    sum &+= photo.views ?? 0
                    count += 1
                }
            }
        }

        log("iterate: \(settings.rows) rows, batch size \(batchSize)")
        let outcomes = try Measure.rotation(settings, [
            .init(name: Measure.Side.troveDynamic, isTrove: true, run: dynamicRun),
            .init(name: Measure.Side.troveTyped, isTrove: true, run: typedRun),
            .init(name: Measure.Side.cAPI, isTrove: false, run: baselineRun),
            .init(name: Measure.Side.grdb, isTrove: false, run: grdbRun),
        ])
        // (Every side that ran: `--side` may time only some.)
        let expected = tallies.values.first ?? (0, 0)
        guard expected.count == settings.rows, tallies.values.allSatisfy({ $0 == expected }) else {
            throw SQLiteFailure(description: "the sides saw different rows (count, sum of views): \(tallies)")
        }
        let measurements = Measure.measurements(
            outcomes, variant: "all rows, fetchBatchSize \(batchSize), read views", rows: settings.rows, operations: settings.rows,
            goal: 2, details: ["idsSQL": idsStatement.sql, "rowsSQL": rowsStatement.sql, "batchSize": String(batchSize)])
        let notes = [
            "Trove runs first: \(idsStatement.sql)",
            "then per batch: SELECT … WHERE \"t\".\"_pk\" IN (?, …) (500 keys a statement)",
            "the baseline steps: \(rowsStatement.sql)",
            "µs per object: " + outcomes.map { "\($0.name) " + String(format: "%.2f", $0.timing.median / Double(settings.rows) * 1e6) }
                .joined(separator: ", "),
        ]
        return ScenarioResult(scenario: name, rows: settings.rows, repetitions: settings.repetitions, warmups: settings.warmups,
                              peakRSSIsPerSide: Memory.resetPeak(), measurements: measurements, notes: notes)
    }
}
