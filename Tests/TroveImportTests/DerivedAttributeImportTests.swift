import Foundation
import Testing
import Trove
import TroveTesting

/// The importer never sets a transient or a derived attribute: a record's keys for them are
/// unknown keys, and the store computes derived values from what was imported.
@Suite struct DerivedAttributeImportTests {
    static func model() throws -> Model {
        try Model(keyStyle: .snakeCase) {
            Entity("Owner", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("name", .string)
                Attribute("photoCount", .integer64, derivation: "photos.@count")
                Attribute("totalViews", .integer64, derivation: "photos.@sum.views")
                Attribute("selected", .boolean, default: false, transient: true)
                Relationship("photos", to: "Photo", toMany: true, inverse: "owner")
            }
            Entity("Photo", uniqueBy: [["id"]]) {
                Attribute("id", .integer64, optional: false)
                Attribute("views", .integer64, default: 0)
                Attribute("ownerName", .string, derivation: "owner.name")
                Attribute("note", .string, default: .string("none"), transient: true)
                Relationship("owner", to: "Owner", inverse: "photos")
            }
        }
    }

    static let payload = """
        [{"id": 1, "views": 5, "owner_name": "forged", "note": "imported?", "owner": {"id": "ann", "name": "Ann", "photo_count": 99, "selected": true}},
         {"id": 2, "views": 7, "owner": "ann"},
         {"id": 3, "views": 1, "ownerName": "forged too", "owner": {"id": "bob", "name": "Bob", "totalViews": -1}}]
        """

    /// Through rows (the fast path) and through objects (an after-record hook), twice each: the
    /// same store, and the keys of either kind reported as unknown.
    @Test(arguments: [false, true])
    func importsLeaveBothKindsAlone(asObjects: Bool) throws {
        let dir = try TemporaryDirectory()
        let container = try Container(store: SQLiteStore(url: dir.file("i.trove"), model: Self.model()))
        var options = ImportOptions(batchSize: 2)
        if asObjects { options.hooks.afterRecord(of: "Photo") { _, _ in } }
        for run in 0..<2 {
            let report = try Importer(context: container.newBackgroundContext(), options: options)
                .importJSON(Data(Self.payload.utf8), into: "Photo")
            #expect(report.rejected.isEmpty, "\(report.rejected)")
            #expect(report.unknownKeys == ["Photo.owner_name": 1, "Photo.note": 1, "Photo.ownerName": 1,
                                           "Owner.photo_count": 1, "Owner.selected": 1, "Owner.totalViews": 1], "run \(run)")
            if run == 1 { #expect(report.entities["Photo"]?.unchanged == 3, "re-importing changes nothing") }
        }
        let context = container.newBackgroundContext()
        let photos = try context.fetch("Photo", sortedBy: "id")
        #expect(try photos.map { try $0.value(forKey: "ownerName") } == [.string("Ann"), .string("Ann"), .string("Bob")])
        #expect(try photos.map { try $0.value(forKey: "note") } == [.string("none"), .string("none"), .string("none")])
        let owners = try context.fetch("Owner", sortedBy: "id")
        #expect(try owners.map { try $0.value(forKey: "photoCount") } == [.integer(2), .integer(1)])
        #expect(try owners.map { try $0.value(forKey: "totalViews") } == [.integer(12), .integer(1)])
        #expect(try owners.map { try $0.value(forKey: "selected") } == [.boolean(false), .boolean(false)])
    }
}
