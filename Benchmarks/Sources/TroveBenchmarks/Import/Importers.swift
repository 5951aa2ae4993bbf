import Foundation
import GRDB
import GRDBSQLite
import Trove

/// The three importers of the `import` scenario. Each takes the whole payload in memory, writes
/// 1000 records per transaction into a store made by `SQLiteStore` from ``ImportPayload/model``
/// (WAL, `synchronous=FULL`), and upserts: a record whose unique key exists updates that row.
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

    /// `JSONDecoder` into ``PhotoRecord``s, then one prepared upsert per owner and per photo,
    /// bound and stepped on the C API, owners' primary keys cached by their id. An upsert whose
    /// values are unchanged writes nothing (its `DO UPDATE` has a `WHERE`), and an update bumps
    /// `_version`, as Trove does.
    static func cAPI(_ data: Data, store: URL) throws -> Timing {
        var records: [PhotoRecord] = []
        let decodeSeconds = try Measure.seconds {
            records = try JSONDecoder().decode([PhotoRecord].self, from: data)
        }
        let writeSeconds = try Measure.seconds {
            let db = try RawDatabase(path: store.path)
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute("PRAGMA synchronous = FULL")
            let upsertOwner = try db.prepare("""
                INSERT INTO "Owner" ("id", "name", "location") VALUES (?1, ?2, ?3)
                ON CONFLICT ("id") DO UPDATE SET "name" = excluded."name", "location" = excluded."location",
                  "_version" = "_version" + 1
                WHERE "name" IS NOT excluded."name" OR "location" IS NOT excluded."location"
                RETURNING "_pk"
                """)
            let findOwner = try db.prepare(#"SELECT "_pk" FROM "Owner" WHERE "id" = ?1"#)
            let upsertPhoto = try db.prepare("""
                INSERT INTO "Photo" ("id", "title", "description", "uploadDate", "views", "latitude", "isPublic", "tags", "owner")
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                ON CONFLICT ("id") DO UPDATE SET "title" = excluded."title", "description" = excluded."description",
                  "uploadDate" = excluded."uploadDate", "views" = excluded."views", "latitude" = excluded."latitude",
                  "isPublic" = excluded."isPublic", "tags" = excluded."tags", "owner" = excluded."owner",
                  "_version" = "_version" + 1
                WHERE "title" IS NOT excluded."title" OR "description" IS NOT excluded."description"
                  OR "uploadDate" IS NOT excluded."uploadDate" OR "views" IS NOT excluded."views"
                  OR "latitude" IS NOT excluded."latitude" OR "isPublic" IS NOT excluded."isPublic"
                  OR "tags" IS NOT excluded."tags" OR "owner" IS NOT excluded."owner"
                """)
            var owners: [String: (pk: Int64, record: OwnerRecord)] = [:]

            func ownerKey(_ owner: OwnerRecord) throws -> Int64 {
                if let cached = owners[owner.id], cached.record == owner { return cached.pk }
                var code = upsertOwner.bind(owner.id, at: 1)
                code |= bind(owner.name, 2, upsertOwner)
                code |= bind(owner.location, 3, upsertOwner)
                guard code == SQLITE_OK else { throw SQLiteFailure(description: "bind failed for owner \(owner.id)") }
                var pk: Int64
                if try upsertOwner.step() {
                    pk = upsertOwner.int64(0)
                    while try upsertOwner.step() {}
                } else {
                    // Present and unchanged: the upsert did nothing and returned nothing.
                    _ = findOwner.bind(owner.id, at: 1)
                    guard try findOwner.step() else { throw SQLiteFailure(description: "owner \(owner.id) vanished") }
                    pk = findOwner.int64(0)
                    findOwner.reset()
                }
                upsertOwner.reset()
                owners[owner.id] = (pk, owner)
                return pk
            }

            for start in stride(from: 0, to: records.count, by: recordsPerTransaction) {
                try db.execute("BEGIN IMMEDIATE")
                for record in records[start..<min(start + recordsPerTransaction, records.count)] {
                    let owner = try record.owner.map(ownerKey)
                    let s = upsertPhoto
                    var code = s.bind(record.id, at: 1)
                    code |= bind(record.title, 2, s)
                    code |= bind(record.description, 3, s)
                    code |= bind(record.uploadDate, 4, s)
                    code |= bind(record.views, 5, s)
                    code |= bind(record.latitude, 6, s)
                    code |= bind(record.isPublic.map { $0 ? 1 : 0 } as Int64?, 7, s)
                    code |= bind(record.tags, 8, s)
                    code |= bind(owner, 9, s)
                    guard code == SQLITE_OK else { throw SQLiteFailure(description: "bind failed for photo \(record.id)") }
                    while try s.step() {}
                    s.reset()
                }
                try db.execute("COMMIT")
            }
        }
        return Timing(seconds: decodeSeconds + writeSeconds, parts: ["decode": decodeSeconds, "write": writeSeconds])
    }

    @inline(__always)
    private static func bind(_ value: String?, _ index: Int32, _ s: RawStatement) -> Int32 {
        value.map { s.bind($0, at: index) } ?? sqlite3_bind_null(s.handle, index)
    }

    @inline(__always)
    private static func bind(_ value: Int64?, _ index: Int32, _ s: RawStatement) -> Int32 {
        value.map { s.bind($0, at: index) } ?? sqlite3_bind_null(s.handle, index)
    }

    @inline(__always)
    private static func bind(_ value: Double?, _ index: Int32, _ s: RawStatement) -> Int32 {
        value.map { s.bind($0, at: index) } ?? sqlite3_bind_null(s.handle, index)
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
