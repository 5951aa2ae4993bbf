/// A set of primary keys of one table, split the way ``SQLiteStore/rows(for:)`` reads them:
/// runs of keys dense enough to read as a range of the table (one seek, then a walk along the
/// rows, skipping those not asked for), and the rest, looked up one by one.
///
/// A batch of fetched results in primary-key order is one run: reading it by range costs about
/// what stepping through the table does, where looking each key up costs nearly twice that.
struct PrimaryKeyRuns {
    /// Runs of ascending keys, each spanning at most twice as many rows as it has keys.
    private(set) var ranges: [ArraySlice<Int64>] = []
    /// The keys in no run, ascending.
    private(set) var lookups: [Int64] = []

    /// A run shorter than this is looked up, unless it holds every key: a range read costs a
    /// statement of its own.
    static let shortestRange = 8

    /// Splits `keys` (in any order, repeats allowed).
    init(_ keys: [Int64]) {
        var sorted = keys
        if !Self.ascend(sorted) { sorted.sort() }
        var unique: [Int64] = []
        unique.reserveCapacity(sorted.count)
        for key in sorted where key != unique.last { unique.append(key) }
        var runs: [ArraySlice<Int64>] = []
        var start = 0
        while start < unique.count {
            var end = start + 1
            // Grow the run while it spans at most twice as many rows as it holds keys.
            while end < unique.count {
                let (span, overflow) = unique[end].subtractingReportingOverflow(unique[start])
                guard !overflow, span < 2 * Int64(end - start + 1) else { break }
                end += 1
            }
            runs.append(unique[start..<end])
            start = end
        }
        for run in runs {
            if run.count >= Self.shortestRange || runs.count == 1 {
                ranges.append(run)
            } else {
                lookups += run
            }
        }
    }

    /// Whether `keys` ascend (repeats allowed): sorting them is then not needed.
    private static func ascend(_ keys: [Int64]) -> Bool {
        var previous = Int64.min
        for key in keys {
            if key < previous { return false }
            previous = key
        }
        return true
    }
}
