import Foundation
import Trove

/// Shows an import's or a migration's progress on stderr: a bar redrawn in place when stderr is
/// a terminal, else a plain line every few seconds (for logs).
///
/// ```
/// [##########..........]  50%  120000 records  18.2k rec/s  about 7 s left
/// trove import photos.json: 50% (120000 records, 61.2 MB of 122.4 MB), 18200 records/s, about 7 s left
/// [##########..........]  50%  500000 rows  210.4k rows/s  about 2 s left  (Photo)
/// trove migrate photos.trove: 50% (500000 of 1000000 rows; table Photo), 210400 rows/s, about 2 s left
/// ```
final class ProgressMeter {
    let input: String
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private let clock = ContinuousClock()
    private var lastShown: ContinuousClock.Instant?
    private var drewBar = false
    /// Seconds between plain lines.
    static let lineInterval: Duration = .seconds(5)
    /// Seconds between redraws of the bar.
    static let barInterval: Duration = .milliseconds(100)
    static let barWidth = 20

    init(input: String) {
        self.input = input
        // The first plain line comes after an interval: a short import prints none.
        if !isTerminal { lastShown = clock.now }
    }

    /// Shows `progress` if enough time passed since the last; a wait for another import, and a
    /// resumed import's starting point, always, as lines of their own.
    func show(_ progress: ImportProgress) {
        if progress.isWaiting {
            write(Self.waitingLine(input: input) + "\n")
            return
        }
        if progress.isResumePoint {
            write(Self.resumeLine(progress, input: input) + "\n")
            return
        }
        draw(isFinished: progress.isFinished, bar: { Self.bar(progress) }, line: { Self.line(progress, input: input) })
    }

    /// Shows a migration's `progress` if enough time passed since the last.
    func show(_ progress: MigrationProgress) {
        draw(isFinished: progress.isFinished, bar: { Self.bar(progress) }, line: { Self.line(progress, store: input) })
    }

    private func draw(isFinished: Bool, bar: () -> String, line: () -> String) {
        let now = clock.now
        if let lastShown, lastShown.duration(to: now) < (isTerminal ? Self.barInterval : Self.lineInterval), !isFinished {
            return
        }
        lastShown = now
        if isTerminal {
            drewBar = true
            write("\r" + bar() + "\u{1B}[K")
        } else if !isFinished {
            write(line() + "\n")
        }
    }

    /// Ends the bar's line, if one was drawn.
    func finish() {
        if drewBar { write("\n") }
        drewBar = false
    }

    static func bar(_ progress: ImportProgress) -> String {
        bar(fraction: progress.fractionCompleted, count: "\(progress.recordsRead) records",
            rate: String(format: "%.1fk rec/s", progress.recordsPerSecond / 1000), left: progress.estimatedTimeRemaining)
    }

    static func bar(_ progress: MigrationProgress) -> String {
        bar(fraction: progress.fractionCompleted, count: "\(progress.rowsWritten) rows",
            rate: String(format: "%.1fk rows/s", progress.rowsPerSecond / 1000), left: progress.estimatedTimeRemaining)
            + "  (\(stagePrefix(progress))\(progress.table))"
    }

    private static func bar(fraction: Double?, count: String, rate: String, left: Duration?) -> String {
        var text = ""
        if let fraction {
            let filled = Int((fraction * Double(barWidth)).rounded(.down))
            text = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "] "
            text += String(format: "%3.0f%%  ", fraction * 100)
        }
        text += "\(count)  \(rate)"
        if let left { text += "  about \(seconds(left)) left" }
        return text
    }

    static func line(_ progress: MigrationProgress, store: String) -> String {
        var text = "trove migrate \(store): "
        if let fraction = progress.fractionCompleted { text += String(format: "%.0f%% ", fraction * 100) }
        text += "(\(stagePrefix(progress))\(progress.rowsWritten) of \(progress.totalRows) rows; table \(progress.table))"
            + String(format: ", %.0f rows/s", progress.rowsPerSecond)
        if let left = progress.estimatedTimeRemaining { text += ", about \(seconds(left)) left" }
        return text
    }

    private static func stagePrefix(_ progress: MigrationProgress) -> String {
        progress.stageCount > 1 ? "stage \(progress.stage + 1) of \(progress.stageCount), " : ""
    }

    static func waitingLine(input: String) -> String {
        "trove import \(input): waiting for another import of \(input) to finish (one import of a file runs at a time)"
    }

    static func resumeLine(_ progress: ImportProgress, input: String) -> String {
        "trove import \(input): resuming an interrupted import after record \(progress.recordsRead) (byte \(progress.bytesRead))"
    }

    static func line(_ progress: ImportProgress, input: String) -> String {
        var parts = ["\(progress.recordsRead) records"]
        if let total = progress.totalBytes {
            parts.append(String(format: "%.1f MB of %.1f MB", Double(progress.bytesRead) / 1e6, Double(total) / 1e6))
        } else {
            parts.append(String(format: "%.1f MB", Double(progress.bytesRead) / 1e6))
        }
        if progress.recordsRejected > 0 { parts.append("\(progress.recordsRejected) rejected") }
        var text = "trove import \(input): "
        if let fraction = progress.fractionCompleted { text += String(format: "%.0f%% ", fraction * 100) }
        text += "(" + parts.joined(separator: ", ") + String(format: "), %.0f records/s", progress.recordsPerSecond)
        if let left = progress.estimatedTimeRemaining { text += ", about \(seconds(left)) left" }
        return text
    }

    private static func seconds(_ duration: Duration) -> String {
        let total = Int(duration.components.seconds)
        return total < 120 ? "\(total) s" : "\(total / 60) min"
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
