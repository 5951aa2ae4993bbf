import Foundation
import Trove

/// JSON import of Flickr-like photos with nested owners (`gen_photos.py`): a fresh import of N
/// records, then its update batch (30% changed, 10% new) on top of it, by Trove's `Importer`
/// (the whole file with `importJSON`, and streamed from the file with `importStream`), by a
/// hand-written importer on SQLite's C API, by GRDB Codable records, and as SQLite's floor (the
/// C API job's upserts with the rows built before the clock starts); same durability, 1000
/// records per transaction.
///
/// Every import runs in a process of its own (`trove-bench import-run …`, started by this one),
/// so each peak RSS is that importer's alone and no importer inherits another's heap. The
/// importers take turns, the order rotating each round. `JSONValue(parsing:)` alone and
/// `JSONDecoder` alone are timed the same way, to show what parsing costs. After every import
/// the stores must agree (counts, sums of every column, owner links) and each Trove report must
/// show nothing rejected and the expected inserts and updates.
///
/// Another importer joins as a further ``Contender`` case: a case, a function in ``ImportJob``,
/// a line in ``runChild(_:)``, its goals in ``goal(_:against:)``.
enum ImportScenario: Scenario {
    static let name = "import"
    static let summary = "JSON import (fresh, then update) by Trove's Importer, whole and streamed, against the C API, GRDB records and SQLite's floor"
    static let defaultRows = 100_000
    /// The hidden command a child process runs: one import, its result as JSON on stdout.
    static let runCommand = "import-run"

    enum Contender: String, CaseIterable, Codable {
        /// `Importer.importJSON` of the whole file, read into memory first.
        case trove
        /// `Importer.importStream` of the file, read as it goes (issue 7).
        case troveStream = "trove-stream"
        case cAPI = "c-api"
        case grdb
        /// The C API job's upserts with the rows decoded and made bindable before the clock
        /// starts: SQLite's own time.
        case sqliteFloor = "sqlite-floor"
        /// `JSONValue(parsing:)` of the fresh payload, nothing else.
        case troveParse = "trove-parse"
        /// `JSONDecoder` into the baselines' structs, nothing else.
        case decode

        var title: String {
            switch self {
            case .trove: "Trove"
            case .troveStream: "Trove (streaming)"
            case .cAPI: "C API"
            case .grdb: "GRDB"
            case .sqliteFloor: "SQLite floor"
            case .troveParse: "JSONValue(parsing:)"
            case .decode: "JSONDecoder"
            }
        }

        /// The importers, in the order of the first round (`--only` keeps some).
        static let importers: [Contender] = [.trove, .troveStream, .cAPI, .grdb, .sqliteFloor]

        var writes: Bool { Self.importers.contains(self) }
        /// Trove's side of the comparisons; the other importers are its baselines.
        var isTrove: Bool { self == .trove || self == .troveStream }
        /// Whether the child reads the whole input file into memory before the clock starts.
        var readsWholeFile: Bool { self != .troveStream }
    }

    /// The goal of `trove`'s time over `baseline`'s (≤), or `nil` for a ratio reported only.
    /// Issue 5: Trove's import at least as fast as the C API job and twice GRDB. Issue 7:
    /// the streaming import 1.5 times the C API job's records/s, and within 1.25x of SQLite's
    /// floor.
    static func goal(_ trove: Contender, against baseline: Contender) -> Double? {
        switch (trove, baseline) {
        case (.trove, .cAPI): 1.0
        case (.trove, .grdb): 0.5
        case (.troveStream, .cAPI): 1 / 1.5
        case (.troveStream, .sqliteFloor): 1.25
        default: nil
        }
    }

    /// Issue 7's memory goal for the streaming import: its peak RSS at the largest record count
    /// at most 1.3x that at the smallest, and under 200 MiB (read under *memory growth*).
    static let streamingPeakGoal = Measurement.PeakGoal(growth: 1.3, limitMiB: 200)

    enum Phase: String, Codable, CaseIterable {
        case fresh, update
    }

