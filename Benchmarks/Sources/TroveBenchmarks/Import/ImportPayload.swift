import Foundation
import GRDBSQLite
import Trove

/// The import benchmark's data: Flickr-like photos with a nested owner, made by
/// `scripts/gen_photos.py` (a copy of `../shared/bench/gen_photos.py`), and the model all three importers fill (Trove through the
/// model, the baselines through the same tables, created by `SQLiteStore` from that model).
enum ImportPayload {
    /// `Owner(id unique, name, location) ← Photo(id integer64 unique, …, owner)`. JSON keys are
    /// snake_case (`upload_date`, `is_public`); `keyStyle` maps them, so no remote keys are needed.
    static let model: Model = {
        do {
            return try Model(keyStyle: .snakeCase) {
                Entity("Owner", uniqueBy: [["id"]]) {
                    Attribute("id", .string, optional: false)
                    Attribute("name", .string)
                    Attribute("location", .string)
                    Relationship("photos", to: "Photo", toMany: true, inverse: "owner")
                }
                Entity("Photo", uniqueBy: [["id"]]) {
                    Attribute("id", .integer64, optional: false)
                    Attribute("title", .string)
                    Attribute("description", .string)
                    Attribute("uploadDate", .date, dateFormat: .iso8601)
                    Attribute("views", .integer64, default: 0)
                    Attribute("latitude", .double)
                    Attribute("isPublic", .boolean)
                    Attribute("tags", .string)
                    Relationship("owner", to: "Owner", inverse: "photos")
                }
            }
        } catch {
            fatalError("the import benchmark model is invalid: \(error)")
        }
    }()

    /// The generator's files for `records`, made once under `scratch/import-data` (the script
    /// writes the same bytes for the same `records`; delete the folder to make them anew).
    static func files(records: Int, scratch: URL, generator: String) throws -> (photos: URL, update: URL) {
        let directory = scratch.appendingPathComponent("import-data")
        let photos = directory.appendingPathComponent("photos_\(records).json")
        let update = directory.appendingPathComponent("update_\(records).json")
        let manager = FileManager.default
        if manager.fileExists(atPath: photos.path), manager.fileExists(atPath: update.path) { return (photos, update) }
        guard manager.fileExists(atPath: generator) else {
            throw SQLiteFailure(description: "no data generator at \(generator); pass --generator PATH (gen_photos.py)")
        }
        try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        // Written in a folder of its own, moved into place when complete: an interrupted run
        // never leaves half a file that a later run would take as made.
        let building = directory.appendingPathComponent("building-\(ProcessInfo.processInfo.processIdentifier)")
        try? manager.removeItem(at: building)
        log("generating \(records) records with \(generator) (once; cached in \(directory.path))")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", generator, String(records), building.path]
        let seconds = try Measure.seconds {
            try process.run()
            process.waitUntilExit()
        }
        guard process.terminationStatus == 0 else {
            throw SQLiteFailure(description: "\(generator) exited with \(process.terminationStatus)")
        }
        for file in [photos, update] {
            try? manager.removeItem(at: file)
            try manager.moveItem(at: building.appendingPathComponent(file.lastPathComponent), to: file)
        }
        try? manager.removeItem(at: building)
        log("generated in \(String(format: "%.0f", seconds)) s")
        return (photos, update)
    }

    // MARK: Checking what landed

    /// Figures that three stores holding the same data agree on: counts, sums over every
    /// column, and a checksum of which owner each photo links to.
    struct Fingerprint: Codable, Equatable, CustomStringConvertible {
        var photos: Int64
        var owners: Int64
        var views: Int64
        var publicPhotos: Int64
        /// Sum of latitudes in millionths of a degree.
        var latitude: Int64
        /// Sum of upload dates in whole seconds.
        var uploadDates: Int64
        /// Total length of titles, descriptions and tags.
        var text: Int64
        /// Total length of owners' names and locations.
        var ownerText: Int64
        /// Photos with an owner.
        var linked: Int64
        /// Sum over photos of a mix of the photo's id and its owner's id: a wrong link changes it.
        var links: Int64

        var description: String {
            "\(photos) photos, \(owners) owners, views \(views), public \(publicPhotos), latitude \(latitude), "
                + "dates \(uploadDates), text \(text)/\(ownerText), linked \(linked), links \(links)"
        }

        static let sql = """
            SELECT (SELECT count(*) FROM "Photo"), (SELECT count(*) FROM "Owner"),
                   (SELECT ifnull(sum("views"), 0) FROM "Photo"), (SELECT ifnull(sum("isPublic"), 0) FROM "Photo"),
                   (SELECT ifnull(sum(CAST(round("latitude" * 1000000) AS INTEGER)), 0) FROM "Photo"),
                   (SELECT ifnull(sum(CAST("uploadDate" AS INTEGER)), 0) FROM "Photo"),
                   (SELECT ifnull(sum(length("title") + length("description") + length("tags")), 0) FROM "Photo"),
                   (SELECT ifnull(sum(length("name") + length("location")), 0) FROM "Owner"),
                   (SELECT count("owner") FROM "Photo"),
                   (SELECT ifnull(sum(("Photo"."id" % 1009) * (CAST(substr("Owner"."id", 1, 8) AS INTEGER) % 1013)), 0)
                      FROM "Photo" JOIN "Owner" ON "Owner"."_pk" = "Photo"."owner")
            """

        static func read(store url: URL) throws -> Fingerprint {
            let db = try RawDatabase(path: url.path)
            let statement = try db.prepare(sql)
            guard try statement.step() else { throw SQLiteFailure(description: "the fingerprint query returned nothing") }
            return Fingerprint(photos: statement.int64(0), owners: statement.int64(1), views: statement.int64(2),
                               publicPhotos: statement.int64(3), latitude: statement.int64(4),
                               uploadDates: statement.int64(5), text: statement.int64(6), ownerText: statement.int64(7),
                               linked: statement.int64(8), links: statement.int64(9))
        }
    }

    /// Creates a store with Trove's schema for ``model`` and no rows, and checks that its tables
    /// have the columns the baselines write.
    static func createEmptyStore(at url: URL) throws {
        PhotoData.removeStore(at: url)
        _ = try SQLiteStore(url: url, model: model)
        let db = try RawDatabase(path: url.path)
        for (table, expected) in [("Owner", ["_pk", "_version", "id", "name", "location"]),
                                  ("Photo", ["_pk", "_version", "id", "title", "description", "uploadDate", "views",
                                             "latitude", "isPublic", "tags", "owner"])] {
            let statement = try db.prepare("SELECT name FROM pragma_table_info('\(table)') ORDER BY cid")
            var columns: [String] = []
            while try statement.step() { columns.append(statement.text(0)) }
            guard Set(columns) == Set(expected) else {
                throw SQLiteFailure(description: "Trove made \(table) with columns \(columns); the baselines write \(expected)")
            }
        }
    }
}
