/// How far a migration has got, as it goes: the rows it has written, per table and in all.
///
/// Given to the handler of ``SQLiteStore/migrate(storeAt:to:keepingBackup:progress:)`` or
/// ``SQLiteStore/Options/migrationProgress`` after each statement that writes rows (a rebuilt
/// table is copied 20,000 rows a statement), on the migrating thread. `trove migrate` shows it
/// with the bar `trove import` shows.
public struct MigrationProgress: Sendable, Hashable {
    /// A function given the progress.
    public typealias Handler = @Sendable (MigrationProgress) -> Void

    /// The stage under way, from 0.
    public var stage: Int
    /// The number of stages (1 for an inferred migration).
    public var stageCount: Int
    /// The table being written.
    public var table: String
    /// The rows written in ``table`` so far.
    public var tableRowsWritten: Int
    /// The rows the stage under way has written so far.
    public var rowsWritten: Int
    /// The rows the stage under way rewrites, as its plan counts them (``InferredMigration/rowsRewritten``).
    public var totalRows: Int
    /// Time since the migration started.
    public var elapsed: Duration
    /// Rows written per second since the migration started.
    public var rowsPerSecond: Double
    /// Whether the migration is done (its transaction about to commit).
    public var isFinished: Bool

    /// The share of the stage under way done, from 0 to 1; `nil` when it rewrites no row.
    public var fractionCompleted: Double? {
        guard totalRows > 0 else { return nil }
        return isFinished ? 1 : min(1, Double(rowsWritten) / Double(totalRows))
    }

    /// The time left in the stage under way at this rate, when it can be told.
    public var estimatedTimeRemaining: Duration? {
        guard let fraction = fractionCompleted, fraction > 0, rowsPerSecond > 0 else { return nil }
        return .seconds(Double(max(0, totalRows - rowsWritten)) / rowsPerSecond)
    }

    /// Creates a progress value (Trove makes them; this is for previews and tests).
    public init(stage: Int, stageCount: Int, table: String, tableRowsWritten: Int, rowsWritten: Int, totalRows: Int,
                elapsed: Duration, rowsPerSecond: Double, isFinished: Bool) {
        self.stage = stage
        self.stageCount = stageCount
        self.table = table
        self.tableRowsWritten = tableRowsWritten
        self.rowsWritten = rowsWritten
        self.totalRows = totalRows
        self.elapsed = elapsed
        self.rowsPerSecond = rowsPerSecond
        self.isFinished = isFinished
    }
}

/// Counts a migration's rows and reports its progress.
struct MigrationMeter {
    let report: MigrationProgress.Handler
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var progress = MigrationProgress(stage: 0, stageCount: 1, table: "", tableRowsWritten: 0, rowsWritten: 0, totalRows: 0,
                                             elapsed: .zero, rowsPerSecond: 0, isFinished: false)
    /// Rows written in every stage, for the rate.
    private var allRows = 0

    init(report: @escaping MigrationProgress.Handler) {
        self.report = report
        start = clock.now
    }

    mutating func begin(stage index: Int, of count: Int, rows: Int) {
        progress.stage = index
        progress.stageCount = count
        progress.totalRows = rows
        progress.rowsWritten = 0
        progress.table = ""
        progress.tableRowsWritten = 0
    }

    mutating func wrote(_ rows: Int, in table: String) {
        if table != progress.table {
            progress.table = table
            progress.tableRowsWritten = 0
        }
        progress.tableRowsWritten += rows
        progress.rowsWritten += rows
        allRows += rows
        send()
    }

    mutating func finish() {
        progress.isFinished = true
        send()
    }

    private mutating func send() {
        progress.elapsed = start.duration(to: clock.now)
        let seconds = Double(progress.elapsed.components.seconds) + Double(progress.elapsed.components.attoseconds) / 1e18
        progress.rowsPerSecond = seconds > 0 ? Double(allRows) / seconds : 0
        report(progress)
    }
}