    static func run(_ settings: Settings) throws -> ScenarioResult {
        let records = settings.rows
        let generator = ProcessInfo.processInfo.environment["GEN_PHOTOS"] ?? "scripts/gen_photos.py"
        let files = try ImportPayload.files(records: records, scratch: settings.scratch, generator: generator)
        let directory = settings.scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // `--only trove-stream,c-api` runs some importers only (the others' columns are left out).
        let wanted = settings.only.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }
        if let unknown = wanted?.first(where: { name in !Contender.importers.contains { $0.rawValue == name } }) {
            throw SQLiteFailure(description: "--only: no importer '\(unknown)'; importers: \(Contender.importers.map(\.rawValue).joined(separator: ", "))")
        }
        let importers = Contender.importers.filter { wanted?.contains($0.rawValue) ?? true }
        guard importers.contains(where: \.isTrove) else { throw SQLiteFailure(description: "--only must include trove or trove-stream") }
        let extras = [Contender.troveParse] + (importers.contains { !$0.isTrove } ? [.decode] : [])
        let updateRecords = records * 3 / 10 + records / 10
        func store(_ importer: Contender) -> URL { directory.appendingPathComponent("import-\(importer.rawValue).trove") }
        defer { for importer in importers { PhotoData.removeStore(at: store(importer)) } }

        log("import: \(records) records then \(updateRecords) updates; \(importers.map(\.title).joined(separator: ", ")); "
            + "\(settings.warmups) warm-up + \(settings.repetitions) measured rounds, one process per import")
        var runs: [String: [ImportRun]] = [:]  // "importer/phase", measured rounds only
        var fingerprints: [Phase: ImportPayload.Fingerprint] = [:]
        for round in 0..<(settings.warmups + settings.repetitions) {
            let measured = round >= settings.warmups
            let order = (0..<importers.count).map { importers[($0 + round) % importers.count] }
            var roundPrints: [Phase: [(Contender, ImportPayload.Fingerprint)]] = [:]
            for importer in order {
                for phase in Phase.allCases {
                    let input = phase == .fresh ? files.photos : files.update
                    let result = try child(importer, phase: phase, input: input, store: store(importer))
                    log(String(format: "  %@ %@ %@: %.2f s, peak %.0f MiB", measured ? "round \(round - settings.warmups + 1)" : "warm-up",
                               importer.title, phase.rawValue, result.seconds, Memory.mebibytes(result.peakRSS) ?? 0))
                    if let fingerprint = result.fingerprint { roundPrints[phase, default: []].append((importer, fingerprint)) }
                    if importer.isTrove, phase == .fresh, let owners = result.fingerprint?.owners,
                       result.report?.ownersInserted != Int(owners) {
                        throw SQLiteFailure(description: "\(importer.title)'s report has \(result.report?.ownersInserted ?? 0) owners inserted, its store \(owners)")
                    }
                    if importer.isTrove {
                        try check(result.report, of: importer, phase: phase, records: phase == .fresh ? records : updateRecords,
                                  inserted: phase == .fresh ? records : records / 10, updated: phase == .fresh ? 0 : records * 3 / 10)
                    }
                    if measured { runs["\(importer.rawValue)/\(phase.rawValue)", default: []].append(result) }
                }
            }
            for extra in extras {
                let result = try child(extra, phase: .fresh, input: files.photos, store: nil)
                log(String(format: "  %@ %@: %.2f s", measured ? "round \(round - settings.warmups + 1)" : "warm-up", extra.title, result.seconds))
                if measured { runs["\(extra.rawValue)/fresh", default: []].append(result) }
            }
            // The stores agree with each other, and with what the payload holds.
            for phase in Phase.allCases {
                let prints = roundPrints[phase, default: []]
                guard let first = prints.first else { continue }
                for (importer, print) in prints.dropFirst() where print != first.1 {
                    throw SQLiteFailure(description: "after the \(phase) import, \(first.0.title)'s store holds \(first.1), \(importer.title)'s \(print)")
                }
                let expected = phase == .fresh ? records : records + records / 10
                guard first.1.photos == expected, first.1.linked == expected else {
                    throw SQLiteFailure(description: "after the \(phase) import the stores hold \(first.1), not \(expected) linked photos")
                }
                if let earlier = fingerprints[phase], earlier != first.1 {
                    throw SQLiteFailure(description: "the \(phase) import gave \(first.1) in one round, \(earlier) in another")
                }
                fingerprints[phase] = first.1
            }
        }

