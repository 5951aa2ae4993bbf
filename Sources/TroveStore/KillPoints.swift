import Foundation
import TroveModel

/// A test hook: kills the process with SIGKILL when it reaches a named point of a commit for the
/// N-th time, so tests can stop a save, an import, a delete or a migration exactly there and check that the
/// store is whole afterwards.
///
/// Armed by the environment variable `TROVE_TEST_KILL_AT=POINT#N` (or `POINT` for the first
/// arrival), read once when the process first reaches a point. Without it, reaching a point costs
/// one load of a constant.
package enum KillPoint: String, CaseIterable, Sendable {
    /// In a save's (or batch request's) transaction, every row written, before `COMMIT`.
    case saveBeforeCommit = "save.before-commit"
    /// Just after a save's (or batch request's) `COMMIT` returned, before the caller learns of it.
    case saveAfterCommit = "save.after-commit"
    /// In a migration's transaction, before each of its statements (its N-th arrival is just
    /// before the N-th statement runs).
    case migrationStatement = "migrate.statement"
    /// In a migration's transaction, every table reshaped and the new model written, before `COMMIT`.
    case migrationBeforeCommit = "migrate.before-commit"
    /// Just after a migration's `COMMIT` returned.
    case migrationAfterCommit = "migrate.after-commit"

    /// The environment variable that arms a kill point.
    package static let variable = "TROVE_TEST_KILL_AT"

    /// The armed point and the arrival that kills, from the environment; `nil` when none is set.
    private static let armed: (point: KillPoint, arrival: Int)? = {
        guard let text = ProcessInfo.processInfo.environment[variable] else { return nil }
        let parts = text.split(separator: "#", maxSplits: 1)
        guard let point = parts.first.flatMap({ KillPoint(rawValue: String($0)) }),
              let arrival = parts.count == 2 ? Int(parts[1]) : 1, arrival > 0 else {
            let points = allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("\(variable)=\(text) names no kill point (\(points), then #N): ignored\n".utf8))
            return nil
        }
        return (point, arrival)
    }()

    private static let arrivals = Locked(0)

    /// Kills the process here when this point is armed and this is the arrival it names.
    package func reached() {
        guard let armed = Self.armed, armed.point == self else { return }
        let arrival = Self.arrivals.withLock { count in
            count += 1
            return count
        }
        if arrival == armed.arrival { kill(getpid(), SIGKILL) }
    }
}
