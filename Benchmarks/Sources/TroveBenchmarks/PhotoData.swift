import Foundation
import GRDBSQLite
import Trove

/// The benchmarks' data: a Photo-like entity and a deterministic generator of its rows.
enum PhotoData {
    /// Bump when the model or the generator changes: cached data sets of another version are
    /// not reused.
    static let formatVersion = 1

    static let model: Model = {
        do {
            return try Model {
                Entity("Photo", uniqueBy: [["id"]]) {
                    Attribute("id", .string, optional: false)
                    Attribute("title", .string)
                    Attribute("views", .integer64, default: 0)
                    Attribute("uploadDate", .date)
                    Attribute("width", .integer32)
                    Attribute("height", .integer32)
                    Attribute("latitude", .double)
                    Attribute("longitude", .double)
                    Attribute("favorite", .boolean, default: false)
                }
            }
        } catch {
            fatalError("the benchmark model is invalid: \(error)")
        }
    }()

    /// The attribute columns, in the model's order (Trove selects `_pk`, `_version`, then these).
    static let columns = ["id", "title", "views", "uploadDate", "width", "height", "latitude", "longitude", "favorite"]

    /// 2010-01-01T00:00:00Z, in seconds since 2001 (how Trove stores dates).
    static let firstUploadDate: Double = 283_996_800
    /// Upload dates spread over 15 years from ``firstUploadDate``.
    static let uploadDateSpan: Double = 15 * 365 * 86_400

    /// Row `index` (0-based; its primary key is `index + 1`), the same on every run.
    struct Row: Equatable {
        var id: String
        var title: String
        var views: Int64
        var uploadDate: Double
        var width: Int64
        var height: Int64
        var latitude: Double
        var longitude: Double
        var favorite: Bool

        private static let adjectives = ["Golden", "Misty", "Quiet", "Bright", "Frozen", "Hidden", "Wild", "Ancient",
                                         "Blue", "Silent", "Crimson", "Distant", "Lonely", "Urban", "Northern", "Soft"]
        private static let nouns = ["Sunset", "Harbor", "Forest", "Bridge", "Meadow", "Canyon", "Street", "Lake",
                                    "Mountain", "Garden", "Market", "Shore", "Valley", "Tower", "Island", "Train"]
        private static let widths: [Int64] = [640, 800, 1024, 1600, 2048, 4000]

        init(index: Int) {
            var random = SplitMix64(seed: UInt64(index))
            let a = random.next(), b = random.next(), c = random.next(), d = random.next()
            id = PhotoData.id(index)
            title = "\(Row.adjectives[Int(a & 15)]) \(Row.nouns[Int((a >> 4) & 15)]) \(index % 997)"
            views = Int64(b % 1_000_000)
            uploadDate = PhotoData.firstUploadDate + Double(c % UInt64(PhotoData.uploadDateSpan))
            width = Row.widths[Int((a >> 8) % 6)]
            height = width * 3 / 4
            latitude = Double(d % 180_000_000) / 1_000_000 - 90
            longitude = Double((d >> 32) % 360_000_000) / 1_000_000 - 180
            favorite = (a >> 16) % 10 == 0
        }

        var values: [(String, AttributeValue)] {
            [("id", .string(id)), ("title", .string(title)), ("views", .integer(views)),
             ("uploadDate", .date(Date(timeIntervalSinceReferenceDate: uploadDate))),
             ("width", .integer(width)), ("height", .integer(height)),
             ("latitude", .double(latitude)), ("longitude", .double(longitude)), ("favorite", .boolean(favorite))]
        }
    }

    /// The unique `id` of row `index`: `photo-00000042`.
    static func id(_ index: Int) -> String {
        let digits = String(index)
        return "photo-" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    // MARK: Cached data sets

    /// A Trove store holding `rows` photos, made once and kept under `scratch/data`, keyed by the
    /// row count and ``formatVersion``. The schema and metadata are Trove's own (the store is
    /// created by `SQLiteStore`); the rows are written with SQLite's C API in one transaction,
    /// which takes seconds rather than the minute Trove's inserts take (measured by the insert
    /// scenario). ``verify(_:rows:)`` checks that Trove reads them back as generated.
    static func cachedStore(rows: Int, scratch: URL, log: (String) -> Void) throws -> URL {
        let directory = scratch.appendingPathComponent("data")
        let url = directory.appendingPathComponent("photos-v\(formatVersion)-\(rows).trove")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let building = directory.appendingPathComponent("building-\(ProcessInfo.processInfo.processIdentifier).trove")
        removeStore(at: building)
        let seconds = try Measure.seconds {
            try createEmptyStore(at: building)
            let db = try RawDatabase(path: building.path)
            try db.execute("PRAGMA synchronous = OFF")
            try db.execute("BEGIN")
            try insertRaw(rows: 0..<rows, into: db)
            try db.execute("COMMIT")
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try FileManager.default.moveItem(at: building, to: url)
        removeStore(at: building)
        log("made \(url.lastPathComponent): \(rows) rows in \(String(format: "%.1f", seconds)) s (C API, one transaction)")
        return url
    }

    /// Creates a store with Trove's schema and metadata for ``model``, and no rows.
    static func createEmptyStore(at url: URL) throws {
        _ = try SQLiteStore(url: url, model: model)
    }

    /// Inserts rows `range` with one prepared statement, as a hand-written importer would.
    static func insertRaw(rows range: Range<Int>, into db: RawDatabase) throws {
        let columnList = (["_version"] + columns).map { "\"\($0)\"" }.joined(separator: ", ")
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let statement = try db.prepare("INSERT INTO \"Photo\" (\(columnList)) VALUES (1, \(marks))")
        for index in range {
            let row = Row(index: index)
            var code = statement.bind(row.id, at: 1)
            code |= statement.bind(row.title, at: 2)
            code |= statement.bind(row.views, at: 3)
            code |= statement.bind(row.uploadDate, at: 4)
            code |= statement.bind(row.width, at: 5)
            code |= statement.bind(row.height, at: 6)
            code |= statement.bind(row.latitude, at: 7)
            code |= statement.bind(row.longitude, at: 8)
            code |= statement.bind(Int64(row.favorite ? 1 : 0), at: 9)
            guard code == SQLITE_OK else { throw SQLiteFailure(description: "bind failed at row \(index)") }
            _ = try statement.step()
            statement.reset()
        }
    }

    /// Checks that Trove reads a few rows of the store exactly as they were generated.
    static func verify(_ context: ObjectContext, rows: Int) throws {
        guard let entity = model.entity(named: "Photo") else { return }
        for index in [0, rows / 2, rows - 1] {
            let object = try context.object(with: ObjectID(entity: entity, primaryKey: Int64(index + 1)))
            for (key, expected) in Row(index: index).values {
                let actual = try object.value(forKey: key)
                guard actual == expected else {
                    throw SQLiteFailure(description: "row \(index): \(key) is \(actual) in the store, \(expected) generated; delete the scratch data")
                }
            }
        }
    }

    /// Deletes a store file with its WAL, shared-memory and lock files.
    static func removeStore(at url: URL) {
        for suffix in ["", "-wal", "-shm", "-lock"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }
}

/// A small, fast, seedable generator (SplitMix64), so that row `i` is the same on every run.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed &* 0x9E37_79B9_7F4A_7C15 &+ 0xD1B5_4A32_D192_ED03
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
