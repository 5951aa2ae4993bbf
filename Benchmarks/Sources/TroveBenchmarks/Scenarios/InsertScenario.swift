import Foundation
import Trove

/// Making the data set: `context.insert` + setting every attribute + `save()` per chunk —
/// through the dynamic API and through a generated class — against the same rows inserted with
/// one prepared statement on the C API, and with GRDB records, in transactions of the same
/// size, all into a new store with Trove's default durability (WAL, `synchronous=FULL`).
enum InsertScenario: Scenario {
    static let name = "insert"
    static let summary = "insert rows in saves of 10,000: context.insert + save against prepared INSERTs on the C API and GRDB records"
    static let defaultRows = 100_000
    static let chunk = 10_000

    static func run(_ settings: Settings) throws -> ScenarioResult {
        let directory = settings.scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func url(_ name: String) -> URL { directory.appendingPathComponent("insert-\(name).trove") }
        let (dynamicURL, typedURL, baselineURL, grdbURL) = (url("trove"), url("typed"), url("baseline"), url("grdb"))
        defer {
            for url in [dynamicURL, typedURL, baselineURL, grdbURL] { PhotoData.removeStore(at: url) }
        }
        let rows = settings.rows

        func dynamicRun() throws {
            PhotoData.removeStore(at: dynamicURL)
            let container = try Container(model: PhotoData.model, url: dynamicURL)
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
        func typedRun() throws {
            PhotoData.removeStore(at: typedURL)
            let container = try Container(model: PhotoData.model, url: typedURL, classes: [Photo.self])
            let context = container.newBackgroundContext()
            for start in stride(from: 0, to: rows, by: chunk) {
                for index in start..<min(start + chunk, rows) {
                    let row = PhotoData.Row(index: index)
                    let photo = try context.insert(Photo.self)
                    photo.id = row.id
                    photo.title = row.title
                    photo.views = row.views
                    photo.uploadDate = Date(timeIntervalSinceReferenceDate: row.uploadDate)
                    photo.width = Int32(row.width)
                    photo.height = Int32(row.height)
                    photo.latitude = row.latitude
                    photo.longitude = row.longitude
                    photo.favorite = row.favorite
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
        func grdbRun() throws {
            PhotoData.removeStore(at: grdbURL)
            try PhotoData.createEmptyStore(at: grdbURL)
            let store = try GRDBStore(url: grdbURL)
            for start in stride(from: 0, to: rows, by: chunk) {
                try store.insert(rows: start..<min(start + chunk, rows))
            }
        }

        log("insert: \(rows) rows in saves of \(chunk)")
        let outcomes = try Measure.rotation(settings, [
            .init(name: Measure.Side.troveDynamic, isTrove: true, run: dynamicRun),
            .init(name: Measure.Side.troveTyped, isTrove: true, run: typedRun),
            .init(name: Measure.Side.cAPI, isTrove: false, run: baselineRun),
            .init(name: Measure.Side.grdb, isTrove: false, run: grdbRun),
        ])
        // Every store holds the same rows.
        for url in [dynamicURL, typedURL, grdbURL] {
            let store = try SQLiteStore(url: url, model: PhotoData.model)
            try PhotoData.verify(Container(store: store).newBackgroundContext(), rows: rows)
            let count = try store.count(of: "Photo")
            guard count == rows else { throw SQLiteFailure(description: "\(url.lastPathComponent) holds \(count) rows, not \(rows)") }
        }

        let measurements = Measure.measurements(
            outcomes, variant: "insert + save per \(chunk) rows (synchronous=FULL)", rows: rows, operations: rows, goal: 1.5)
        let notes = [outcomes.map { "\($0.name) " + String(format: "%.0f rows/s", Double(rows) / $0.timing.median) }
            .joined(separator: ", ")]
        return ScenarioResult(scenario: name, rows: rows, repetitions: settings.repetitions, warmups: settings.warmups,
                              peakRSSIsPerSide: Memory.resetPeak(), measurements: measurements, notes: notes)
    }
}
