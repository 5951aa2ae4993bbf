import Foundation
import Trove
import TroveTesting

/// What the examples take as given: the sample model and data, a store in a temporary folder.
struct PhotosFixture {
    let directory: TemporaryDirectory
    /// `Examples/Photos/model.json`.
    let modelURL: URL
    /// `Examples/Photos/photos.json`: 2040 Flickr-like records, 9 of them bad on purpose.
    let sampleURL: URL
    /// A store file that does not exist yet.
    let storeURL: URL
    let model: Model

    init() throws {
        directory = try TemporaryDirectory()
        let photos = DocumentationFiles.root.appendingPathComponent("Examples/Photos")
        modelURL = photos.appendingPathComponent("model.json")
        sampleURL = photos.appendingPathComponent("photos.json")
        storeURL = directory.file("photos.trove")
        model = try Model(contentsOf: modelURL)
    }

    /// The sample's classes, as the examples register them.
    static let classes: [any EntityClass.Type] = [Photographer.self, Photo.self, Tag.self]

    /// A container of the sample's classes on `storeURL`.
    func container() throws -> Container {
        try Container(model: model, url: storeURL, classes: Self.classes)
    }
}

/// A small saved graph: Ann ("ann") took photo "p1" (150 views, "Café", tagged sea, sky and
/// sand); "p2" (0 views) has no photographer.
struct SmallGraph {
    /// Keeps the store's folder while the graph is in use.
    let fixture: PhotosFixture
    let context: ObjectContext
    let ann: Photographer
    let photo: Photo
    let other: Photo

    init() throws {
        fixture = try PhotosFixture()
        context = try fixture.container().newBackgroundContext()
        ann = try context.insert(Photographer.self)
        ann.id = "ann"
        ann.name = "Ann"
        photo = try context.insert(Photo.self)
        photo.id = "p1"
        photo.title = "Café"
        photo.views = 150
        photo.whoTook = ann
        other = try context.insert(Photo.self)
        other.id = "p2"
        for name in ["sea", "sky", "sand"] {
            let tag = try context.insert(Tag.self)
            tag.name = name
            photo.addToTags(tag)
        }
        try context.save()
    }
}
