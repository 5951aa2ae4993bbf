import Foundation
import Trove

/// A predicate + sort + limit fetch over the data set: Trove's `context.fetch` (reading one
/// attribute of each result), dynamically and as generated classes, against the very SQL Trove
/// generates run on SQLite's C API, and against GRDB records fetched with GRDB's query interface.
enum FetchScenario: Scenario {
    static let name = "fetch"
    static let summary = "predicate + sort + limit fetches: Trove's context.fetch against the same SQL on the C API"
    static let defaultRows = 1_000_000

    /// One kind of fetch, run `operations` times per timed run (with different arguments when
    /// `arguments` uses the operation number).
    struct Variant {
        var name: String
        var format: String
        var arguments: (Int) -> [any PredicateArgument]
        var sort: [SortKey]
        var limit: Int
        var operations: Int
        /// The goal against the C API.
        var goal: Double
        /// The same request for GRDB's records.
        var grdb: (Int) -> GRDBStore.Filter
    }

    static func variants(rows: Int) -> [Variant] {
        // Upload dates from 2020-01-01T00:00:00Z (a third of the data), views above 900,000 (a tenth).
        let since2020 = Date(timeIntervalSinceReferenceDate: 599_529_600)
        let byViews = [SortKey("views", ascending: false)]
        // Rows spread over the whole table, the same on every run.
        func spread(_ op: Int) -> Int { Int((UInt64(op) &* 2_654_435_761) % UInt64(rows)) }
        return [
            Variant(name: "scan: views > %d AND uploadDate > %@, sort -views, limit 100",
                    format: "views > %d AND uploadDate > %@", arguments: { _ in [900_000, since2020] },
                    sort: byViews, limit: 100, operations: 1, goal: 1.3,
                    grdb: { _ in .viewsAndDate(views: 900_000, since: since2020.timeIntervalSinceReferenceDate) }),
            Variant(name: "unique id: id == %@, sort -views, limit 100",
                    format: "id == %@", arguments: { op in [PhotoData.id(spread(op))] },
                    sort: byViews, limit: 100, operations: 1000, goal: 1.5,
                    grdb: { op in .id(PhotoData.id(spread(op))) }),
            Variant(name: "unique ids: id IN %@ (100 ids), sort -views, limit 100",
                    format: "id IN %@", arguments: { op in [(0..<100).map { PhotoData.id(spread(op * 100 + $0)) }] },
                    sort: byViews, limit: 100, operations: 100, goal: 1.3,
                    grdb: { op in .ids((0..<100).map { PhotoData.id(spread(op * 100 + $0)) }) }),
        ]
    }

