public import Foundation
public import Trove

/// The data set of the differential predicate suite: photographers, photos and tags (to-one,
/// to-many, many-to-many, a reflexive to-one and a one-to-one) and things with an attribute of
/// every type, with nils, empty to-manys, duplicates, Unicode look-alikes and numbers at the
/// edges. Deterministic: the same objects in the same order every time, so primary keys are
/// stable (photographers 1…15, photos 1…13, tags 1…7, things 1…8, in the order listed here).
///
/// The tables below are the truth the suite's hand-computed counts are read from.
public enum DifferentialDataSet {
    // MARK: Model

    /// Photographer ⇄ Photo (one-to-many), Photographer → mentor ⇄ students (reflexive),
    /// Photo ⇄ Tag (many-to-many), Photo ⇄ Thing (one-to-one), Tag ⇄ Thing (one-to-many), Thing
    /// with every attribute type.
    public static func model() throws -> Model {
        try Model {
            Entity("Photographer", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("name", .string)
                Attribute("born", .date)
                Attribute("rating", .double)
                Relationship("photos", to: "Photo", toMany: true, inverse: "whoTook", deleteRule: .cascade)
                Relationship("mentor", to: "Photographer", inverse: "students")
                Relationship("students", to: "Photographer", toMany: true, inverse: "mentor")
            }
            Entity("Photo", uniqueBy: [["uniqueId"]]) {
                Attribute("uniqueId", .string, optional: false)
                Attribute("title", .string)
                Attribute("uploadDate", .date)
                Attribute("viewed", .date)
                Attribute("views", .integer64)
                Attribute("rating", .double)
                Relationship("whoTook", to: "Photographer", inverse: "photos")
                Relationship("tags", to: "Tag", toMany: true, inverse: "photos")
                Relationship("detail", to: "Thing", inverse: "photo")
            }
            Entity("Tag") {
                Attribute("name", .string)
                Relationship("photos", to: "Photo", toMany: true, inverse: "tags")
                Relationship("things", to: "Thing", toMany: true, inverse: "tag")
            }
            Entity("Thing") {
                Attribute("label", .string, optional: false)
                Attribute("int16Value", .integer16)
                Attribute("int32Value", .integer32)
                Attribute("int64Value", .integer64)
                Attribute("doubleValue", .double)
                Attribute("floatValue", .float)
                Attribute("decimalValue", .decimal)
                Attribute("booleanValue", .boolean)
                Attribute("dateValue", .date)
                Attribute("uuidValue", .uuid)
                Attribute("uriValue", .uri)
                Attribute("characterValue", .character)
                Attribute("stringValue", .string)
                Attribute("binaryValue", .binary)
                Relationship("photo", to: "Photo", inverse: "detail")
                Relationship("tag", to: "Tag", inverse: "things")
            }
        }
    }

    // MARK: Values used by the data and by the suite

    /// A date from an ISO 8601 timestamp in UTC, with optional milliseconds.
    public static func date(_ text: String) -> Date {
        let style = text.contains(".") ? Date.ISO8601FormatStyle(includingFractionalSeconds: true) : Date.ISO8601FormatStyle()
        guard let date = try? style.parse(text) else { preconditionFailure("bad test date \(text)") }
        return date
    }

    /// 2001-01-01T00:00:00Z, the reference date (stored as 0.0).
    public static let referenceDate = Date(timeIntervalSinceReferenceDate: 0)
    /// 1970-01-01T00:00:00Z.
    public static let unixEpoch = Date(timeIntervalSince1970: 0)
    /// One second before 1970.
    public static let beforeUnixEpoch = Date(timeIntervalSince1970: -1)
    /// One second before 2001.
    public static let beforeReferenceDate = Date(timeIntervalSinceReferenceDate: -1)
    /// 2038-01-19T03:14:07Z, the largest 32-bit Unix time.
    public static let year2038 = Date(timeIntervalSince1970: 2_147_483_647)
    /// 0.1 + 0.2, which is not 0.3.
    public static let pointThree = 0.1 + 0.2
    /// 2⁵³ + 1: an integer no double holds exactly.
    public static let beyondDouble: Int64 = 9_007_199_254_740_993

