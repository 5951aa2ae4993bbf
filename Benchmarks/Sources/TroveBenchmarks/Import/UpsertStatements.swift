import Foundation
import GRDBSQLite

/// The hand-written importers' connection and prepared upserts on SQLite's C API: the C API job
/// and SQLite's floor run these same statements, bound the same way, so that the floor's time is
/// the C API job's SQLite part with nothing else in it.
///
/// An upsert whose values are unchanged writes nothing (its `DO UPDATE` has a `WHERE`), and an
/// update bumps `_version`, as Trove does.
final class UpsertStatements {
    let db: RawDatabase
    private let upsertOwner: RawStatement
    private let findOwner: RawStatement
    private let upsertPhoto: RawStatement

    /// Opens the store in WAL mode with `synchronous=FULL` (Trove's durability) and prepares the
    /// upserts.
    init(store: URL) throws {
        db = try RawDatabase(path: store.path)
        try db.execute("PRAGMA journal_mode = WAL")
        try db.execute("PRAGMA synchronous = FULL")
        upsertOwner = try db.prepare("""
            INSERT INTO "Owner" ("id", "name", "location") VALUES (?1, ?2, ?3)
            ON CONFLICT ("id") DO UPDATE SET "name" = excluded."name", "location" = excluded."location",
              "_version" = "_version" + 1
            WHERE "name" IS NOT excluded."name" OR "location" IS NOT excluded."location"
            RETURNING "_pk"
            """)
        findOwner = try db.prepare(#"SELECT "_pk" FROM "Owner" WHERE "id" = ?1"#)
        upsertPhoto = try db.prepare("""
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
    }

    // MARK: Transactions

    func begin() throws { try db.execute("BEGIN IMMEDIATE") }

    func commit() throws { try db.execute("COMMIT") }

    // MARK: Upserts

    /// Upserts an owner and returns its `_pk`: the upsert's `RETURNING` when it wrote, a lookup
    /// by `id` when the owner was there with the same values (the upsert then returns nothing).
    @inline(__always)
    func owner(id: String, name: String?, location: String?) throws -> Int64 {
        let s = upsertOwner
        var code = s.bind(id, at: 1)
        code |= bind(name, 2, s)
        code |= bind(location, 3, s)
        guard code == SQLITE_OK else { throw SQLiteFailure(description: "bind failed for owner \(id)") }
        let pk: Int64
        if try s.step() {
            pk = s.int64(0)
            while try s.step() {}
        } else {
            _ = findOwner.bind(id, at: 1)
            guard try findOwner.step() else { throw SQLiteFailure(description: "owner \(id) vanished") }
            pk = findOwner.int64(0)
            findOwner.reset()
        }
        s.reset()
        return pk
    }

    /// Upserts a photo (`isPublic` as SQLite stores a boolean, `uploadDate` in seconds since
    /// 2001, `owner` the owner's `_pk`).
    @inline(__always)
    func photo(id: Int64, title: String?, description: String?, uploadDate: Double?, views: Int64?,
               latitude: Double?, isPublic: Int64?, tags: String?, owner: Int64?) throws {
        let s = upsertPhoto
        var code = s.bind(id, at: 1)
        code |= bind(title, 2, s)
        code |= bind(description, 3, s)
        code |= bind(uploadDate, 4, s)
        code |= bind(views, 5, s)
        code |= bind(latitude, 6, s)
        code |= bind(isPublic, 7, s)
        code |= bind(tags, 8, s)
        code |= bind(owner, 9, s)
        guard code == SQLITE_OK else { throw SQLiteFailure(description: "bind failed for photo \(id)") }
        while try s.step() {}
        s.reset()
    }

    // MARK: Binding optionals

    @inline(__always)
    private func bind(_ value: String?, _ index: Int32, _ s: RawStatement) -> Int32 {
        value.map { s.bind($0, at: index) } ?? sqlite3_bind_null(s.handle, index)
    }

    @inline(__always)
    private func bind(_ value: Int64?, _ index: Int32, _ s: RawStatement) -> Int32 {
        value.map { s.bind($0, at: index) } ?? sqlite3_bind_null(s.handle, index)
    }

    @inline(__always)
    private func bind(_ value: Double?, _ index: Int32, _ s: RawStatement) -> Int32 {
        value.map { s.bind($0, at: index) } ?? sqlite3_bind_null(s.handle, index)
    }
}
