import Foundation
import Testing
import Trove
import TroveTesting

/// `trove query` and `trove inspect` on a store whose model has derived and transient attributes.
@Suite struct DerivedAttributeCLITests {
    let dir: TemporaryDirectory
    let storePath: String

    init() throws {
        dir = try TemporaryDirectory()
        storePath = dir.file("d.trove").path
        let model = try Model {
            Entity("Owner", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("photoCount", .integer64, derivation: "photos.@count")
                Attribute("selected", .boolean, default: false, transient: true)
                Relationship("photos", to: "Photo", toMany: true, inverse: "owner")
            }
            Entity("Photo", uniqueBy: [["id"]]) {
                Attribute("id", .string, optional: false)
                Attribute("ownerID", .string, derivation: "owner.id")
                Relationship("owner", to: "Owner", inverse: "photos")
            }
        }
        let context = try Container(model: model, url: URL(fileURLWithPath: storePath)).newBackgroundContext()
        var owners: [ManagedObject] = []
        for id in ["ann", "bob"] {
            let owner = try context.insert("Owner")
            try owner.setValue(id, forKey: "id")
            owners.append(owner)
        }
        for (id, owner) in [("p1", 0), ("p2", 0), ("p3", 1)] {
            let photo = try context.insert("Photo")
            try photo.setValue(id, forKey: "id")
            try photo.setRelatedObject(owners[owner], forKey: "owner")
        }
        try context.save()
    }

    func run(_ arguments: String...) throws -> CLIRunner.Result {
        try CLIRunner.run([arguments[0], storePath] + arguments.dropFirst())
    }

    @Test func queryShowsDerivedAttributesAndFiltersAndSortsByThem() throws {
        let fields = try run("query", "Owner", "--fields", "id,photoCount,photos.ownerID", "--format", "ndjson", "--sort", "-photoCount")
        #expect(fields.status == 0, "\(fields.stderr)")
        #expect(fields.stdout == """
            {"id":"ann","photoCount":2,"photos.ownerID":["ann","ann"]}
            {"id":"bob","photoCount":1,"photos.ownerID":["bob"]}

            """)
        let filtered = try run("query", "Photo", "--where", "ownerID == %@", "--arg", "bob", "--format", "csv")
        #expect(filtered.status == 0, "\(filtered.stderr)")
        #expect(filtered.stdout.split(whereSeparator: \.isNewline) == ["id,ownerID", "p3,bob"],
                "without --fields: every attribute but transient ones")
        let all = try run("query", "Owner", "--format", "json")
        #expect(all.stdout.contains(#""photoCount":2"#) && !all.stdout.contains("selected"), "\(all.stdout)")
        #expect(try run("count", "Owner", "--where", "photoCount > 1").stdout == "1\n")
    }

    @Test func aTransientAttributeIsAUsageErrorInAQuery() throws {
        let field = try run("query", "Owner", "--fields", "id,selected")
        #expect(field.status == 1)
        #expect(field.stdout.isEmpty)
        #expect(field.stderr.contains("'selected' is a transient attribute"), "\(field.stderr)")
        let predicate = try run("query", "Owner", "--where", "selected == YES")
        #expect(predicate.status == 1)
        #expect(predicate.stderr.contains("'selected' is a transient attribute of Owner"), "\(predicate.stderr)")
    }

    @Test func inspectNamesBothKinds() throws {
        let text = try run("inspect")
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("photoCount  integer64, derived from photos.@count"), "\(text.stdout)")
        #expect(text.stdout.contains("selected    boolean, default false, transient (in memory only)"), "\(text.stdout)")
        let json = try run("inspect", "--format", "json")
        #expect(json.status == 0)
        let entities = try JSONValue(parsing: json.stdout).objectValue?["entities"]?.arrayValue ?? []
        let owner = try #require(entities.first { $0.objectValue?["name"] == .string("Owner") }?.objectValue)
        let attributes = owner["attributes"]?.arrayValue ?? []
        #expect(attributes.first { $0.objectValue?["name"] == .string("photoCount") }?.objectValue?["derivation"] == .string("photos.@count"))
        #expect(attributes.first { $0.objectValue?["name"] == .string("selected") }?.objectValue?["transient"] == .bool(true))
    }
}
