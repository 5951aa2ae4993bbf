import Foundation
import Trove

/// The one-screen summary `trove import` prints on stderr: records, counts per entity, the
/// most frequent coercions and unknown keys, the first rejections, and the sync scope's outcome.
///
/// ```
/// imported photos.json (photos.photo) into Photo: 2040 records read, 2031 imported, 9 rejected
///                 inserted  updated  unchanged  deleted  stubs
///   Photo             1990       41          0        0      0
/// coercions: epochSecondsToDate 610, stringToInteger 520, …
/// unknown keys (ignored): Photo.farm 340, …
/// warning: the key 'uploadDate' of Photo records was ignored: the attribute uploadDate is read from 'upload_date' only; … (seen 12 times)
/// rejected: record 17 at views: …
/// ```
struct ImportSummary {
    let report: ImportReport
    let input: String
    let entity: String
    let root: String?
    let syncScope: String?
    /// What stopped the import before its end (`--strict`, invalid JSON), if anything did.
    let stoppedBy: String?
    let rejectsFile: String?
    let reportFile: String?
    /// Whether it was a dry run (`--dry-run`): the counts say what a real run would have done.
    var dryRun = false

    /// How many coercion kinds, unknown keys and rejections are listed.
    static let coercionsShown = 6
    static let unknownKeysShown = 6
    static let rejectionsShown = 5
    /// Longest rejection line, in characters, before it is cut.
    static let lineLimit = 160

    /// The summary, one line per fact, ending with a newline.
    func text() -> String {
        var lines = [headline()]
        if let resumed = report.resumedAt {
            lines.append("resumed an interrupted import after record \(resumed.records) (byte \(resumed.byteOffset)); the counts are this run's")
        }
        lines += entityTable()
        let coercions = report.coercions.filter { $0.key != .none }.map { ($0.key.rawValue, $0.value) }
        if !coercions.isEmpty {
            lines.append("coercions: " + Self.top(coercions, Self.coercionsShown, unit: "kind"))
        }
        if !report.unknownKeys.isEmpty {
            lines.append("unknown keys (ignored): " + Self.top(report.unknownKeys.map { ($0.key, $0.value) }, Self.unknownKeysShown, unit: "key"))
        }
        lines += report.warnings.map { "warning: \($0)" }
        lines += rejections()
        if let reason = report.appliedAsObjects {
            lines.append("applied through objects, the slower path, because \(reason)")
        }
        if let syncScope {
            lines.append("sync scope (\(syncScope)): " + syncOutcome())
        }
        var files: [String] = []
        if let rejectsFile { files.append("rejected records (NDJSON) in \(rejectsFile)") }
        if let reportFile { files.append("report (JSON) in \(reportFile)") }
        if !files.isEmpty { lines.append("wrote " + files.joined(separator: "; ")) }
        return lines.joined(separator: "\n") + "\n"
    }

    private func headline() -> String {
        let source = root.map { "\(input) (\($0))" } ?? input
        var counts = "\(report.recordsRead) record\(report.recordsRead == 1 ? "" : "s") read, \(report.recordsImported) imported"
        counts += ", \(report.rejectedCount) rejected"
        if report.recordsSkipped > 0 { counts += ", \(report.recordsSkipped) skipped" }
        let verb = stoppedBy.map { "stopped (\($0)) importing" } ?? "imported"
        return "\(dryRun ? "dry run, nothing written: " : "")\(verb) \(source) into \(entity): \(counts)"
    }

    /// A row per entity the import touched, the imported entity first.
    private func entityTable() -> [String] {
        let names = report.entities.keys.sorted { ($0 == entity ? 0 : 1, $0) < ($1 == entity ? 0 : 1, $1) }
        guard !names.isEmpty else { return [] }
        let headers = ["inserted", "updated", "unchanged", "deleted", "stubs"]
        let rows = names.map { name -> [String] in
            let c = report.entities[name] ?? ImportReport.EntityCounts()
            return [name] + [c.inserted, c.updated, c.unchanged, c.deleted, c.stubs].map(String.init)
        }
        let nameWidth = max(names.map(\.count).max() ?? 0, 6)
        let widths = headers.enumerated().map { column, header in
            max(header.count, rows.map { $0[column + 1].count }.max() ?? 0)
        }
        func line(_ first: String, _ cells: [String]) -> String {
            let padded = first.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
            let numbers = cells.enumerated().map { String(repeating: " ", count: widths[$0] - $1.count) + $1 }
            return "  " + padded + "  " + numbers.joined(separator: "  ")
        }
        return [line("", headers)] + rows.map { line($0[0], Array($0.dropFirst())) }
    }

    private func rejections() -> [String] {
        let count = report.rejectedCount
        guard count > 0 else { return [] }
        let shown = report.rejected.prefix(Self.rejectionsShown)
        var lines = [count > shown.count
            ? "rejected \(count) records; the first \(shown.count):"
            : "rejected \(count) record\(count == 1 ? "" : "s"):"]
        for record in shown {
            lines.append("  " + Self.cut(Self.line(for: record)))
        }
        if count > shown.count {
            let whereToLook = rejectsFile ?? reportFile
            lines.append("  … and \(count - shown.count) more" + (whereToLook.map { " (all in \($0))" } ?? " (--rejects FILE or --report FILE lists them all)"))
        }
        return lines
    }

    /// "record 7 at views: Photo.views: not a number (got "lots", expected integer64)"; a
    /// record rejected as a whole is not quoted back, the rejects file has it.
    static func line(for record: RejectedRecord) -> String {
        guard record.path.isEmpty else { return record.description }
        return "record \(record.index): \(record.reason)"
    }

    private func syncOutcome() -> String {
        if stoppedBy != nil { return "not applied, the import stopped" }
        if let skipped = report.syncScopeSkipped { return skipped }
        let deleted = report.entities[entity]?.deleted ?? 0
        return "deleted \(deleted) \(entity) object\(deleted == 1 ? "" : "s") not in the input"
    }

    /// "a 12, b 7, c 3, … and 4 more keys", most frequent first.
    static func top(_ counts: [(String, Int)], _ limit: Int, unit: String) -> String {
        let sorted = counts.sorted { ($1.1, $0.0) < ($0.1, $1.0) }
        var text = sorted.prefix(limit).map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        if sorted.count > limit {
            let more = sorted.count - limit
            text += ", and \(more) more \(unit)\(more == 1 ? "" : "s")"
        }
        return text
    }

    static func cut(_ line: String) -> String {
        let flat = line.replacingOccurrences(of: "\n", with: " ")
        return flat.count > lineLimit ? String(flat.prefix(lineLimit - 1)) + "…" : flat
    }
}
