import Foundation
import GRDB
import Trove

/// The importers of the `import` scenario. Each writes 1000 records per transaction into a store
/// made by `SQLiteStore` from ``ImportPayload/model`` (WAL, `synchronous=FULL`), and upserts: a
/// record whose unique key exists updates that row. All but Trove's streaming import take the
/// whole payload in memory, read before their clock starts.
enum ImportJob {
    static let recordsPerTransaction = 1000

    /// What one import took: its total and, where the importer has them apart, its parts.
    struct Timing {
        var seconds: Double
        var parts: [String: Double] = [:]
        var report: ImportRun.TroveReport?
    }

    // MARK: Trove

    /// `Importer.importJSON` into a context of a container on the store.
    static func trove(_ data: Data, store: URL) throws -> Timing {
        var report: ImportReport?
        let seconds = try Measure.seconds {
            let container = try Container(model: ImportPayload.model, url: store)
            let importer = Importer(context: container.newBackgroundContext(),
                                    options: ImportOptions(batchSize: recordsPerTransaction))
            report = try importer.importJSON(data, into: "Photo")
        }
        return Timing(seconds: seconds, report: report.map(ImportRun.TroveReport.init))
    }

    /// `Importer.importStream` of the file, read as the import goes (never whole in memory),
    /// restarting rather than resuming any earlier job.
    static func troveStream(_ input: URL, store: URL) throws -> Timing {
        var report: ImportReport?
        let seconds = try Measure.seconds {
            let container = try Container(model: ImportPayload.model, url: store)
            let importer = Importer(context: container.newBackgroundContext(),
                                    options: ImportOptions(batchSize: recordsPerTransaction))
            report = try importer.importStream(.file(input), into: "Photo", format: .json(root: nil), resume: .restart)
        }
        return Timing(seconds: seconds, report: report.map(ImportRun.TroveReport.init))
    }

    /// `JSONValue(parsing:)` alone: the part of Trove's import that parsing takes.
    static func troveParse(_ data: Data) throws -> Timing {
        var count = 0
        let seconds = try Measure.seconds {
            let json = try JSONValue(parsing: data)
            if case .array(let records) = json { count = records.count }
        }
        guard count > 0 else { throw SQLiteFailure(description: "the payload is not an array of records") }
        return Timing(seconds: seconds)
    }

    /// `JSONDecoder` into the baselines' lenient structs alone.
    static func decode(_ data: Data) throws -> Timing {
        var count = 0
        let seconds = try Measure.seconds {
            count = try JSONDecoder().decode([PhotoRecord].self, from: data).count
        }
        guard count > 0 else { throw SQLiteFailure(description: "the payload holds no records") }
        return Timing(seconds: seconds)
    }

    // MARK: Hand-written, on SQLite's C API

    /// `JSONDecoder` into ``PhotoRecord``s, then one prepared upsert per owner and per photo
    /// (``UpsertStatements``), bound and stepped on the C API, owners' primary keys cached by
    /// their id.
    static func cAPI(_ data: Data, store: URL) throws -> Timing {
        var records: [PhotoRecord] = []
        let decodeSeconds = try Measure.seconds {
            records = try JSONDecoder().decode([PhotoRecord].self, from: data)
        }
        let writeSeconds = try Measure.seconds {
            let upserts = try UpsertStatements(store: store)
            var owners: [String: (pk: Int64, record: OwnerRecord)] = [:]

            func ownerKey(_ owner: OwnerRecord) throws -> Int64 {
                if let cached = owners[owner.id], cached.record == owner { return cached.pk }
                let pk = try upserts.owner(id: owner.id, name: owner.name, location: owner.location)
                owners[owner.id] = (pk, owner)
                return pk
            }

            for start in stride(from: 0, to: records.count, by: recordsPerTransaction) {
                try upserts.begin()
                for record in records[start..<min(start + recordsPerTransaction, records.count)] {
                    let owner = try record.owner.map(ownerKey)
                    try upserts.photo(id: record.id, title: record.title, description: record.description,
                                      uploadDate: record.uploadDate, views: record.views, latitude: record.latitude,
                                      isPublic: record.isPublic.map { $0 ? 1 : 0 }, tags: record.tags, owner: owner)
                }
                try upserts.commit()
            }
        }
        return Timing(seconds: decodeSeconds + writeSeconds, parts: ["decode": decodeSeconds, "write": writeSeconds])
    }

    // MARK: SQLite's floor