    static func run(_ settings: Settings) throws -> ScenarioResult {
        let url = try PhotoData.cachedStore(rows: settings.rows, scratch: settings.scratch, log: log)
        let store = try SQLiteStore(url: url, model: PhotoData.model)
        let container = try Container(store: store)
        try PhotoData.verify(container.newBackgroundContext(), rows: settings.rows)
        let typedContainer = try Container(store: store, classes: [Photo.self])
        let db = try RawDatabase(path: url.path)
        let grdb = try GRDBStore(url: url)

        var measurements: [Measurement] = []
        var notes: [String] = []
        for variant in variants(rows: settings.rows) where settings.includes(variant.name) {
            log("fetch: \(variant.name)")
            // Each operation's arguments, made before the clock starts (as the baseline's are):
            // formatting the benchmark's ids is not the work measured.
            let arguments = (0..<variant.operations).map(variant.arguments)
            let filters = (0..<variant.operations).map(variant.grdb)
            func request(_ op: Int) throws -> FetchRequest {
                var request = FetchRequest(entityName: "Photo",
                                           predicate: try ObjectPredicate(format: variant.format, arguments: arguments[op]),
                                           sortDescriptors: variant.sort)
                request.fetchLimit = variant.limit
                return request
            }
            // What Trove runs for each operation, compiled before the clock starts: the
            // baseline runs exactly this SQL with exactly these arguments.
            let compiled = try (0..<variant.operations).map {
                try store.compiledFetch(StoreQuery(request($0), model: store.model))
            }
            let sql = compiled[0].sql
            guard compiled.allSatisfy({ $0.sql == sql }) else {
                throw SQLiteFailure(description: "Trove generated different SQL texts for one variant")
            }

            // Trove: parse the predicate, fetch, read `title` of every result.
            var touched = 0
            var troveKeys: [Int64] = []
            func dynamicRun(recording: Bool) throws {
                let context = container.newBackgroundContext()
                for op in 0..<variant.operations {
                    let results = try context.fetch(request(op))
                    for object in results {
                        touched &+= try object.value(forKey: "title", as: String.self)?.utf8.count ?? 0
                    }
                    if recording { troveKeys += results.objectIDs.compactMap(\.primaryKey) }
                }
            }
            var typedKeys: [Int64] = []
            func typedRun(recording: Bool) throws {
                let context = typedContainer.newBackgroundContext()
                for op in 0..<variant.operations {
                    let results = try context.fetch(request(op), as: Photo.self)
                    for photo in results {
                        touched &+= photo.title?.utf8.count ?? 0
                    }
                    if recording { typedKeys += results.objectIDs.compactMap(\.primaryKey) }
                }
            }
            // Baseline: the statement prepared once per run (Trove caches its statements too);
            // per operation bind, step, read every selected column into Swift values.
            var baselineKeys: [Int64] = []
            func baselineRun(recording: Bool) throws {
                let statement = try db.prepare(sql)
                for op in 0..<variant.operations {
                    statement.reset()
                    try statement.bind(compiled[op].arguments)
                    var photos: [RawPhoto] = []
                    while try statement.step() { photos.append(RawPhoto(statement)) }
                    for photo in photos { touched &+= photo.title?.utf8.count ?? 0 }
                    if recording { baselineKeys += photos.map(\.pk) }
                }
            }
            // GRDB: the query interface's request, one read per operation, as an app writes it.
            var grdbKeys: [Int64] = []
            func grdbRun(recording: Bool) throws {
                for op in 0..<variant.operations {
                    let photos = try grdb.fetch(filters[op])
                    for photo in photos { touched &+= photo.title?.utf8.count ?? 0 }
                    if recording { grdbKeys += photos.compactMap(\.pk) }
                }
            }

            // Same answers first: the same rows in the same order.
            try dynamicRun(recording: true)
            try typedRun(recording: true)
            try baselineRun(recording: true)
            try grdbRun(recording: true)
            guard troveKeys == baselineKeys, typedKeys == baselineKeys, grdbKeys == baselineKeys, !troveKeys.isEmpty else {
                throw SQLiteFailure(description: "\(variant.name): Trove returned \(troveKeys.count) rows (typed \(typedKeys.count)), the C API \(baselineKeys.count), GRDB \(grdbKeys.count), or not in the same order")
            }
            try RawPhoto.checkColumns(of: db.prepare(sql))

            let outcomes = try Measure.rotation(settings, [
                .init(name: Measure.Side.troveDynamic, isTrove: true, run: { try dynamicRun(recording: false) }),
                .init(name: Measure.Side.troveTyped, isTrove: true, run: { try typedRun(recording: false) }),
                .init(name: Measure.Side.cAPI, isTrove: false, run: { try baselineRun(recording: false) }),
                .init(name: Measure.Side.grdb, isTrove: false, run: { try grdbRun(recording: false) }),
            ])
            let plan = try db.queryPlan(sql, arguments: compiled[0].arguments)
            measurements += Measure.measurements(
                outcomes, variant: variant.name, rows: settings.rows, operations: variant.operations, goal: variant.goal,
                details: ["sql": sql, "arguments": abbreviated(compiled[0].arguments), "queryPlan": plan,
                          "resultsPerOperation": String(troveKeys.count / variant.operations),
                          "predicate": variant.format])
            notes.append("\(variant.name):\n  SQL: \(sql)\n  arguments: \(abbreviated(compiled[0].arguments))\n  plan: \(plan)\n  \(troveKeys.count / variant.operations) results per query; µs per query: "
                + outcomes.map { "\($0.name) " + String(format: "%.1f", $0.timing.median / Double(variant.operations) * 1e6) }.joined(separator: ", "))
        }
        return ScenarioResult(scenario: name, rows: settings.rows, repetitions: settings.repetitions, warmups: settings.warmups,
                              peakRSSIsPerSide: Memory.resetPeak(), measurements: measurements, notes: notes)
    }
}

/// `[a, b, c, … (100 in all)]` for long argument lists.
func abbreviated(_ arguments: [AttributeValue]) -> String {
    arguments.count <= 8 ? "\(arguments)"
        : "[" + arguments.prefix(3).map { "\($0)" }.joined(separator: ", ") + ", … (\(arguments.count) in all)]"
}

/// A row read by the baselines: every column Trove selects, as Swift values.
struct RawPhoto {
    var pk: Int64
    var version: Int64
    var id: String
    var title: String?
    var views: Int64?
    var uploadDate: Double?
    var width: Int64?
    var height: Int64?
    var latitude: Double?
    var longitude: Double?
    var favorite: Bool?

    /// The columns, in the order of Trove's selection.
    static let columns = ["_pk", "_version"] + PhotoData.columns

    @inline(__always)
    init(_ s: RawStatement) {
        pk = s.int64(0)
        version = s.int64(1)
        id = s.text(2)
        title = s.isNull(3) ? nil : s.text(3)
        views = s.isNull(4) ? nil : s.int64(4)
        uploadDate = s.isNull(5) ? nil : s.double(5)
        width = s.isNull(6) ? nil : s.int64(6)
        height = s.isNull(7) ? nil : s.int64(7)
        latitude = s.isNull(8) ? nil : s.double(8)
        longitude = s.isNull(9) ? nil : s.double(9)
        favorite = s.isNull(10) ? nil : s.int64(10) != 0
    }

    /// Fails unless `statement` selects the columns ``init(_:)`` reads, in that order.
    static func checkColumns(of statement: RawStatement) throws {
        guard statement.columnNames == columns else {
            throw SQLiteFailure(description: "Trove selects \(statement.columnNames), the baseline reads \(columns)")
        }
    }
}

/// Progress and diagnostics, on stderr (stdout carries the report).
func log(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
