// Photomania: imports a Flickr-like response into a new store, lists photographers and their
// photos, edits and saves — through the classes the TroveGenerator plugin makes from
// Photos.trove-model.json, with no string keys.
//
//     swift run Photomania [PHOTOS.json]      (default: Examples/Photos/photos.json)
import Foundation
import Trove

let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let modelURL = sources.appendingPathComponent("Photos.trove-model.json")
let dataURL = CommandLine.arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
    ?? sources.appendingPathComponent("../../../Photos/photos.json").standardizedFileURL

func run(in folder: URL) throws {
    let container = try Container(model: Model(contentsOf: modelURL), url: folder.appendingPathComponent("photos.trove"),
                                  classes: PhotosModelClasses.all)

    // Import: the importer makes Photo, Photographer and Tag objects.
    let context = container.newBackgroundContext()
    let report = try Importer(context: context).importJSON(Data(contentsOf: dataURL), into: Photo.entityName, root: "photos.photo")
    print("imported \(report.recordsImported) of \(report.recordsRead) records (\(report.rejected.count) rejected): "
        + "\(try context.fetchCount(Photographer.self)) photographers, \(try context.fetchCount(Photo.self)) photos, "
        + "\(try context.fetchCount(Tag.self)) tags")

    // List: the five photographers with the most photos, and their most viewed photos.
    let photographers = try context.fetch(Photographer.self)
        .sorted { ($0.photos.count, $1.displayName) > ($1.photos.count, $0.displayName) }
    for photographer in photographers.prefix(5) {
        print("\(photographer.displayName) (\(photographer.location ?? "somewhere")): \(photographer.photos.count) photos")
        for photo in photographer.photosByViews.prefix(3) {
            let tags = photo.tags.map(\.name).sorted().joined(separator: ", ")
            print("  \(photo.title ?? "untitled") — \(photo.views) views\(tags.isEmpty ? "" : " [\(tags)]")")
        }
    }

    // Edit and save: the busiest photographer moves, and their most viewed photo gets a tag.
    guard let busiest = photographers.first, let best = busiest.photosByViews.first else {
        print("no photographer with photos: nothing to edit")
        return
    }
    busiest.location = "Reykjavík"
    let tag = try context.insert(Tag.self)
    tag.name = "photomania-pick"
    best.addToTags(tag)
    best.views += 1
    try context.save()

    // Read back in a new context: typed fetches, typed properties, the inverse kept.
    let reader = container.newBackgroundContext()
    let picks = try reader.fetch(Tag.self, where: #Predicate<Tag> { $0.name == "photomania-pick" })
    for pick in picks {
        for photo in pick.photos {
            print("saved: \(photo.title ?? "untitled") by \(photo.whoTook?.displayName ?? "nobody") in "
                + "\(photo.whoTook?.location ?? "somewhere"), \(photo.views) views, tagged \(pick.name)")
        }
    }
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("photomania-\(UUID().uuidString)")
do {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try run(in: folder)
    try FileManager.default.removeItem(at: folder)
} catch {
    FileHandle.standardError.write(Data("photomania: \(error)\n".utf8))
    try? FileManager.default.removeItem(at: folder)  // best effort: the error above is what matters
    exit(1)
}
