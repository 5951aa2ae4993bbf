import Foundation
import Trove

/// Iterating every object of the data set through a batched fetch, touching one attribute of
/// each, against stepping the same rows on the C API. The number to watch is Trove's peak RSS,
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
        let db = try RawDatabase(path: url.path)

        var request = FetchRequest(entityName: "Photo")
        request.fetchBatchSize = batchSize
        // What Trove runs: first the IDs of every match, then each batch by primary key.
        let query = try StoreQuery(request, model: store.model)
        let idsStatement = try store.compiledFetch(query, selecting: .objectIDs)
        // The baseline reads the same rows in the same order, every column, one at a time.
        let rowsStatement = try store.compiledFetch(query, selecting: .objects)
        try RawPhoto.checkColumns(of: db.prepare(rowsStatement.sql))

        var troveSum: Int64 = 0
        var troveCount = 0
        func troveRun() throws {
            troveSum = 0
            troveCount = 0
            let context = container.newBackgroundContext()
            for photo in try context.fetch(request) {
                troveSum &+= try photo.value(forKey: "views", as: Int64.self) ?? 0
                troveCount += 1
            }
        }
        var baselineSum: Int64 = 0
        var baselineCount = 0
        func baselineRun() throws {
            baselineSum = 0
            baselineCount = 0
            let statement = try db.prepare(rowsStatement.sql)
            try statement.bind(rowsStatement.arguments)
            while try statement.step() {
                let photo = RawPhoto(statement)
                baselineSum &+= photo.views ?? 0
                baselineCount += 1
            }
        }

        log("iterate: \(settings.rows) rows, batch size \(batchSize)")
        let pair = try Measure.pair(settings, trove: troveRun, baseline: baselineRun)
        guard troveCount == settings.rows, baselineCount == settings.rows, troveSum == baselineSum else {
            throw SQLiteFailure(description: "Trove saw \(troveCount) rows (sum of views \(troveSum)), the baseline \(baselineCount) (\(baselineSum))")
        }
        let measurement = Measurement(
            variant: "all rows, fetchBatchSize \(batchSize), read views", rows: settings.rows, operations: settings.rows,
            trove: pair.trove, baseline: pair.baseline, goal: nil,
            trovePeakRSSMiB: Memory.mebibytes(pair.trovePeakRSS), baselinePeakRSSMiB: Memory.mebibytes(pair.baselinePeakRSS),
            details: ["idsSQL": idsStatement.sql, "rowsSQL": rowsStatement.sql, "batchSize": String(batchSize)])
        let notes = [
            "Trove runs first: \(idsStatement.sql)",
            "then per batch: SELECT … WHERE \"t\".\"_pk\" IN (?, …) (500 keys a statement)",
            "the baseline steps: \(rowsStatement.sql)",
            String(format: "%.2f µs per object through Trove, %.2f µs per row on the C API",
                   pair.trove.median / Double(settings.rows) * 1e6, pair.baseline.median / Double(settings.rows) * 1e6),
        ]
        return ScenarioResult(scenario: name, rows: settings.rows, repetitions: settings.repetitions, warmups: settings.warmups,
                              peakRSSIsPerSide: Memory.resetPeak(), measurements: [measurement], notes: notes)
    }
}
