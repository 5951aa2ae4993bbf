import Foundation
import GRDBSQLite
import Trove

/// A batch delete and a batch update of half the rows, selected by a predicate, through a
/// context (`execute(BatchDeleteRequest)`, `execute(BatchUpdateRequest)`: the IDs gathered, the
/// save event posted) against the plain statement on SQLite's C API (`DELETE … WHERE views < ?`,
/// `UPDATE … SET title = ?, _version = _version + 1 WHERE views < ?`) in one transaction, both
/// with foreign keys on and `synchronous=FULL`, as Trove opens a store.
///
/// Each run works on a fresh copy of the cached data set (the copy is not timed).
enum BatchScenario: Scenario {
    static let name = "batch"
    static let summary = "delete and update half the rows by predicate in SQL, against the same statement on the C API"
    static let defaultRows = 1_000_000

    static func run(_ settings: Settings) throws -> ScenarioResult {
        let source = try PhotoData.cachedStore(rows: settings.rows, scratch: settings.scratch, log: log)
        // The copies it changes go to the temporary folder: the data set's folder may be shared.
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("trove-batch-\(ProcessInfo.processInfo.processIdentifier).trove")
        defer { PhotoData.removeStore(at: work) }
        // The views value below which half the rows lie.
        let median: Int64 = try {
            let db = try RawDatabase(path: source.path)
            let statement = try db.prepare("SELECT \"views\" FROM \"Photo\" ORDER BY \"views\" LIMIT 1 OFFSET \(settings.rows / 2)")
            guard try statement.step() else { throw SQLiteFailure(description: "no median of views") }
            return statement.int64(0)
        }()

        func fresh() throws {
            PhotoData.removeStore(at: work)
            try FileManager.default.copyItem(at: source, to: work)
        }
        /// Times `body` on what `open` opened on a fresh copy (copied and opened before, outside the time).
        func timed<Connection>(open: () throws -> Connection, _ body: (Connection) throws -> Int) throws -> (seconds: Double, peak: Int?, count: Int) {
            try fresh()
            let connection = try open()
            Memory.resetPeak()
            var count = 0
            let seconds = try Measure.seconds { count = try body(connection) }
            return (seconds, Memory.peakRSS(), count)
        }

        var results: [Measurement] = []
        var counts: [String: Int] = [:]
        let variants: [(name: String, trove: (ObjectContext) throws -> Int, sql: String, values: [AttributeValue])] = [
            ("delete half the rows (views < median)", { context in
                try context.execute(BatchDeleteRequest(entityName: "Photo", where: "views < %d", median)).count
            }, "DELETE FROM \"Photo\" WHERE \"views\" < ?", [.integer(median)]),
            ("update half the rows (views < median): set title", { context in
                try context.updateAll("Photo", where: "views < %d", median, set: ["title": "Batch"])
            }, "UPDATE \"Photo\" SET \"title\" = ?, \"_version\" = \"_version\" + 1 WHERE \"views\" < ?", [.string("Batch"), .integer(median)]),
        ]
        for variant in variants where settings.includes(variant.name) {
            var trove = Measure.Outcome(name: Measure.Side.troveDynamic, isTrove: true, timing: Timing(samples: []), peakRSS: nil)
            var baseline = Measure.Outcome(name: Measure.Side.cAPI, isTrove: false, timing: Timing(samples: []), peakRSS: nil)
            func runTrove(measured: Bool) throws {
                let run = try timed(open: { try ObjectContext(store: SQLiteStore(url: work, model: PhotoData.model)) }, variant.trove)
                counts["trove"] = run.count
                if measured { trove.timing.samples.append(run.seconds) }
                trove.peakRSS = max(trove.peakRSS ?? 0, run.peak ?? 0)
            }
            func runBaseline(measured: Bool) throws {
                let run = try timed(open: {
                    let db = try RawDatabase(path: work.path)
                    try db.execute("PRAGMA foreign_keys = ON")
                    try db.execute("PRAGMA synchronous = FULL")
                    return db
                }) { db in
                    try db.execute("BEGIN IMMEDIATE")
                    let statement = try db.prepare(variant.sql)
                    try statement.bind(variant.values)
                    while try statement.step() {}
                    let changed = Int(sqlite3_changes(db.handle))
                    try db.execute("COMMIT")
                    return changed
                }
                counts["baseline"] = run.count
                if measured { baseline.timing.samples.append(run.seconds) }
                baseline.peakRSS = max(baseline.peakRSS ?? 0, run.peak ?? 0)
            }
            for round in 0..<(settings.warmups + settings.repetitions) {
                let measured = round >= settings.warmups
                // Alternating which side runs first, as the other scenarios do.
                if round % 2 == 0 {
                    try runTrove(measured: measured)
                    try runBaseline(measured: measured)
                } else {
                    try runBaseline(measured: measured)
                    try runTrove(measured: measured)
                }
            }
            guard counts["trove"] == counts["baseline"] else {
                throw SQLiteFailure(description: "\(variant.name): the sides changed different numbers of rows: \(counts)")
            }
            log("batch: \(variant.name): \(counts["trove"] ?? 0) rows")
            results += Measure.measurements([trove, baseline], variant: variant.name, rows: settings.rows,
                                            operations: counts["trove"] ?? 0, goal: 1.5, details: ["baselineSQL": variant.sql])
        }
        return ScenarioResult(scenario: name, rows: settings.rows, repetitions: settings.repetitions, warmups: settings.warmups,
                              peakRSSIsPerSide: Memory.resetPeak(), measurements: results,
                              notes: ["each run on a fresh copy of the data set (not timed); stores and connections are opened before the time starts",
                                      "the baseline opens a connection and runs the statement in BEGIN IMMEDIATE … COMMIT, foreign keys on, synchronous=FULL"])
    }
}
