import Foundation
import Testing
import Trove

/// The examples of the article "Importing JSON" (`Importing.md`).
@Suite struct ImportExamples {
    @Test func anImporter() throws {
        let fixture = try PhotosFixture()
        let modelURL = fixture.modelURL, storeURL = fixture.storeURL, sampleURL = fixture.sampleURL

        let container = try Container(model: Model(contentsOf: modelURL), url: storeURL)
        let importer = Importer(context: container.newBackgroundContext(), options: ImportOptions(batchSize: 500))
        let report = try importer.importJSON(Data(contentsOf: sampleURL), into: "Photo", root: "photos.photo")
        let inserted = report.entities["Photo"]?.inserted             // 1992
        let firstRejection = report.rejected.first?.description        // record 106 at views: Photo.views: not a number (got "lots", expected integer64)
        let rejectedCount = report.rejectedCount                       // 9

        #expect(inserted == 1992)
        #expect(rejectedCount == 9)
        #expect(firstRejection == #"record 106 at views: Photo.views: not a number (got "lots", expected integer64)"#)
    }

    @Test func importedObjectsAreOfTheirClasses() throws {
        let fixture = try PhotosFixture()
        let context = try fixture.container().newBackgroundContext()
        _ = try Importer(context: context).importJSON(Data(contentsOf: fixture.sampleURL), into: "Photo", root: "photos.photo")
        let photos = try context.fetch("Photo", where: "whoTook != nil", sortedBy: "id")
        #expect(photos.count > 1000)
        #expect(photos.allSatisfy { $0 is Photo })
        #expect(try context.fetch(Photo.self, where: "whoTook != nil").allSatisfy { $0.whoTook != nil })
    }
}
