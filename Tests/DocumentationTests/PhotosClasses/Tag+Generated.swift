// Tag+Generated.swift
// The shape `trove generate` writes from Examples/Photos/model.json (its committed output is
// Examples/Photos/Classes), kept internal to the documentation's examples so that Photo.swift
// can hold the life-cycle example.
import Foundation
import Trove

/// The generated half of `Tag` (entity 'Tag'): a typed property per attribute and relationship.
class _Tag: ManagedObject, EntityClass {
    class var entityName: String { "Tag" }
    class var generatedSignature: String { "name:string | photos:{Photo}" }
    class func modelKeyPath(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \Tag.name: "name"
        case \Tag.photos: "photos"
        default: nil
        }
    }

    var name: String { get { attribute(at: 0) ?? "" } set { setAttribute(newValue, at: 0) } }

    var photos: Set<Photo> {
        get { Set(relatedObjects(at: 0) as [Photo]) }
        set { setRelatedObjects(newValue, at: 0) }
    }
    func addToPhotos(_ value: Photo) { addRelatedObject(value, at: 0) }
    func removeFromPhotos(_ value: Photo) { removeRelatedObject(value, at: 0) }
}