    // MARK: Rows

    /// A photographer row.
    public struct PhotographerRow: Sendable {
        public var id: String, name: String?, born: Date?, rating: Double?, mentor: String?
    }

    /// A photo row; `tags` name tags by ``TagRow/name``, `detail` a thing by label.
    public struct PhotoRow: Sendable {
        public var uniqueId: String, title: String?, uploadDate: Date?, viewed: Date?, views: Int64?, rating: Double?
        public var whoTook: String?, tags: [String], detail: String?
    }

    /// A thing row: one value of every attribute type, and the name of its tag.
    public struct ThingRow: Sendable {
        public var label: String, tag: String? = nil
        public var int16: Int16?, int32: Int32?, int64: Int64?, double: Double?, float: Float?, decimal: Decimal?
        public var boolean: Bool?, date: Date?, uuid: UUID?, uri: URL?, character: Character?, string: String?, binary: Data?
    }

    /// Photographers, in primary-key order.
    public static let photographers: [PhotographerRow] = [
        .init(id: "ada", name: "Ada Lovelace", born: date("1815-12-10T00:00:00Z"), rating: 4.5, mentor: nil),
        .init(id: "grace", name: "Grace Hopper", born: date("1906-12-09T00:00:00Z"), rating: nil, mentor: "ada"),
        .init(id: "strasse1", name: "Straße", born: unixEpoch, rating: 0, mentor: "ada"),
        .init(id: "strasse2", name: "STRASSE", born: beforeUnixEpoch, rating: -1, mentor: "grace"),
        .init(id: "ist1", name: "İstanbul", born: referenceDate, rating: 3, mentor: nil),
        .init(id: "ist2", name: "istanbul", born: beforeReferenceDate, rating: 3, mentor: nil),
        .init(id: "cafe1", name: "caf\u{E9}", born: nil, rating: 1.5, mentor: nil),
        .init(id: "cafe2", name: "cafe", born: nil, rating: nil, mentor: nil),
        .init(id: "cafe3", name: "CAF\u{C9}", born: nil, rating: nil, mentor: nil),
        .init(id: "cafe4", name: "cafe\u{301}", born: nil, rating: nil, mentor: nil),
        .init(id: "nobody", name: nil, born: nil, rating: nil, mentor: nil),
        .init(id: "emoji", name: "📷 Snap 👩‍👩‍👧", born: year2038, rating: 5, mentor: nil),
        .init(id: "sigma1", name: "ΣΊΣΥΦΟΣ", born: nil, rating: nil, mentor: nil),
        .init(id: "sigma2", name: "σίσυφος", born: nil, rating: nil, mentor: nil),
        .init(id: "ada2", name: "Ada Lovelace", born: date("1815-12-10T00:00:00Z"), rating: 2.5, mentor: "grace"),
    ]

