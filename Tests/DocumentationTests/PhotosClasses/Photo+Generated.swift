// Photo+Generated.swift
// The shape `trove generate` writes from Examples/Photos/model.json (its committed output is
// Examples/Photos/Classes), kept internal to the documentation's examples so that Photo.swift
// can hold the life-cycle example.
import Foundation
import Trove

/// The generated half of `Photo` (entity 'Photo'): a typed property per attribute and relationship.
class _Photo: ManagedObject, EntityClass {
    class var entityName: String { "Photo" }
    class var generatedSignature: String {
        "id:string title:string? uploadDate:date? views:integer64 width:integer32? height:integer32? latitude:double? longitude:double? isPublic:boolean? url:uri? | whoTook:Photographer? tags:{Tag}"
    }
    class func modelKeyPath(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \Photo.id: "id"
        case \Photo.title: "title"
        case \Photo.uploadDate: "uploadDate"
        case \Photo.views: "views"
        case \Photo.width: "width"
        case \Photo.height: "height"
        case \Photo.latitude: "latitude"
        case \Photo.longitude: "longitude"
        case \Photo.isPublic: "isPublic"
        case \Photo.url: "url"
        case \Photo.whoTook: "whoTook"
        case \Photo.tags: "tags"
        case \Photo.whoTook?.id: "whoTook.id"
        case \Photo.whoTook?.name: "whoTook.name"
        case \Photo.whoTook?.location: "whoTook.location"
        default: nil
        }
    }

    var id: String { get { attribute(at: 0) ?? "" } set { setAttribute(newValue, at: 0) } }
    var title: String? { get { attribute(at: 1) } set { setAttribute(newValue, at: 1) } }
    var uploadDate: Date? { get { attribute(at: 2) } set { setAttribute(newValue, at: 2) } }
    var views: Int64 { get { attribute(at: 3) ?? 0 } set { setAttribute(newValue, at: 3) } }
    var width: Int32? { get { attribute(at: 4) } set { setAttribute(newValue, at: 4) } }
    var height: Int32? { get { attribute(at: 5) } set { setAttribute(newValue, at: 5) } }
    var latitude: Double? { get { attribute(at: 6) } set { setAttribute(newValue, at: 6) } }
    var longitude: Double? { get { attribute(at: 7) } set { setAttribute(newValue, at: 7) } }
    var isPublic: Bool? { get { attribute(at: 8) } set { setAttribute(newValue, at: 8) } }
    var url: URL? { get { attribute(at: 9) } set { setAttribute(newValue, at: 9) } }

    var whoTook: Photographer? { get { relatedObject(at: 0) } set { setRelatedObject(newValue, at: 0) } }
    var tags: Set<Tag> {
        get { Set(relatedObjects(at: 1) as [Tag]) }
        set { setRelatedObjects(newValue, at: 1) }
    }
    func addToTags(_ value: Tag) { addRelatedObject(value, at: 1) }
    func removeFromTags(_ value: Tag) { removeRelatedObject(value, at: 1) }
}
