// Photo+Generated.swift
// Written by hand in the shape `trove generate` writes, from PhotoData.model; to be replaced by
// the generator's output. Do not add code here: it goes in Photo.swift.
import Foundation
import Trove

/// The generated half of `Photo` (entity 'Photo'): a typed property per attribute.
class _Photo: ManagedObject, EntityClass {
    class var entityName: String { "Photo" }
    class var generatedSignature: String {
        "id:string title:string? views:integer64 uploadDate:date? width:integer32? height:integer32? latitude:double? longitude:double? favorite:boolean |"
    }
    class func modelKeyPath(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \Photo.id: "id"
        case \Photo.title: "title"
        case \Photo.views: "views"
        case \Photo.uploadDate: "uploadDate"
        case \Photo.width: "width"
        case \Photo.height: "height"
        case \Photo.latitude: "latitude"
        case \Photo.longitude: "longitude"
        case \Photo.favorite: "favorite"
        default: nil
        }
    }

    var id: String { get { attribute(at: 0) ?? "" } set { setAttribute(newValue, at: 0) } }
    var title: String? { get { attribute(at: 1) } set { setAttribute(newValue, at: 1) } }
    var views: Int64 { get { attribute(at: 2) ?? 0 } set { setAttribute(newValue, at: 2) } }
    var uploadDate: Date? { get { attribute(at: 3) } set { setAttribute(newValue, at: 3) } }
    var width: Int32? { get { attribute(at: 4) } set { setAttribute(newValue, at: 4) } }
    var height: Int32? { get { attribute(at: 5) } set { setAttribute(newValue, at: 5) } }
    var latitude: Double? { get { attribute(at: 6) } set { setAttribute(newValue, at: 6) } }
    var longitude: Double? { get { attribute(at: 7) } set { setAttribute(newValue, at: 7) } }
    var favorite: Bool { get { attribute(at: 8) ?? false } set { setAttribute(newValue, at: 8) } }
}
