import Foundation
import Trove

/// A fetched-results controller over every photo (sorted by views, most first) following
/// batches of changes to the views of random photos — each change moves its photo — applied
/// piecewise (`piecewiseLimit` above the batch), and by the controller's own fallback (fetching
/// again and comparing, `piecewiseLimit` 0), against re-running the fetch after each batch.
/// The batch sizes show where fetching again starts to pay (the controller's `piecewiseLimit`).
enum LiveScenario: Scenario {
    static let name = "live"
    static let summary = "a fetched-results controller over every row following batches of changes, against fetching again"
    static let defaultRows = 100_000
    static let batchSizes = [10, 100, 1_000, 2_000, 10_000]

    static func run(_ settings: Settings) throws -> ScenarioResult {
        let url = try PhotoData.cachedStore(rows: settings.rows, scratch: settings.scratch, log: log)
        let container = try Container(store: try SQLiteStore(url: url, model: PhotoData.model))
        try PhotoData.verify(container.newBackgroundContext(), rows: settings.rows)
        let request = FetchRequest(entityName: "Photo", sortDescriptors: [SortKey("views", ascending: false), SortKey("id")])

        var measurements: [Measurement] = []
        var notes: [String] = []
        for batchSize in batchSizes {
            // Each side changes the same photos to the same views, in rounds of one batch, and
            // ends with the results in the new order (the controller's, or the fetch's). Only the
            // rounds are timed: each side's context and controller are made (and the first
            // fetch of every row done) before.
            let rounds = max(1, 200 / batchSize)
            final class Follower {
                let context: ObjectContext
                let controller: FetchedResultsController<ManagedObject>
                let fetchesAgain: Bool
                var objects: [ManagedObject]
                var random: SplitMix64
                init(_ container: Container, _ request: FetchRequest, piecewiseLimit: Int?, seed: UInt64) throws {
                    context = container.newBackgroundContext()
                    controller = try FetchedResultsController(context: context, request: request)
                    try controller.performFetch()
                    controller.piecewiseLimit = piecewiseLimit ?? Int.max
                    fetchesAgain = piecewiseLimit == nil
                    objects = controller.sections.first.map { Array($0.objects) } ?? []
                    random = SplitMix64(seed: seed)
                }
                func follow(rounds: Int, batchSize: Int, request: FetchRequest) throws {
                    for _ in 0..<rounds {
                        for _ in 0..<batchSize {
                            let photo = objects[Int(random.next() % UInt64(objects.count))]
                            try photo.setValue(Int64(random.next() % 1_000_000), forKey: "views")
                        }
                        context.processPendingChanges()
                        objects = fetchesAgain ? Array(try context.fetch(request)) : controller.sections.first.map { Array($0.objects) } ?? []
                    }
                }
            }
            let sides: [(name: String, isTrove: Bool, follower: Follower)] = [
                ("controller, piecewise", true, try Follower(container, request, piecewiseLimit: Int.max, seed: UInt64(batchSize))),
                ("controller, fetching again", true, try Follower(container, request, piecewiseLimit: 0, seed: UInt64(batchSize))),
                ("fetch again", false, try Follower(container, request, piecewiseLimit: nil, seed: UInt64(batchSize))),
            ]
            let outcomes = try Measure.rotation(settings, sides.map { side in
                .init(name: side.name, isTrove: side.isTrove) { try side.follower.follow(rounds: rounds, batchSize: batchSize, request: request) }
            })
            let ran = sides.filter { side in outcomes.contains { $0.name == side.name } }
            let orders = Dictionary(uniqueKeysWithValues: ran.map { ($0.name, $0.follower.objects.map(\.objectID)) })
            let first = orders.values.first ?? []
            guard first.count == settings.rows, orders.values.allSatisfy({ $0 == first }) else {
                throw SQLiteFailure(description: "the sides ended with different results at batch size \(batchSize)")
            }
            let changes = rounds * batchSize
            measurements += Measure.measurements(outcomes, variant: "batches of \(batchSize) changes", rows: settings.rows,
                                                 operations: changes, goal: nil, goalBaseline: "fetch again")
            notes.append("batches of \(batchSize) (\(rounds) rounds), µs per change: " + outcomes.map {
                "\($0.name) " + String(format: "%.2f", $0.timing.median / Double(changes) * 1e6)
            }.joined(separator: ", "))
        }
        log("live: \(settings.rows) rows, batch sizes \(batchSizes)")
        return ScenarioResult(scenario: name, rows: settings.rows, repetitions: settings.repetitions, warmups: settings.warmups,
                              peakRSSIsPerSide: Memory.resetPeak(), measurements: measurements, notes: notes)
    }
}

