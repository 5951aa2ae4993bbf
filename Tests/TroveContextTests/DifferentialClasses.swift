import Foundation
import Trove

/// Classes of ``DifferentialDataSet``'s entities, written by hand in the shape `trove generate`
/// writes (a machine class `_Name`, a human class `Name`), for the typed predicate suite.
/// Nested, so that their names cannot clash with other tests' classes.
enum Differential {
    class _Photographer: ManagedObject, EntityClass {
        class var entityName: String { "Photographer" }
        class var generatedSignature: String { "id:string name:string? born:date? rating:double? | photos:{Photo} mentor:Photographer? students:{Photographer}" }
        class func modelKeyPath(for keyPath: AnyKeyPath) -> String? {
            switch keyPath {
            case \Photographer.id: "id"
            case \Photographer.name: "name"
            case \Photographer.born: "born"
            case \Photographer.rating: "rating"
            case \Photographer.photos: "photos"
            case \Photographer.mentor: "mentor"
            case \Photographer.students: "students"
            case \Photographer.mentor?.id: "mentor.id"
            case \Photographer.mentor?.name: "mentor.name"
            case \Photographer.mentor?.born: "mentor.born"
            case \Photographer.mentor?.rating: "mentor.rating"
            default: nil
            }
        }
        var id: String { get { attribute(at: 0) ?? "" } set { setAttribute(newValue, at: 0) } }
        var name: String? { get { attribute(at: 1) } set { setAttribute(newValue, at: 1) } }
        var born: Date? { get { attribute(at: 2) } set { setAttribute(newValue, at: 2) } }
        var rating: Double? { get { attribute(at: 3) } set { setAttribute(newValue, at: 3) } }
        var photos: Set<Photo> { get { Set(relatedObjects(at: 0) as [Photo]) } set { setRelatedObjects(newValue, at: 0) } }
        var mentor: Photographer? { get { relatedObject(at: 1) } set { setRelatedObject(newValue, at: 1) } }
        var students: Set<Photographer> { get { Set(relatedObjects(at: 2) as [Photographer]) } set { setRelatedObjects(newValue, at: 2) } }
    }

    final class Photographer: _Photographer {}

    class _Photo: ManagedObject, EntityClass {
        class var entityName: String { "Photo" }
        class var generatedSignature: String {
            "uniqueId:string title:string? uploadDate:date? viewed:date? views:integer64? rating:double? | whoTook:Photographer? tags:{Tag} detail:Thing?"
        }
        class func modelKeyPath(for keyPath: AnyKeyPath) -> String? {
            switch keyPath {
            case \Photo.uniqueId: "uniqueId"
            case \Photo.title: "title"
            case \Photo.uploadDate: "uploadDate"
            case \Photo.viewed: "viewed"
            case \Photo.views: "views"
            case \Photo.rating: "rating"
            case \Photo.whoTook: "whoTook"
            case \Photo.tags: "tags"
            case \Photo.detail: "detail"
            case \Photo.whoTook?.id: "whoTook.id"
            case \Photo.whoTook?.name: "whoTook.name"
            case \Photo.whoTook?.born: "whoTook.born"
            case \Photo.whoTook?.rating: "whoTook.rating"
            case \Photo.detail?.label: "detail.label"
            case \Photo.detail?.decimalValue: "detail.decimalValue"
            default: nil
            }
        }
        var uniqueId: String { get { attribute(at: 0) ?? "" } set { setAttribute(newValue, at: 0) } }
        var title: String? { get { attribute(at: 1) } set { setAttribute(newValue, at: 1) } }
        var uploadDate: Date? { get { attribute(at: 2) } set { setAttribute(newValue, at: 2) } }
        var viewed: Date? { get { attribute(at: 3) } set { setAttribute(newValue, at: 3) } }
        var views: Int64? { get { attribute(at: 4) } set { setAttribute(newValue, at: 4) } }
        var rating: Double? { get { attribute(at: 5) } set { setAttribute(newValue, at: 5) } }
        var whoTook: Photographer? { get { relatedObject(at: 0) } set { setRelatedObject(newValue, at: 0) } }
        var tags: Set<Tag> { get { Set(relatedObjects(at: 1) as [Tag]) } set { setRelatedObjects(newValue, at: 1) } }
        var detail: Thing? { get { relatedObject(at: 2) } set { setRelatedObject(newValue, at: 2) } }
        /// Not keys of the model: predicates and sorts using them are refused.
        var isPopular: Bool { (views ?? 0) > 50 }
        var popularity: Int64 { views ?? 0 }
    }

