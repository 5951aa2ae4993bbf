// Photographer+Generated.swift
// The shape `trove generate` writes from Examples/Photos/model.json (its committed output is
// Examples/Photos/Classes), kept internal to the documentation's examples so that Photo.swift
// can hold the life-cycle example.
import Foundation
import Trove

/// The generated half of `Photographer` (entity 'Photographer'): a typed property per attribute and relationship.
class _Photographer: ManagedObject, EntityClass {
    class var entityName: String { "Photographer" }
    class var generatedSignature: String { "id:string name:string? location:string? | photos:{Photo}" }
    class func modelKeyPath(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \Photographer.id: "id"
        case \Photographer.name: "name"
        case \Photographer.location: "location"
        case \Photographer.photos: "photos"
        default: nil
        }
    }

    var id: String { get { attribute(at: 0) ?? "" } set { setAttribute(newValue, at: 0) } }
    var name: String? { get { attribute(at: 1) } set { setAttribute(newValue, at: 1) } }
    var location: String? { get { attribute(at: 2) } set { setAttribute(newValue, at: 2) } }

    var photos: Set<Photo> {
        get { Set(relatedObjects(at: 0) as [Photo]) }
        set { setRelatedObjects(newValue, at: 0) }
    }
    func addToPhotos(_ value: Photo) { addRelatedObject(value, at: 0) }
    func removeFromPhotos(_ value: Photo) { removeRelatedObject(value, at: 0) }
}
