import Foundation
import Testing
import Trove
import TroveTesting

/// `setValue(_:forKey:)` takes any `AttributeValueConvertible`, an `AttributeValue`, and
/// optionals of them; nil clears.
@Suite struct SetValueTests {
    let dir: TemporaryDirectory
    let context: ObjectContext

    init() throws {
        dir = try TemporaryDirectory()
        context = try Container(model: SampleModels.photos(), url: dir.file("photos.trove")).newBackgroundContext()
    }

    @Test func takesSwiftValuesOptionalsAndAttributeValues() throws {
        let photo = try context.insert("Photo")
        let title: String? = "Sunset"
        try photo.setValue(title, forKey: "title")
        #expect(try photo.value(forKey: "title", as: String.self) == "Sunset")
        let none: String? = nil
        #expect(try photo.setValue(none, forKey: "title"))
        #expect(try photo.value(forKey: "title") == .null)
        try photo.setValue("p1", forKey: "id")
        try photo.setValue(Int16(7), forKey: "views")
        #expect(try photo.value(forKey: "views") == .integer(7))
        try photo.setValue(42, forKey: "views")
        #expect(try photo.value(forKey: "views", as: Int64.self) == 42)
        try photo.setValue(AttributeValue.string("Dawn"), forKey: "title")
        #expect(try photo.value(forKey: "title", as: String.self) == "Dawn")
        try photo.setValue(nil, forKey: "title")
        #expect(try photo.value(forKey: "title") == .null)
        #expect(try !photo.setValue(nil, forKey: "title"), "setting the value held changes nothing")
        try context.save()
    }

    @Test func aValueOfTheWrongTypeIsATypedErrorAndChangesNothing() throws {
        let photo = try context.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try photo.setValue(3, forKey: "views")
        let error = #expect(throws: ObjectError.self) { try photo.setValue("many", forKey: "views") }
        #expect(error?.code == .typeMismatch)
        #expect(try photo.value(forKey: "views") == .integer(3))
        let unknown = #expect(throws: ObjectError.self) { try photo.setValue(Optional("x"), forKey: "titel") }
        #expect(unknown?.code == .unknownKey)
    }
}
