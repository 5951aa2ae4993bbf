import Foundation
import Trove

/// Making the data set: `context.insert` + `setValue` + `save()` per chunk, against the same rows
/// inserted with one prepared statement on the C API in transactions of the same size, both into
/// a new store with Trove's default durability (WAL, `synchronous=FULL`).
enum InsertScenario: Scenario {
    static let name = "insert"
    static let summary = "insert rows in saves of 10,000: context.insert + save against prepared INSERTs on the C API"
    static let defaultRows = 100_000
    static let chunk = 10_000

    static func run(_ settings: Settings) throws -> ScenarioResult {
        let directory = settings.scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let troveURL = directory.appendingPathComponent("insert-trove.trove")
        let baselineURL = directory.appendingPathComponent("insert-baseline.trove")
        defer {
            PhotoData.removeStore(at: troveURL)
            PhotoData.removeStore(at: baselineURL)
        }
        let rows = settings.rows

        func troveRun() throws {
            PhotoData.removeStore(at: troveURL)
            let container = try Container(model: PhotoData.model, url: troveURL)
            let context = container.newBackgroundContext()
            for start in stride(from: 0, to: rows, by: chunk) {
                for index in start..<min(start + chunk, rows) {
                    let row = PhotoData.Row(index: index)
                    let photo = try context.insert("Photo")
                    try photo.setValue(row.id, forKey: "id")
                    try photo.setValue(row.title, forKey: "title")
                    try photo.setValue(row.views, forKey: "views")
                    try photo.setValue(Date(timeIntervalSinceReferenceDate: row.uploadDate), forKey: "uploadDate")
                    try photo.setValue(row.width, forKey: "width")
                    try photo.setValue(row.height, forKey: "height")
                    try photo.setValue(row.latitude, forKey: "latitude")
                    try photo.setValue(row.longitude, forKey: "longitude")
                    try photo.setValue(row.favorite, forKey: "favorite")
                }
                try context.save()
            }
        }
        func baselineRun() throws {
            PhotoData.removeStore(at: baselineURL)
            try PhotoData.createEmptyStore(at: baselineURL)
            let db = try RawDatabase(path: baselineURL.path)
            try db.execute("PRAGMA synchronous = FULL")
            for start in stride(from: 0, to: rows, by: chunk) {
                try db.execute("BEGIN IMMEDIATE")
                try PhotoData.insertRaw(rows: start..<min(start + chunk, rows), into: db)
                try db.execute("COMMIT")
            }
        }

        log("insert: \(rows) rows in saves of \(chunk)")
        let pair = try Measure.pair(settings, trove: troveRun, baseline: baselineRun)
        // Both stores hold the same rows.
        let trove = try SQLiteStore(url: troveURL, model: PhotoData.model)
        try PhotoData.verify(Container(store: trove).newBackgroundContext(), rows: rows)
        let count = try trove.count(of: "Photo")
        guard count == rows else { throw SQLiteFailure(description: "Trove's store holds \(count) rows, not \(rows)") }

        let measurement = Measurement(
            variant: "insert + save per \(chunk) rows (synchronous=FULL)", rows: rows, operations: rows,
            trove: pair.trove, baseline: pair.baseline, goal: nil,
            trovePeakRSSMiB: Memory.mebibytes(pair.trovePeakRSS), baselinePeakRSSMiB: Memory.mebibytes(pair.baselinePeakRSS))
        let notes = [String(format: "%.0f rows/s through Trove, %.0f rows/s on the C API",
                            Double(rows) / pair.trove.median, Double(rows) / pair.baseline.median)]
        return ScenarioResult(scenario: name, rows: rows, repetitions: settings.repetitions, warmups: settings.warmups,
                              peakRSSIsPerSide: Memory.resetPeak(), measurements: [measurement], notes: notes)
    }
}
