import Foundation

/// One row of a scenario's table: a variant at a row count, Trove against its baseline.
struct Measurement: Codable {
    /// What was measured, e.g. `scan + sort + limit 100`.
    var variant: String
    /// Rows in the data set.
    var rows: Int
    /// Operations per timed run (queries, objects); times are for the whole run.
    var operations: Int
    var trove: Timing
    var baseline: Timing
    /// Trove's median over the baseline's median: 1.0 is as fast as the C API.
    var ratio: Double
    /// Peak RSS of Trove's side, in MiB (the process's peak when it could not be reset).
    var trovePeakRSSMiB: Double?
    /// Peak RSS of the baseline's side, in MiB.
    var baselinePeakRSSMiB: Double?
    /// The ratio this variant aims at, e.g. `<= 1.3`; `nil` when it is reported only.
    var goal: Double?
    /// What Trove's peak RSS aims at across row counts (read under *memory growth*), if anything.
    var peakGoal: PeakGoal?
    /// Facts to read the figures by: the SQL run, its arguments, the query plan, result counts.
    var details: [String: String]

    /// A goal for Trove's peak RSS: at the largest row count at most `growth` times that at the
    /// smallest, and under `limitMiB`.
    struct PeakGoal: Codable {
        var growth: Double
        var limitMiB: Double
    }

    init(variant: String, rows: Int, operations: Int, trove: Timing, baseline: Timing, goal: Double?,
         trovePeakRSSMiB: Double? = nil, baselinePeakRSSMiB: Double? = nil, peakGoal: PeakGoal? = nil,
         details: [String: String] = [:]) {
        self.variant = variant
        self.rows = rows
        self.operations = operations
        self.trove = trove
        self.baseline = baseline
        self.ratio = trove.median / baseline.median
        self.goal = goal
        self.trovePeakRSSMiB = trovePeakRSSMiB
        self.baselinePeakRSSMiB = baselinePeakRSSMiB
        self.peakGoal = peakGoal
        self.details = details
    }

    var meetsGoal: Bool? { goal.map { ratio <= $0 } }
}

/// What one run of `trove-bench SCENARIO` produced.
struct ScenarioResult: Codable {
    var scenario: String
    var rows: Int
    var repetitions: Int
    var warmups: Int
    /// Whether each side's peak RSS was measured apart (`/proc/self/clear_refs` accepted).
    var peakRSSIsPerSide: Bool
    var measurements: [Measurement]
    /// Lines to print under the table: the SQL Trove generated, query plans, how data was made.
    var notes: [String]
    /// When the scenario ran (ISO 8601); a report may keep results of earlier runs.
    var date: String?
}

/// `results/latest.json`: every scenario of one `Benchmarks/run`.
struct Report: Codable {
    var date: String
    var machine: Machine
    var results: [ScenarioResult]
    /// Peak RSS of the same variant at its largest row count over its smallest (goal ≈ 1, or
    /// the variant's ``Measurement/PeakGoal``). Variants sharing Trove's side (the import
    /// scenario's Trove against each baseline) appear once.
    var memoryGrowth: [MemoryGrowth]

    struct Machine: Codable {
        var processors: Int
        var memoryGiB: Double
        var sqliteVersion: String
        var os: String
    }

    struct MemoryGrowth: Codable {
        var scenario: String
        var variant: String
        var smallRows: Int
        var largeRows: Int
        var smallPeakRSSMiB: Double
        var largePeakRSSMiB: Double
        var ratio: Double
        var goal: Measurement.PeakGoal?

        /// Whether the goal is met, if there is one.
        var meetsGoal: Bool? { goal.map { ratio <= $0.growth && largePeakRSSMiB < $0.limitMiB } }
    }