    /// Photos, in primary-key order.
    public static let photos: [PhotoRow] = [
        .init(uniqueId: "p1", title: "Sunset", uploadDate: date("2011-07-23T22:30:40Z"), viewed: date("2020-01-01T00:00:00Z"),
              views: 10, rating: 4, whoTook: "ada", tags: ["nature", "sky"], detail: "t1"),
        .init(uniqueId: "p2", title: "sunset over the Straße", uploadDate: referenceDate, viewed: nil,
              views: 0, rating: pointThree, whoTook: "ada", tags: ["nature"], detail: "t2"),
        .init(uniqueId: "p3", title: "Caf\u{E9} au lait", uploadDate: unixEpoch, viewed: beforeUnixEpoch,
              views: -5, rating: nil, whoTook: "grace", tags: [], detail: nil),
        .init(uniqueId: "p4", title: nil, uploadDate: nil, viewed: nil,
              views: .max, rating: 0.3, whoTook: "grace", tags: ["sky", "city"], detail: "t3"),
        .init(uniqueId: "p5", title: "cafe\u{301} cr\u{E8}me", uploadDate: year2038, viewed: beforeReferenceDate,
              views: .min, rating: -1.5, whoTook: "strasse1", tags: ["city"], detail: nil),
        .init(uniqueId: "p6", title: "", uploadDate: date("2001-01-01T00:00:00.001Z"), viewed: date("2020-01-01T00:00:00Z"),
              views: 100, rating: 1e300, whoTook: nil, tags: ["nature", "sky", "city"], detail: nil),
        .init(uniqueId: "p7", title: "100% _real_ *star*?", uploadDate: date("2011-07-23T22:30:40Z"), viewed: nil,
              views: 7, rating: nil, whoTook: "ist1", tags: ["Nature"], detail: nil),
        .init(uniqueId: "p8", title: "O'Brien \"quoted\"", uploadDate: nil, viewed: nil,
              views: 7, rating: 2.5, whoTook: "emoji", tags: [], detail: nil),
        .init(uniqueId: "p9", title: "back\\slash", uploadDate: nil, viewed: nil,
              views: 42, rating: nil, whoTook: "emoji", tags: ["ß"], detail: nil),
        .init(uniqueId: "p10", title: "İstanbul nights", uploadDate: date("2015-06-01T12:00:00Z"), viewed: date("2015-06-02T12:00:00Z"),
              views: 3, rating: 3, whoTook: "ist2", tags: ["city", "sky"], detail: nil),
        .init(uniqueId: "p11", title: "Sunset", uploadDate: date("2011-07-23T22:30:41Z"), viewed: nil,
              views: 10, rating: 4, whoTook: "strasse2", tags: [], detail: "t4"),
        .init(uniqueId: "p12", title: "ΣΊΣΥΦΟΣ 📷", uploadDate: nil, viewed: nil,
              views: nil, rating: nil, whoTook: "sigma1", tags: [], detail: nil),
        .init(uniqueId: "p13", title: "sunrise", uploadDate: date("2011-07-24T05:00:00Z"), viewed: nil,
              views: 10, rating: 0.5, whoTook: "grace", tags: [], detail: nil),
    ]

    /// Tag names, in primary-key order.
    public static let tags: [String?] = ["nature", "sky", "city", "Nature", "unused", "ß", nil]

    /// Things, in primary-key order.
    public static let things: [ThingRow] = [
        .init(label: "t1", tag: "nature", int16: 0, int32: 0, int64: 0, double: 0, float: 0, decimal: 0, boolean: false, date: referenceDate,
              uuid: uuid("00000000-0000-0000-0000-000000000000"), uri: url("https://example.com/a"), character: "a",
              string: "a", binary: Data()),
        .init(label: "t2", tag: "nature", int16: .max, int32: .max, int64: .max, double: pointThree, float: 0.5, decimal: decimal("1.10"),
              boolean: true, date: unixEpoch, uuid: uuid("F0000000-0000-0000-0000-000000000001"),
              uri: url("https://example.com/b?q=1"), character: "\u{E9}", string: "\u{E9}", binary: Data([0, 1])),
        .init(label: "t3", tag: "nature", int16: .min, int32: .min, int64: .min, double: -1.5, float: -0.25, decimal: decimal("1.1"),
              boolean: false, date: beforeReferenceDate, uuid: uuid("0F000000-0000-0000-0000-000000000002"),
              uri: url("file:///tmp/x%20y"), character: "Z", string: "Z", binary: Data([0xFF])),
        .init(label: "t4", tag: "Nature"),
        .init(label: "t5", tag: "sky", int16: -1, int32: 1, int64: -beyondDouble, double: 0.3, float: 1e30, decimal: decimal("-0.5"),
              boolean: true, date: year2038, uuid: uuid("a0000000-0000-0000-0000-00000000000b"), uri: url("http://a.b/"),
              character: "ß", string: "Straße", binary: Data([0])),
        .init(label: "t6", tag: "ß", int16: 7, int32: 7, int64: 7, double: 7, float: 7, decimal: 7, boolean: nil, date: nil,
              uuid: nil, uri: nil, character: "7", string: "7", binary: nil),
        .init(label: "t7", tag: "city", int64: beyondDouble, double: 1e-300, decimal: decimal("12345678901234567890.123456789"), string: ""),
        .init(label: "t8", tag: "sky", int16: 0, int64: 1, double: pointThree, decimal: decimal("0.30"), boolean: false,
              date: Date(timeIntervalSinceReferenceDate: 0.001), character: "e", string: "e\u{301}", binary: Data([0, 1])),
    ]

