import Testing
@testable import TroveCLI
import Trove

/// What `trove import` prints as it goes: a bar on a terminal, a plain line in logs.
@Suite struct ProgressMeterTests {
    static func progress(bytes: Int64, total: Int64?) -> ImportProgress {
        ImportProgress(bytesRead: bytes, totalBytes: total, recordsRead: 120_000, recordsRejected: 3,
                                      elapsed: .seconds(6), recordsPerSecond: 20_000, isFinished: false)
    }

    @Test func theBarShowsShareRecordsRateAndTimeLeft() {
        #expect(ProgressMeter.bar(Self.progress(bytes: 50, total: 100)) == "[##########..........]  50%  120000 records  20.0k rec/s  about 6 s left")
        #expect(ProgressMeter.bar(Self.progress(bytes: 50, total: nil)) == "120000 records  20.0k rec/s", "standard input has no size")
    }

    @Test func theLineSaysTheSameInWords() {
        #expect(ProgressMeter.line(Self.progress(bytes: 61_200_000, total: 122_400_000), input: "photos.json")
                == "trove import photos.json: 50% (120000 records, 61.2 MB of 122.4 MB, 3 rejected), 20000 records/s, about 6 s left")
    }
}