        return result(settings: settings, records: records, updateRecords: updateRecords, importers: importers,
                      runs: runs, fingerprints: fingerprints)
    }

    /// Fails unless a Trove importer's report shows every record landed as expected.
    private static func check(_ report: ImportRun.TroveReport?, of importer: Contender, phase: Phase,
                              records: Int, inserted: Int, updated: Int) throws {
        guard let report else { throw SQLiteFailure(description: "\(importer.title)'s \(phase) import returned no report") }
        guard report.rejected == 0, report.recordsImported == records, report.photosInserted == inserted,
              report.photosUpdated == updated else {
            throw SQLiteFailure(description: "\(importer.title)'s \(phase) report: \(report); expected \(records) imported, "
                                + "\(inserted) photos inserted, \(updated) updated, none rejected")
        }
    }

    // MARK: Child processes

    /// Runs one import in a new process of this executable and returns what it measured.
    private static func child(_ importer: Contender, phase: Phase, input: URL, store: URL?) throws -> ImportRun {
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = [runCommand, "--importer", importer.rawValue, "--phase", phase.rawValue, "--input", input.path]
            + (store.map { ["--store", $0.path] } ?? [])
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SQLiteFailure(description: "\(importer.rawValue) \(phase.rawValue) failed (exit \(process.terminationStatus))")
        }
        return try JSONDecoder().decode(ImportRun.self, from: output)
    }

    /// `trove-bench import-run --importer NAME --phase fresh|update --input FILE [--store FILE]`:
    /// one import in this process; prints an ``ImportRun`` as JSON. A fresh import starts from
    /// an empty store with Trove's schema; an update applies to the store as it is. Every
    /// importer but `trove-stream` reads the whole file into memory before its clock starts (and
    /// its peak RSS counts it); `trove-stream` is given the file's URL only.
    static func runChild(_ options: [String: String]) throws {
        guard let importer = options["importer"].flatMap(Contender.init(rawValue:)),
              let phase = options["phase"].flatMap(Phase.init(rawValue:)), let input = options["input"] else {
            let names = Contender.allCases.map(\.rawValue).joined(separator: "|")
            throw SQLiteFailure(description: "usage: \(runCommand) --importer \(names) --phase fresh|update --input FILE [--store FILE]")
        }
        let store = options["store"].map { URL(fileURLWithPath: $0) }
        if importer.writes {
            guard let store else { throw SQLiteFailure(description: "\(importer.rawValue) needs --store") }
            if phase == .fresh { try ImportPayload.createEmptyStore(at: store) }
        }
        let file = URL(fileURLWithPath: input)
        let data = importer.readsWholeFile ? try Data(contentsOf: file) : Data()
        let timing: ImportJob.Timing
        switch importer {
        case .trove: timing = try ImportJob.trove(data, store: store!)
        case .troveStream: timing = try ImportJob.troveStream(file, store: store!)
        case .cAPI: timing = try ImportJob.cAPI(data, store: store!)
        case .grdb: timing = try ImportJob.grdb(data, store: store!)
        case .sqliteFloor: timing = try ImportJob.sqliteFloor(data, store: store!)
        case .troveParse: timing = try ImportJob.troveParse(data)
        case .decode: timing = try ImportJob.decode(data)
        }
        let peak = Memory.peakRSS()
        let result = ImportRun(importer: importer, phase: phase, seconds: timing.seconds, parts: timing.parts, peakRSS: peak,
                               fingerprint: try store.map(ImportPayload.Fingerprint.read), report: timing.report)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        FileHandle.standardOutput.write(try encoder.encode(result))
    }

    // MARK: Results

    private static func result(settings: Settings, records: Int, updateRecords: Int, importers: [Contender],
                               runs: [String: [ImportRun]], fingerprints: [Phase: ImportPayload.Fingerprint]) -> ScenarioResult {
        func timing(_ importer: Contender, _ phase: Phase) -> Timing {
            Timing(samples: runs["\(importer.rawValue)/\(phase.rawValue)", default: []].map(\.seconds))
        }
        func part(_ importer: Contender, _ phase: Phase, _ name: String) -> Double? {
            let samples = runs["\(importer.rawValue)/\(phase.rawValue)", default: []].compactMap { $0.parts[name] }
            return samples.isEmpty ? nil : Timing(samples: samples).median
        }
        func peak(_ importer: Contender, _ phase: Phase) -> Double? {
            Memory.mebibytes(runs["\(importer.rawValue)/\(phase.rawValue)", default: []].compactMap(\.peakRSS).max())
        }
        func rate(_ count: Int, _ t: Timing) -> String { String(format: "%.0f rec/s", Double(count) / t.median) }

        let troves = importers.filter(\.isTrove)
        let baselines = importers.filter { !$0.isTrove }
        var measurements: [Measurement] = []
        var notes: [String] = []
        let parse = timing(.troveParse, .fresh)
        for phase in Phase.allCases {
            let count = phase == .fresh ? records : updateRecords
            // Every importer's records/s, then each Trove importer's throughput over each baseline's.
            notes.append("\(phase) (\(count) records): " + importers.map { importer in
                var text = "\(importer.title) \(rate(count, timing(importer, phase)))"
                if importer == .sqliteFloor, let prebuild = part(importer, phase, "prebuild") {
                    text += String(format: " (rows built before, untimed, in %.2f s)", prebuild)
                } else if let decode = part(importer, phase, "decode"), let write = part(importer, phase, "write") {
                    text += String(format: " (decode %.2f s + SQLite %.2f s)", decode, write)
                }
                return text
            }.joined(separator: ", "))
            for trove in troves {
                let troveTiming = timing(trove, phase)
                var ratios: [String] = []
                for baseline in baselines {
                    let base = timing(baseline, phase)
                    let goal = goal(trove, against: baseline)
                    var details = [
                        "importer": trove.title,
                        "troveRecordsPerSecond": String(format: "%.0f", Double(count) / troveTiming.median),
                        "baselineRecordsPerSecond": String(format: "%.0f", Double(count) / base.median),
                        "throughputRatio": String(format: "%.3f", base.median / troveTiming.median),
                        "baseline": baseline.title,
                    ]
                    if let decode = part(baseline, phase, "decode") { details["baselineDecodeSeconds"] = String(format: "%.3f", decode) }
                    if let write = part(baseline, phase, "write") { details["baselineWriteSeconds"] = String(format: "%.3f", write) }
                    if let prebuild = part(baseline, phase, "prebuild") {
                        details["baselinePrebuildSeconds"] = String(format: "%.3f", prebuild)
                    }
                    if phase == .fresh, !parse.samples.isEmpty { details["troveParseSeconds"] = String(format: "%.3f", parse.median) }
                    if let fingerprint = fingerprints[phase] { details["stores"] = fingerprint.description }
                    measurements.append(Measurement(
                        variant: "\(phase): \(trove.title) vs \(baseline.title)", rows: records, operations: count,
                        trove: troveTiming, baseline: base, goal: goal,
                        trovePeakRSSMiB: peak(trove, phase), baselinePeakRSSMiB: peak(baseline, phase),
                        peakGoal: trove == .troveStream ? streamingPeakGoal : nil, details: details))
                    ratios.append("\(baseline.title)'s \(Printer.ratio(base.median / troveTiming.median))x"
                        + (goal.map { " (goal ≥ \(Printer.ratio(1 / $0))x)" } ?? ""))
                }
                if !ratios.isEmpty {
                    notes.append("  \(phase): \(trove.title)'s records/s over " + ratios.joined(separator: ", "))
                }
            }
        }
        if !parse.samples.isEmpty {
            var line = String(format: "where Trove's fresh import goes: JSONValue(parsing:) of the whole file alone %.2f s", parse.median)
            for trove in troves {
                let total = timing(trove, .fresh).median
                line += String(format: "; of %@'s %.2f s %.0f%%, the rest (read, coerce, find-or-create, apply, save) %.2f s",
                               trove.title, total, 100 * parse.median / total, total - parse.median)
            }
            let decode = timing(.decode, .fresh)
            if !decode.samples.isEmpty {
                line += String(format: "; JSONDecoder into structs alone %.2f s", decode.median)
                measurements.append(Measurement(
                    variant: "parse only: JSONValue(parsing:) vs JSONDecoder", rows: records, operations: records,
                    trove: parse, baseline: decode, goal: nil,
                    trovePeakRSSMiB: peak(.troveParse, .fresh), baselinePeakRSSMiB: peak(.decode, .fresh)))
            }
            notes.append(line)
        }
        notes.append("peak RSS, each import in its own process (the whole input file in memory included, except for "
            + "Trove (streaming), which reads it as it goes): "
            + importers.map { importer in
                "\(importer.title) " + Phase.allCases.map { String(format: "%@ %.0f MiB", $0.rawValue, peak(importer, $0) ?? 0) }.joined(separator: ", ")
            }.joined(separator: "; "))
        if troves.contains(.troveStream) {
            notes.append("Trove (streaming)'s peak RSS: "
                + Phase.allCases.map { String(format: "%@ %.0f MiB", $0.rawValue, peak(.troveStream, $0) ?? 0) }.joined(separator: ", ")
                + String(format: "; goal at 1M records: under %.0f MiB and at most %@x the 100k run's (memory growth compares the two runs)",
                         streamingPeakGoal.limitMiB, Printer.ratio(streamingPeakGoal.growth)))
        }
        for phase in Phase.allCases {
            if let fingerprint = fingerprints[phase] { notes.append("every store after \(phase): \(fingerprint)") }
        }
        if importers.count < Contender.importers.count {
            notes.append("importers run: \(importers.map(\.title).joined(separator: ", ")) (--only)")
        }
        return ScenarioResult(scenario: name, rows: records, repetitions: settings.repetitions, warmups: settings.warmups,
                              peakRSSIsPerSide: true, measurements: measurements, notes: notes)
    }
}

