import Foundation
import Trove

/// JSON import of Flickr-like photos with nested owners (`gen_photos.py`): a fresh import of N
/// records, then its update batch (30% changed, 10% new) on top of it, by Trove's `Importer`,
/// by a hand-written importer on SQLite's C API and by GRDB Codable records, same durability,
/// 1000 records per transaction.
///
/// Every import runs in a process of its own (`trove-bench import-run …`, started by this one),
/// so each peak RSS is that importer's alone and no importer inherits another's heap. The
/// importers take turns, the order rotating each round. `JSONValue(parsing:)` alone and
/// `JSONDecoder` alone are timed the same way, to show what parsing costs. After every import
/// the three stores must agree (counts, sums of every column, owner links) and Trove's report
/// must show nothing rejected and the expected inserts and updates.
///
/// Issue 7's streaming import and SQLite's floor (rows pre-built) are meant to join as further
/// ``Contender`` cases: a case, a function in ``ImportJob``, a line in ``runChild(_:)``.
enum ImportScenario: Scenario {
    static let name = "import"
    static let summary = "JSON import (fresh, then update) by Trove's Importer against the C API and GRDB records"
    static let defaultRows = 100_000
    /// The hidden command a child process runs: one import, its result as JSON on stdout.
    static let runCommand = "import-run"

    enum Contender: String, CaseIterable, Codable {
        case trove
        case cAPI = "c-api"
        case grdb
        /// `JSONValue(parsing:)` of the fresh payload, nothing else.
        case troveParse = "trove-parse"
        /// `JSONDecoder` into the baselines' structs, nothing else.
        case decode

        var title: String {
            switch self {
            case .trove: "Trove"
            case .cAPI: "C API"
            case .grdb: "GRDB"
            case .troveParse: "JSONValue(parsing:)"
            case .decode: "JSONDecoder"
            }
        }

        var writes: Bool { self == .trove || self == .cAPI || self == .grdb }
    }

    enum Phase: String, Codable, CaseIterable {
        case fresh, update
    }

