import Testing
@testable import TroveCLI
import Trove

/// What `trove import` and `trove migrate` print as they go: a bar on a terminal, a plain line in logs.
@Suite struct ProgressMeterTests {
    static func progress(bytes: Int64, total: Int64?) -> ImportProgress {
        ImportProgress(bytesRead: bytes, totalBytes: total, recordsRead: 120_000, recordsRejected: 3,
                                      elapsed: .seconds(6), recordsPerSecond: 20_000, isFinished: false)
    }

    @Test func theBarShowsShareRecordsRateAndTimeLeft() {
        #expect(ProgressMeter.bar(Self.progress(bytes: 50, total: 100)) == "[##########..........]  50%  120000 records  20.0k rec/s  about 6 s left")
        #expect(ProgressMeter.bar(Self.progress(bytes: 50, total: nil)) == "120000 records  20.0k rec/s", "standard input has no size")
    }

    @Test func aResumedImportSaysWhereItPicksUpBeforeItReads() {
        let start = ImportProgress(bytesRead: 95, totalBytes: 200, recordsRead: 4, recordsRejected: 0, elapsed: .zero,
                                   recordsPerSecond: 0, isFinished: false, startBytes: 95)
        #expect(start.isResumePoint)
        #expect(ProgressMeter.resumeLine(start, input: "photos.json") == "trove import photos.json: resuming an interrupted import after record 4 (byte 95)")
        var later = start
        later.bytesRead = 150
        later.elapsed = .seconds(1)
        #expect(!later.isResumePoint && !Self.progress(bytes: 50, total: 100).isResumePoint)
    }

    @Test func theLineSaysTheSameInWords() {
        #expect(ProgressMeter.line(Self.progress(bytes: 61_200_000, total: 122_400_000), input: "photos.json")
                == "trove import photos.json: 50% (120000 records, 61.2 MB of 122.4 MB, 3 rejected), 20000 records/s, about 6 s left")
    }

    static func migration(rows: Int, stages: Int = 1) -> MigrationProgress {
        MigrationProgress(stage: stages - 1, stageCount: stages, table: "Photo", tableRowsWritten: rows, rowsWritten: rows,
                          totalRows: 1_000_000, elapsed: .seconds(2), rowsPerSecond: 250_000, isFinished: false)
    }

    @Test func aMigrationShowsTheSameBarInRowsWithItsTable() {
        #expect(ProgressMeter.bar(Self.migration(rows: 500_000)) == "[##########..........]  50%  500000 rows  250.0k rows/s  about 2 s left  (Photo)")
        #expect(ProgressMeter.bar(Self.migration(rows: 500_000, stages: 2)).hasSuffix("(stage 2 of 2, Photo)"))
        #expect(ProgressMeter.line(Self.migration(rows: 250_000), store: "photos.trove")
                == "trove migrate photos.trove: 25% (250000 of 1000000 rows; table Photo), 250000 rows/s, about 3 s left")
        var done = Self.migration(rows: 1_000_000)
        done.isFinished = true
        #expect(done.fractionCompleted == 1 && done.estimatedTimeRemaining == .zero)
    }
}