/// What one child process measured.
struct ImportRun: Codable {
    var importer: ImportScenario.Contender
    var phase: ImportScenario.Phase
    var seconds: Double
    var parts: [String: Double]
    /// The process's peak RSS (`VmHWM`), in bytes.
    var peakRSS: Int?
    var fingerprint: ImportPayload.Fingerprint?
    var report: TroveReport?

    /// The figures of Trove's ``ImportReport`` the scenario checks.
    struct TroveReport: Codable, CustomStringConvertible {
        var recordsRead: Int
        var recordsImported: Int
        var rejected: Int
        var photosInserted: Int
        var photosUpdated: Int
        var photosUnchanged: Int
        var ownersInserted: Int
        var ownersUpdated: Int
        var ownersUnchanged: Int
        var firstRejection: String?

        init(_ report: ImportReport) {
            recordsRead = report.recordsRead
            recordsImported = report.recordsImported
            rejected = report.rejected.count
            let photo = report.entities["Photo"] ?? ImportReport.EntityCounts()
            let owner = report.entities["Owner"] ?? ImportReport.EntityCounts()
            photosInserted = photo.inserted
            photosUpdated = photo.updated
            photosUnchanged = photo.unchanged
            ownersInserted = owner.inserted
            ownersUpdated = owner.updated
            ownersUnchanged = owner.unchanged
            firstRejection = report.rejected.first?.description
        }

        var description: String {
            "\(recordsRead) read, \(recordsImported) imported, \(rejected) rejected\(firstRejection.map { " (first: \($0))" } ?? ""); "
                + "photos \(photosInserted) inserted, \(photosUpdated) updated, \(photosUnchanged) unchanged; "
                + "owners \(ownersInserted) inserted, \(ownersUpdated) updated, \(ownersUnchanged) unchanged"
        }
    }
}