    static func run(_ settings: Settings) throws -> ScenarioResult {
        let records = settings.rows
        let generator = ProcessInfo.processInfo.environment["GEN_PHOTOS"] ?? "../shared/bench/gen_photos.py"
        let files = try ImportPayload.files(records: records, scratch: settings.scratch, generator: generator)
        let directory = settings.scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // `--only trove,c-api` runs some importers only (the others' columns are left out).
        let wanted = settings.only.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }
        let importers = [Contender.trove, .cAPI, .grdb].filter { wanted?.contains($0.rawValue) ?? true }
        guard importers.contains(.trove) else { throw SQLiteFailure(description: "--only must include trove") }
        let extras = [Contender.troveParse] + (importers.contains(.cAPI) || importers.contains(.grdb) ? [.decode] : [])
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
                    if importer == .trove, phase == .fresh, let owners = result.fingerprint?.owners,
                       result.report?.ownersInserted != Int(owners) {
                        throw SQLiteFailure(description: "Trove's report has \(result.report?.ownersInserted ?? 0) owners inserted, its store \(owners)")
                    }
                    if importer == .trove {
                        try check(result.report, phase: phase, records: phase == .fresh ? records : updateRecords,
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

    /// Fails unless Trove's report shows every record landed as expected.
    private static func check(_ report: ImportRun.TroveReport?, phase: Phase, records: Int, inserted: Int, updated: Int) throws {
        guard let report else { throw SQLiteFailure(description: "Trove's \(phase) import returned no report") }
        guard report.rejected == 0, report.recordsImported == records, report.photosInserted == inserted,
              report.photosUpdated == updated else {
            throw SQLiteFailure(description: "Trove's \(phase) report: \(report); expected \(records) imported, "
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
    /// an empty store with Trove's schema; an update applies to the store as it is.
    static func runChild(_ options: [String: String]) throws {
        guard let importer = options["importer"].flatMap(Contender.init(rawValue:)),
              let phase = options["phase"].flatMap(Phase.init(rawValue:)), let input = options["input"] else {
            throw SQLiteFailure(description: "usage: \(runCommand) --importer trove|c-api|grdb|trove-parse|decode --phase fresh|update --input FILE [--store FILE]")
        }
        let store = options["store"].map { URL(fileURLWithPath: $0) }
        if importer.writes {
            guard let store else { throw SQLiteFailure(description: "\(importer.rawValue) needs --store") }
            if phase == .fresh { try ImportPayload.createEmptyStore(at: store) }
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: input))
        let timing: ImportJob.Timing
        switch importer {
        case .trove: timing = try ImportJob.trove(data, store: store!)
        case .cAPI: timing = try ImportJob.cAPI(data, store: store!)
        case .grdb: timing = try ImportJob.grdb(data, store: store!)
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

        var measurements: [Measurement] = []
        var notes: [String] = []
        let parse = timing(.troveParse, .fresh)
        for phase in Phase.allCases {
            let count = phase == .fresh ? records : updateRecords
            let trove = timing(.trove, phase)
            var line = "\(phase) (\(count) records): Trove \(rate(count, trove))"
            for baseline in importers where baseline != .trove {
                let base = timing(baseline, phase)
                // Throughput goals of issue 5: ≥ 1.0x the C API, ≥ 2x GRDB, as time ratios.
                let goal = baseline == .cAPI ? 1.0 : 0.5
                var details = [
                    "troveRecordsPerSecond": String(format: "%.0f", Double(count) / trove.median),
                    "baselineRecordsPerSecond": String(format: "%.0f", Double(count) / base.median),
                    "throughputRatio": String(format: "%.3f", base.median / trove.median),
                    "baseline": baseline.title,
                ]
                if let decode = part(baseline, phase, "decode"), let write = part(baseline, phase, "write") {
                    details["baselineDecodeSeconds"] = String(format: "%.3f", decode)
                    details["baselineWriteSeconds"] = String(format: "%.3f", write)
                }
                if phase == .fresh, !parse.samples.isEmpty { details["troveParseSeconds"] = String(format: "%.3f", parse.median) }
                if let fingerprint = fingerprints[phase] { details["stores"] = fingerprint.description }
                measurements.append(Measurement(
                    variant: "\(phase): Trove vs \(baseline.title)", rows: records, operations: count,
                    trove: trove, baseline: base, goal: goal,
                    trovePeakRSSMiB: peak(.trove, phase), baselinePeakRSSMiB: peak(baseline, phase), details: details))
                line += ", \(baseline.title) \(rate(count, base))"
                if let decode = part(baseline, phase, "decode"), let write = part(baseline, phase, "write") {
                    line += String(format: " (decode %.2f s + SQLite %.2f s)", decode, write)
                }
                line += String(format: " → Trove/%@ %.2fx", baseline.title, base.median / trove.median)
            }
            notes.append(line + " (throughput ratios)")
        }
        if !parse.samples.isEmpty {
            let trove = timing(.trove, .fresh)
            var line = String(format: "where Trove's fresh import goes: JSONValue(parsing:) alone %.2f s of %.2f s (%.0f%%), the rest (read, coerce, find-or-create, apply, save) %.2f s",
                              parse.median, trove.median, 100 * parse.median / trove.median, trove.median - parse.median)
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
        notes.append("peak RSS, each import in its own process (input file in memory included): "
            + importers.map { importer in
                "\(importer.title) " + Phase.allCases.map { String(format: "%@ %.0f MiB", $0.rawValue, peak(importer, $0) ?? 0) }.joined(separator: ", ")
            }.joined(separator: "; "))
        for phase in Phase.allCases {
            if let fingerprint = fingerprints[phase] { notes.append("every store after \(phase): \(fingerprint)") }
        }
        if importers.count < 3 {
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
