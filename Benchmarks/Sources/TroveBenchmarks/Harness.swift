import Foundation

/// One kind of work, measured through Trove and through a baseline on SQLite's C API, in the
/// same process and on the same file.
///
/// A scenario is run by name (`trove-bench fetch --rows 1000000`), one process per scenario and
/// row count, so that the peak RSS it reports is its own. To add one (the import benchmarks of
/// later issues), write a type conforming to this protocol and list it in ``Scenarios/all``.
protocol Scenario {
    /// The name given on the command line.
    static var name: String { get }
    /// One line for `trove-bench --help`.
    static var summary: String { get }
    /// The row count used when `--rows` is not given.
    static var defaultRows: Int { get }

    /// Runs every variant of the scenario and returns their measurements.
    static func run(_ settings: Settings) throws -> ScenarioResult
}

/// The scenarios `trove-bench` knows, in the order `Benchmarks/run` runs them.
enum Scenarios {
    static var all: [any Scenario.Type] { [InsertScenario.self, FetchScenario.self, IterateScenario.self, ImportScenario.self, LiveScenario.self, BatchScenario.self] }

    static func named(_ name: String) -> (any Scenario.Type)? {
        all.first { $0.name == name }
    }
}

/// How a scenario runs, from the command line.
struct Settings {
    /// The number of rows of the data set.
    var rows: Int
    /// Measured runs of each side; the report gives their median.
    var repetitions: Int
    /// Unmeasured runs of each side first (caches, statement caches, page cache).
    var warmups: Int
    /// Where data sets are cached and temporary stores are made.
    var scratch: URL
    /// Runs only the variants whose name contains this text (for profiling one of them).
    var only: String?
    /// Times only the sides whose name contains this text (for profiling one of them); the
    /// others still run once where a scenario checks that every side gives the same answers.
    var side: String?

    func includes(_ variant: String) -> Bool {
        only.map { variant.localizedCaseInsensitiveContains($0) } ?? true
    }
}

/// The times of repeated runs of one piece of work, in seconds.
struct Timing: Codable {
    var samples: [Double]

    var median: Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    var minimum: Double { samples.min() ?? .nan }
    var maximum: Double { samples.max() ?? .nan }
}

/// Runs and times work.
enum Measure {
    /// The seconds `body` takes.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        let elapsed = start.duration(to: clock.now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    /// One way of doing a scenario's work: through Trove (dynamically or with generated
    /// classes) or a baseline (SQLite's C API, GRDB's records).
    struct Side {
        var name: String
        var isTrove: Bool
        var run: () throws -> Void
    }

    /// What ``rotation(_:_:)`` measured of one side.
    struct Outcome {
        var name: String
        var isTrove: Bool
        var timing: Timing
        /// The highest peak RSS seen during the side's runs, in bytes.
        var peakRSS: Int?
    }

    /// Times every side in turn, `warmups` unmeasured rounds then `repetitions` measured ones,
    /// rotating which side runs first each round, so that a machine shared with other work
    /// slows them alike. Each run starts from a reset peak RSS (see ``Memory/resetPeak()``), so
    /// a side's peak is the highest of its own runs; memory that the allocator keeps after a run
    /// counts in the next one's peak: compare Trove's peaks across row counts, each in its own
    /// process, rather than the sides within one.
    static func rotation(_ settings: Settings, _ sides: [Side]) throws -> [Outcome] {
        let sides = sides.filter { side in settings.side.map { side.name.localizedCaseInsensitiveContains($0) } ?? true }
        var outcomes = sides.map { Outcome(name: $0.name, isTrove: $0.isTrove, timing: Timing(samples: []), peakRSS: nil) }
        func run(_ index: Int, measured: Bool) throws {
            Memory.resetPeak()
            let time = try seconds(sides[index].run)
            if let peak = Memory.peakRSS() { outcomes[index].peakRSS = max(outcomes[index].peakRSS ?? 0, peak) }
            if measured { outcomes[index].timing.samples.append(time) }
        }
        for round in 0..<(settings.warmups + settings.repetitions) {
            for step in sides.indices {
                try run((round + step) % sides.count, measured: round >= settings.warmups)
            }
        }
        return outcomes
    }

    /// One row per Trove side and baseline: Trove's side against the baseline's, `goal` read
    /// against the baseline named `goalBaseline` (the C API) only.
    static func measurements(_ outcomes: [Outcome], variant: String, rows: Int, operations: Int,
                             goal: Double?, goalBaseline: String = Side.cAPI,
                             details: [String: String] = [:]) -> [Measurement] {
        outcomes.filter(\.isTrove).flatMap { trove in
            outcomes.filter { !$0.isTrove }.map { baseline in
                Measurement(
                    variant: "\(variant): \(trove.name) vs \(baseline.name)", rows: rows, operations: operations,
                    trove: trove.timing, baseline: baseline.timing, goal: baseline.name == goalBaseline ? goal : nil,
                    trovePeakRSSMiB: Memory.mebibytes(trove.peakRSS), baselinePeakRSSMiB: Memory.mebibytes(baseline.peakRSS),
                    details: details)
            }
        }
    }

    /// Times one side alone: `warmups` unmeasured runs, then `repetitions` measured ones.
    static func repeated(_ settings: Settings, _ body: () throws -> Void) rethrows -> Timing {
        for _ in 0..<settings.warmups { try body() }
        var times: [Double] = []
        for _ in 0..<settings.repetitions { times.append(try seconds(body)) }
        return Timing(samples: times)
    }
}

/// This process's memory, from `/proc/self/status` (Linux).
enum Memory {
    /// The peak resident set size so far (`VmHWM`), in bytes; `nil` where `/proc` is missing.
    static func peakRSS() -> Int? { statusField("VmHWM") }

    /// The resident set size now (`VmRSS`), in bytes.
    static func currentRSS() -> Int? { statusField("VmRSS") }

    /// Starts a new peak from the current RSS (writes 5 to `/proc/self/clear_refs`), so that one
    /// phase of a process can be measured apart from the phases before it. Returns whether the
    /// kernel allowed it; when it did not, ``peakRSS()`` stays the peak of the whole process.
    @discardableResult
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
    }

    static func mebibytes(_ bytes: Int?) -> Double? {
        bytes.map { Double($0) / 1_048_576 }
    }

    private static func statusField(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            // "VmHWM:	  123456 kB"
            let digits = line.dropFirst(name.count + 1).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }
}

extension Measure.Side {
    /// The sides' names, as the report prints them.
    static let troveDynamic = "Trove (dynamic)"
    static let troveTyped = "Trove (typed)"
    static let cAPI = "C API"
    static let grdb = "GRDB records"
}