    // MARK: Building

    /// Creates a store at `url` holding the data set, saved; returns its container, with
    /// `classes` registered. Fetch from a new context of it, so that nothing is pending.
    public static func makeContainer(at url: URL, classes: [any EntityClass.Type] = []) throws -> Container {
        let container = try Container(model: model(), url: url, classes: classes)
        try populate(container.newBackgroundContext())
        return container
    }

    /// Inserts the data set into `context` and saves.
    public static func populate(_ context: ObjectContext) throws {
        var byID: [String: ManagedObject] = [:]
        for row in photographers {
            let object = try context.insert("Photographer")
            try object.setValue(row.id, forKey: "id")
            try object.setValue(optional(row.name), forKey: "name")
            try object.setValue(optional(row.born), forKey: "born")
            try object.setValue(optional(row.rating), forKey: "rating")
            if let mentor = row.mentor { try object.setRelatedObject(byID[mentor], forKey: "mentor") }
            byID[row.id] = object
        }
        var tagObjects: [String: ManagedObject] = [:]
        for name in tags {
            let tag = try context.insert("Tag")
            try tag.setValue(optional(name), forKey: "name")
            if let name { tagObjects[name] = tag }
        }
        var thingObjects: [String: ManagedObject] = [:]
        for row in things {
            let thing = try context.insert("Thing")
            try thing.setValue(row.label, forKey: "label")
            try thing.setValue(optional(row.int16), forKey: "int16Value")
            try thing.setValue(optional(row.int32), forKey: "int32Value")
            try thing.setValue(optional(row.int64), forKey: "int64Value")
            try thing.setValue(optional(row.double), forKey: "doubleValue")
            try thing.setValue(optional(row.float), forKey: "floatValue")
            try thing.setValue(optional(row.decimal), forKey: "decimalValue")
            try thing.setValue(optional(row.boolean), forKey: "booleanValue")
            try thing.setValue(optional(row.date), forKey: "dateValue")
            try thing.setValue(optional(row.uuid), forKey: "uuidValue")
            try thing.setValue(optional(row.uri), forKey: "uriValue")
            try thing.setValue(optional(row.character), forKey: "characterValue")
            try thing.setValue(optional(row.string), forKey: "stringValue")
            try thing.setValue(optional(row.binary), forKey: "binaryValue")
            if let tag = row.tag { try thing.setRelatedObject(tagObjects[tag], forKey: "tag") }
            thingObjects[row.label] = thing
        }
        for row in photos {
            let photo = try context.insert("Photo")
            try photo.setValue(row.uniqueId, forKey: "uniqueId")
            try photo.setValue(optional(row.title), forKey: "title")
            try photo.setValue(optional(row.uploadDate), forKey: "uploadDate")
            try photo.setValue(optional(row.viewed), forKey: "viewed")
            try photo.setValue(optional(row.views), forKey: "views")
            try photo.setValue(optional(row.rating), forKey: "rating")
            if let owner = row.whoTook { try photo.setRelatedObject(byID[owner], forKey: "whoTook") }
            for tag in row.tags { if let object = tagObjects[tag] { try photo.addRelatedObject(object, forKey: "tags") } }
            if let detail = row.detail { try photo.setRelatedObject(thingObjects[detail], forKey: "detail") }
        }
        try context.save()
    }

    private static func optional(_ value: (some AttributeValueConvertible)?) -> AttributeValue {
        value?.attributeValue ?? .null
    }

    private static func uuid(_ text: String) -> UUID? { UUID(uuidString: text) }
    private static func url(_ text: String) -> URL? { URL(string: text) }
    private static func decimal(_ text: String) -> Decimal? { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) }
}