    init(results: [ScenarioResult], sqliteVersion: String) {
        let info = ProcessInfo.processInfo
        date = Date().formatted(.iso8601)
        machine = Machine(processors: info.activeProcessorCount,
                          memoryGiB: (Double(info.physicalMemory) / 1_073_741_824 * 10).rounded() / 10,
                          sqliteVersion: sqliteVersion, os: info.operatingSystemVersionString)
        self.results = results
        var growth: [MemoryGrowth] = []
        let byVariant = Dictionary(grouping: results.flatMap { result in result.measurements.map { (result.scenario, $0) } },
                                   by: { "\($0.0)\u{0}\($0.1.variant)" })
        for key in byVariant.keys.sorted() {
            let runs = byVariant[key, default: []].filter { $0.1.trovePeakRSSMiB != nil }.sorted { $0.1.rows < $1.1.rows }
            guard let small = runs.first, let large = runs.last, large.1.rows > small.1.rows,
                  let smallPeak = small.1.trovePeakRSSMiB, let largePeak = large.1.trovePeakRSSMiB else { continue }
            // The same Trove runs measured against another baseline: already listed.
            guard !growth.contains(where: { $0.scenario == small.0 && $0.smallRows == small.1.rows && $0.largeRows == large.1.rows
                                            && $0.smallPeakRSSMiB == smallPeak && $0.largePeakRSSMiB == largePeak }) else { continue }
            growth.append(MemoryGrowth(scenario: small.0, variant: small.1.variant, smallRows: small.1.rows,
                                       largeRows: large.1.rows, smallPeakRSSMiB: smallPeak, largePeakRSSMiB: largePeak,
                                       ratio: largePeak / smallPeak, goal: large.1.peakGoal))
        }
        memoryGrowth = growth
    }
}

// MARK: Printing

enum Printer {
    static func table(_ result: ScenarioResult) -> String {
        var lines: [[String]] = [["variant", "rows", "ops", "Trove s", "baseline s", "ratio", "goal", "Trove peak MiB", "base peak MiB"]]
        for m in result.measurements {
            lines.append([
                m.variant, grouped(m.rows), grouped(m.operations), seconds(m.trove.median), seconds(m.baseline.median),
                String(format: "%.2fx", m.ratio),
                m.goal.map { "<=\(ratio($0))x " + (m.meetsGoal == true ? "ok" : "MISSED") } ?? "-",
                m.trovePeakRSSMiB.map { String(format: "%.1f", $0) } ?? "-",
                m.baselinePeakRSSMiB.map { String(format: "%.1f", $0) } ?? "-",
            ])
        }
        let widths = lines[0].indices.map { column in lines.map { $0[column].count }.max() ?? 0 }
        let rendered = lines.enumerated().map { index, cells in
            let row = cells.enumerated().map { column, cell in
                column == 0 ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
            return index == 0 ? row + "\n" + String(repeating: "-", count: row.count) : row
        }
        var text = "== \(result.scenario) (median of \(result.repetitions) after \(result.warmups) warm-up; "
            + "peak RSS \(result.peakRSSIsPerSide ? "per side" : "of the whole process")\(result.date.map { "; run \($0)" } ?? ""))\n"
        text += rendered.joined(separator: "\n")
        for note in result.notes { text += "\n  " + note.replacingOccurrences(of: "\n", with: "\n    ") }
        return text
    }

    static func growth(_ report: Report) -> String {
        guard !report.memoryGrowth.isEmpty else { return "" }
        var text = "== memory growth (Trove's peak RSS at the largest row count over the smallest; goal ≈ 1 unless given)"
        for g in report.memoryGrowth {
            text += "\n  \(g.scenario) / \(g.variant): " + String(format: "%.1f", g.smallPeakRSSMiB)
                + " MiB at \(grouped(g.smallRows)) rows, " + String(format: "%.1f", g.largePeakRSSMiB)
                + " MiB at \(grouped(g.largeRows)) rows: " + String(format: "%.2fx", g.ratio)
            if let goal = g.goal {
                text += "; goal <=\(ratio(goal.growth))x and under " + String(format: "%.0f", goal.limitMiB) + " MiB: "
                    + (g.meetsGoal == true ? "ok" : "MISSED")
            }
        }
        return text
    }

    /// A ratio with two decimals, or one when the second is 0: `1.25`, `0.67`, `1.3`.
    static func ratio(_ value: Double) -> String {
        let text = String(format: "%.2f", value)
        return text.hasSuffix("0") ? String(text.dropLast()) : text
    }

    static func seconds(_ s: Double) -> String {
        s < 0.01 ? String(format: "%.6f", s) : String(format: "%.3f", s)
    }

    static func grouped(_ n: Int) -> String {
        let digits = Array(String(n))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return out
    }
}