    final class Photo: _Photo {}

    class _Tag: ManagedObject, EntityClass {
        class var entityName: String { "Tag" }
        class var generatedSignature: String { "name:string? | photos:{Photo} things:{Thing}" }
        class func modelKeyPath(for keyPath: AnyKeyPath) -> String? {
            switch keyPath {
            case \Tag.name: "name"
            case \Tag.photos: "photos"
            case \Tag.things: "things"
            default: nil
            }
        }
        var name: String? { get { attribute(at: 0) } set { setAttribute(newValue, at: 0) } }
        var photos: Set<Photo> { get { Set(relatedObjects(at: 0) as [Photo]) } set { setRelatedObjects(newValue, at: 0) } }
        var things: Set<Thing> { get { Set(relatedObjects(at: 1) as [Thing]) } set { setRelatedObjects(newValue, at: 1) } }
    }

    final class Tag: _Tag {}

    class _Thing: ManagedObject, EntityClass {
        class var entityName: String { "Thing" }
        class var generatedSignature: String {
            "label:string int16Value:integer16? int32Value:integer32? int64Value:integer64? doubleValue:double? floatValue:float? decimalValue:decimal? booleanValue:boolean? dateValue:date? uuidValue:uuid? uriValue:uri? characterValue:character? stringValue:string? binaryValue:binary? | photo:Photo? tag:Tag?"
        }
        class func modelKeyPath(for keyPath: AnyKeyPath) -> String? {
            switch keyPath {
            case \Thing.label: "label"
            case \Thing.int16Value: "int16Value"
            case \Thing.int32Value: "int32Value"
            case \Thing.int64Value: "int64Value"
            case \Thing.doubleValue: "doubleValue"
            case \Thing.floatValue: "floatValue"
            case \Thing.decimalValue: "decimalValue"
            case \Thing.booleanValue: "booleanValue"
            case \Thing.dateValue: "dateValue"
            case \Thing.uuidValue: "uuidValue"
            case \Thing.uriValue: "uriValue"
            case \Thing.characterValue: "characterValue"
            case \Thing.stringValue: "stringValue"
            case \Thing.binaryValue: "binaryValue"
            case \Thing.photo: "photo"
            case \Thing.tag: "tag"
            case \Thing.tag?.name: "tag.name"
            default: nil
            }
        }
        var label: String { get { attribute(at: 0) ?? "" } set { setAttribute(newValue, at: 0) } }
        var int16Value: Int16? { get { attribute(at: 1) } set { setAttribute(newValue, at: 1) } }
        var int32Value: Int32? { get { attribute(at: 2) } set { setAttribute(newValue, at: 2) } }
        var int64Value: Int64? { get { attribute(at: 3) } set { setAttribute(newValue, at: 3) } }
        var doubleValue: Double? { get { attribute(at: 4) } set { setAttribute(newValue, at: 4) } }
        var floatValue: Float? { get { attribute(at: 5) } set { setAttribute(newValue, at: 5) } }
        var decimalValue: Decimal? { get { attribute(at: 6) } set { setAttribute(newValue, at: 6) } }
        var booleanValue: Bool? { get { attribute(at: 7) } set { setAttribute(newValue, at: 7) } }
        var dateValue: Date? { get { attribute(at: 8) } set { setAttribute(newValue, at: 8) } }
        var uuidValue: UUID? { get { attribute(at: 9) } set { setAttribute(newValue, at: 9) } }
        var uriValue: URL? { get { attribute(at: 10) } set { setAttribute(newValue, at: 10) } }
        var characterValue: Character? { get { attribute(at: 11) } set { setAttribute(newValue, at: 11) } }
        var stringValue: String? { get { attribute(at: 12) } set { setAttribute(newValue, at: 12) } }
        var binaryValue: Data? { get { attribute(at: 13) } set { setAttribute(newValue, at: 13) } }
        var photo: Photo? { get { relatedObject(at: 0) } set { setRelatedObject(newValue, at: 0) } }
        var tag: Tag? { get { relatedObject(at: 1) } set { setRelatedObject(newValue, at: 1) } }
    }

    final class Thing: _Thing {}

    /// Every class, to register with the container.
    static var classes: [any EntityClass.Type] { [Photographer.self, Photo.self, Tag.self, Thing.self] }
}