    /// The C API job's upserts — the same ``UpsertStatements``, the same transactions of 1000 —
    /// with the rows decoded and made bindable before the clock starts (``PrebuiltUpserts``,
    /// which also settles which owner upserts run): its time is SQLite's alone, the least any
    /// importer writing these rows this way can take. Its parts: `write` (the time) and
    /// `prebuild` (decoding and building the rows, not timed).
    static func sqliteFloor(_ data: Data, store: URL) throws -> Timing {
        var prebuilt: PrebuiltUpserts?
        let prebuildSeconds = try Measure.seconds {
            prebuilt = PrebuiltUpserts(try JSONDecoder().decode([PhotoRecord].self, from: data))
        }
        guard let prebuilt else { throw SQLiteFailure(description: "the floor's rows were not built") }
        let seconds = try Measure.seconds {
            let upserts = try UpsertStatements(store: store)
            var ownerKeys = [Int64](repeating: 0, count: prebuilt.ownerSlots)
            var nextOwner = 0
            let photos = prebuilt.photos
            for start in stride(from: 0, to: photos.count, by: recordsPerTransaction) {
                try upserts.begin()
                for photo in photos[start..<min(start + recordsPerTransaction, photos.count)] {
                    if photo.upsertsOwner {
                        let owner = prebuilt.owners[nextOwner]
                        ownerKeys[photo.ownerSlot] = try upserts.owner(id: owner.id, name: owner.name, location: owner.location)
                        nextOwner += 1
                    }
                    try upserts.photo(id: photo.id, title: photo.title, description: photo.description,
                                      uploadDate: photo.uploadDate, views: photo.views, latitude: photo.latitude,
                                      isPublic: photo.isPublic, tags: photo.tags,
                                      owner: photo.ownerSlot >= 0 ? ownerKeys[photo.ownerSlot] : nil)
                }
                try upserts.commit()
            }
        }
        return Timing(seconds: seconds, parts: ["write": seconds, "prebuild": prebuildSeconds])
    }

    // MARK: GRDB records

    /// `JSONDecoder` into ``PhotoRecord``s, then GRDB Codable records saved with `upsert`, one
    /// per owner (unless the same owner with the same values was just saved) and one per photo.
    /// GRDB's `upsert` rewrites every column of an existing row and leaves `_version` alone.
    static func grdb(_ data: Data, store: URL) throws -> Timing {
        var records: [PhotoRecord] = []
        let decodeSeconds = try Measure.seconds {
            records = try JSONDecoder().decode([PhotoRecord].self, from: data)
        }
        let writeSeconds = try Measure.seconds {
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            let queue = try DatabaseQueue(path: store.path, configuration: configuration)
            var owners: [String: (pk: Int64, record: OwnerRecord)] = [:]
            try queue.writeWithoutTransaction { db in
                for start in stride(from: 0, to: records.count, by: recordsPerTransaction) {
                    try db.inTransaction(.immediate) {
                        for record in records[start..<min(start + recordsPerTransaction, records.count)] {
                            var ownerPK: Int64?
                            if let owner = record.owner {
                                if let cached = owners[owner.id], cached.record == owner {
                                    ownerPK = cached.pk
                                } else {
                                    var row = OwnerRow(id: owner.id, name: owner.name, location: owner.location)
                                    try row.upsert(db)
                                    ownerPK = row.pk
                                    if let pk = row.pk { owners[owner.id] = (pk, owner) }
                                }
                            }
                            var photo = PhotoRow(
                                id: record.id, title: record.title, description: record.description,
                                uploadDate: record.uploadDate, views: record.views, latitude: record.latitude,
                                isPublic: record.isPublic, tags: record.tags, owner: ownerPK)
                            try photo.upsert(db)
                        }
                        return .commit
                    }
                }
            }
        }
        return Timing(seconds: decodeSeconds + writeSeconds, parts: ["decode": decodeSeconds, "write": writeSeconds])
    }
}

/// The baseline's GRDB record for the `Owner` table Trove made.
struct OwnerRow: Codable, MutablePersistableRecord {
    static let databaseTableName = "Owner"
    var pk: Int64?
    var id: String
    var name: String?
    var location: String?

    enum CodingKeys: String, CodingKey { case pk = "_pk", id, name, location }

    mutating func didInsert(_ inserted: InsertionSuccess) { pk = inserted.rowID }
}

/// The baseline's GRDB record for the `Photo` table Trove made (a date as seconds since 2001,
/// as Trove stores it).
struct PhotoRow: Codable, MutablePersistableRecord {
    static let databaseTableName = "Photo"
    var pk: Int64?
    var id: Int64
    var title: String?
    var description: String?
    var uploadDate: Double?
    var views: Int64?
    var latitude: Double?
    var isPublic: Bool?
    var tags: String?
    var owner: Int64?

    enum CodingKeys: String, CodingKey {
        case pk = "_pk", id, title, description, uploadDate, views, latitude, isPublic, tags, owner
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { pk = inserted.rowID }
}
