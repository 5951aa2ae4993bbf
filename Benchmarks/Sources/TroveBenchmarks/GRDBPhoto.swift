import Foundation
import GRDB

/// The GRDB baselines' record for the benchmark's `Photo` table (the table Trove made): a
/// `Codable` struct that is `FetchableRecord & PersistableRecord`, as a GRDB app writes one.
/// Dates are seconds since 2001, as Trove stores them.
///
/// GRDB is imported here only (its `FetchRequest` and Trove's share a name).
struct GRDBPhoto: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "Photo"
    var pk: Int64?
    var version: Int64
    var id: String
    var title: String?
    var views: Int64?
    var uploadDate: Double?
    var width: Int64?
    var height: Int64?
    var latitude: Double?
    var longitude: Double?
    var favorite: Bool?

    enum CodingKeys: String, CodingKey {
        case pk = "_pk", version = "_version", id, title, views, uploadDate, width, height, latitude, longitude, favorite
    }

    /// Row `row` of the data set, not yet inserted.
    init(_ row: PhotoData.Row) {
        pk = nil
        version = 1
        id = row.id
        title = row.title
        views = row.views
        uploadDate = row.uploadDate
        width = row.width
        height = row.height
        latitude = row.latitude
        longitude = row.longitude
        favorite = row.favorite
    }
}

/// A Trove store opened with GRDB (a `DatabaseQueue`, with Trove's durability: WAL,
/// `synchronous=FULL`), worked on with ``GRDBPhoto`` records as a GRDB app would.
struct GRDBStore {
    private let queue: DatabaseQueue

    init(url: URL) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        queue = try DatabaseQueue(path: url.path, configuration: configuration)
    }

    /// Inserts rows `range`, one `insert` per record, in one write transaction.
    func insert(rows range: Range<Int>) throws {
        try queue.write { db in
            for index in range {
                try GRDBPhoto(PhotoData.Row(index: index)).insert(db)
            }
        }
    }

    /// What the fetch scenario's variants select, as GRDB's query interface writes it.
    enum Filter {
        case viewsAndDate(views: Int64, since: Double)
        case id(String)
        case ids([String])
    }

    /// The records `filter` selects, by views descending (then primary key), 100 at most: one
    /// read, as an app fetches.
    func fetch(_ filter: Filter) throws -> [GRDBPhoto] {
        let pk = Column("_pk"), id = Column("id"), views = Column("views"), uploadDate = Column("uploadDate")
        let request: QueryInterfaceRequest<GRDBPhoto>
        switch filter {
        case .viewsAndDate(let minimum, let since): request = GRDBPhoto.filter(views > minimum && uploadDate > since)
        case .id(let value): request = GRDBPhoto.filter(id == value)
        case .ids(let values): request = GRDBPhoto.filter(values.contains(id))
        }
        return try queue.read { db in try request.order(views.desc, pk).limit(100).fetchAll(db) }
    }

    /// Calls `body` with every record in primary-key order, through a cursor.
    func forEachPhoto(_ body: (GRDBPhoto) throws -> Void) throws {
        try queue.read { db in
            let photos = try GRDBPhoto.order(Column("_pk")).fetchCursor(db)
            while let photo = try photos.next() { try body(photo) }
        }
    }
}
