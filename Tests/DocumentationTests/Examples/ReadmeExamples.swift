import Foundation
import Testing
import Trove

/// The README's examples.
@Suite struct ReadmeExamples {
    @Test func theTypedExample() throws {
        let fixture = try PhotosFixture()
        let modelURL = fixture.modelURL, storeURL = fixture.storeURL

        // Photographer, Photo and Tag are generated from the sample model, Examples/Photos/model.json.
        let container = try Container(model: Model(contentsOf: modelURL), url: storeURL,
                                      classes: [Photographer.self, Photo.self, Tag.self])
        let context = container.newBackgroundContext()

        let ann = try context.insert(Photographer.self)
        ann.id = "ann"
        ann.name = "Ann"
        let photo = try context.insert(Photo.self)         // defaults applied: views = 0
        photo.id = "p1"
        photo.title = "Sunset"
        photo.views = 120
        photo.whoTook = ann                                // the inverse follows: ann.photos holds photo
        try context.save()                                 // one transaction, validated first

        let popular = try context.fetch(Photo.self, where: "views > %d AND whoTook.name == %@", 100, "Ann",
                                        sortedBy: "-views,title:ci")

        #expect(ann.photos == [photo])
        #expect(popular == [photo])
        #expect(try context.insert(Photo.self).views == 0)
        context.rollback()
        #expect(!photo.objectID.isTemporary)
        #expect(try Container(model: fixture.model, url: storeURL).newBackgroundContext().fetchCount("Photo") == 1)
    }

    @Test func theTypedPredicate() throws {
        let graph = try SmallGraph()
        let context = graph.context

        let annsBest = try context.fetch(Photo.self, where: #Predicate<Photo> { $0.views > 100 && $0.whoTook?.name == "Ann" },
                                         sortedBy: [SortDescriptor(\Photo.views, order: .reverse)])

        #expect(annsBest == [graph.photo])
    }
}

/// The landing page's example (`Trove.md`).
@Suite struct LandingPageExamples {
    @Test func theOverviewExample() throws {
        let fixture = try PhotosFixture()
        let modelURL = fixture.modelURL, storeURL = fixture.storeURL, sampleURL = fixture.sampleURL

        let container = try Container(model: Model(contentsOf: modelURL), url: storeURL,
                                      classes: [Photographer.self, Photo.self, Tag.self])
        let context = container.newBackgroundContext()
        let photo = try context.insert(Photo.self)
        photo.id = "p1"
        photo.title = "Sunset"
        try context.save()

        let report = try Importer(context: context).importJSON(Data(contentsOf: sampleURL), into: "Photo", root: "photos.photo")
        let popular = try context.fetch(Photo.self, where: "views > %d", 100, sortedBy: "-views")

        #expect(report.rejected.count == 9)
        #expect(!popular.isEmpty)
        #expect(zip(popular, popular.dropFirst()).allSatisfy { $0.views >= $1.views && $0.views > 100 })
    }
}
