import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct ChildContextTests {
    let dir: TemporaryDirectory
    let container: Container
    let parent: ObjectContext

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(model: SampleModels.photos(), url: dir.file("child.trove"))
        parent = container.newBackgroundContext()
        let ann = try parent.insert("Photographer")
        try ann.setValue("ann", forKey: "id")
        try ann.setValue("Ann", forKey: "name")
        let photo = try parent.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try photo.setValue("stored", forKey: "title")
        try photo.setRelatedObject(ann, forKey: "whoTook")
        try parent.save()
    }

    @Test func aChildSeesItsParentsUnsavedChanges() throws {
        let photo = try #require(try parent.fetchFirst("Photo"))
        try photo.setValue("unsaved in parent", forKey: "title")
        let draft = try parent.insert("Photo")
        try draft.setValue("p2", forKey: "id")

        let child = parent.newChildContext()
        #expect(child.parent === parent)
        let seen = try child.fetch("Photo", sortedBy: "id")
        #expect(try seen.map { try $0.value(forKey: "title") } == ["unsaved in parent", .null])
        #expect(seen[0] !== photo, "the child has its own objects")
        #expect(try seen[0].relatedObject(forKey: "whoTook")?.value(forKey: "name") == "Ann")
        #expect(try child.fetchCount("Photo", where: "title == %@", "unsaved in parent") == 1)
    }

    @Test func savingAChildPushesIntoTheParentNotTheStore() throws {
        let child = parent.newChildContext()
        let photo = try #require(try child.fetchFirst("Photo"))
        try photo.setValue("edited in child", forKey: "title")
        let ann = try #require(try child.fetchFirst("Photographer"))
        let added = try child.insert("Photo")
        try added.setValue("p3", forKey: "id")
        try added.setRelatedObject(ann, forKey: "whoTook")
        try child.save()

        let inParent = try #require(try parent.fetchFirst("Photo", whereKey: "id", equals: "p1"))
        #expect(try inParent.value(forKey: "title") == "edited in child")
        #expect(parent.hasChanges && !child.hasChanges)
        let parentAnn = try #require(try parent.fetchFirst("Photographer"))
        #expect(try Set(parentAnn.relatedObjects(forKey: "photos").map { try $0.value(forKey: "id") }) == ["p1", "p3"])

        let outside = container.newBackgroundContext()
        #expect(try outside.fetchFirst("Photo", whereKey: "id", equals: "p1")?.value(forKey: "title") == "stored")
        #expect(try outside.fetchCount("Photo") == 1, "nothing reached the store yet")
        try parent.save()
        #expect(try outside.fetchCount("Photo") == 2)
        #expect(try container.newBackgroundContext().fetchFirst("Photo", whereKey: "id", equals: "p1")?.value(forKey: "title") == "edited in child")
    }

    @Test func discardingAChildLeavesTheParentAlone() throws {
        do {
            let child = parent.newChildContext()
            try #require(try child.fetchFirst("Photo")).setValue("never", forKey: "title")
            try child.delete(try #require(try child.fetchFirst("Photographer")))
            child.rollback()
            #expect(!child.hasChanges)
        }
        #expect(!parent.hasChanges)
        #expect(try parent.fetchFirst("Photo")?.value(forKey: "title") == "stored")
    }

    @Test func deletesInAChildReachTheParentWithTheirRules() throws {
        let child = parent.newChildContext()
        try child.delete(try #require(try child.fetchFirst("Photographer")))
        #expect(try child.fetchCount("Photo") == 0, "cascade in the child")
        try child.save()
        #expect(try parent.fetchCount("Photographer") == 0 && parent.fetchCount("Photo") == 0)
        try parent.save()
        #expect(try container.store.count(of: "Photo") == 0)
    }
}
