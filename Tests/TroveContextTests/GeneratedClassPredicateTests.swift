import Foundation
import PhotosClasses
import Testing
import Trove
import TroveTesting

/// Typed predicates and sorts through the classes `trove generate` wrote (PhotosClasses, from
/// Examples/Photos/model.json): their key-path maps give the model keys.
@Suite struct GeneratedClassPredicateTests {
    @Test func typedFetchesThroughGeneratedClassesSelectAsFormatsDo() throws {
        let dir = try TemporaryDirectory()
        let container = try Container(model: SampleModelFile.model(), url: dir.file("photos.trove"), classes: ModelClasses.all)
        let context = container.newBackgroundContext()
        let sky = try context.insert(Tag.self)
        sky.name = "sky"
        for (index, name) in ["Ann", "Bob", "Cy"].enumerated() {
            let photographer = try context.insert(Photographer.self)
            photographer.id = name.lowercased()
            photographer.name = name
            for n in 0..<3 {
                let photo = try context.insert(Photo.self)
                photo.id = "\(name.lowercased())\(n)"
                photo.title = n == 0 ? nil : "\(name) \(n)"
                photo.views = Int64(100 * index + 10 * n)
                photo.whoTook = photographer
                if n == 1 { photo.addToTags(sky) }
            }
        }
        try context.save()

        let ann = try context.fetch(Photo.self, where: #Predicate { $0.views > 5 && $0.whoTook?.name == "Ann" },
                                    sortedBy: [SortDescriptor(\.views, order: .reverse)])
        #expect(ann.map(\.id) == ["ann2", "ann1"])
        let skyID = sky.objectID
        let cases: [(Predicate<Photo>, String)] = [
            (#Predicate { $0.views >= 100 && $0.title != nil }, "views >= 100 AND title != nil"),
            (#Predicate { $0.tags.contains { $0.objectID == skyID } }, "ANY tags.name == 'sky'"),
            (#Predicate { $0.whoTook?.photos.count == 3 }, "whoTook.photos.@count == 3"),
            (#Predicate { $0.title?.starts(with: "Bob") ?? false }, "title BEGINSWITH 'Bob'"),
        ]
        for (predicate, format) in cases {
            let typed = try context.fetch(Photo.self, where: predicate, sortedBy: [SortDescriptor(\.id)])
            let byFormat = try context.fetch(Photo.self, where: format, sortedBy: "id")
            #expect(typed.map(\.id) == byFormat.map(\.id), "\(format)")
            #expect(!typed.isEmpty, "\(format)")
        }
        #expect(try context.fetchCount(Photographer.self, where: #Predicate { $0.photos.contains(where: { $0.views > 150 }) }) == 1)
    }
}
