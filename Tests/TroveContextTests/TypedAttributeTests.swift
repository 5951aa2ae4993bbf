import Foundation
import MediaClasses
import Testing
import Trove
import TroveTesting

/// Every attribute type through generated properties, and sub-entities through their parent's
/// class (MediaClasses, from SampleModels.media()).
@Suite struct TypedAttributeTests {
    let dir: TemporaryDirectory
    let container: Container

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(model: SampleModels.media(), url: dir.file("media.trove"), classes: MediaModelClasses.all)
    }

    static let date = Date(timeIntervalSince1970: 1_311_460_240.5)
    static let uuid = UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8") ?? UUID()
    static let url = URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/")
    static let json: JSONValue = ["a": [1, "two", true, .null]]

    @Test func everyTypeRoundTripsThroughTheStore() throws {
        let context = container.newBackgroundContext()
        let thing = try context.insert(Thing.self)
        thing.stringValue = "Café"
        thing.integer16Value = .min
        thing.integer32Value = .max
        thing.integer64Value = .min
        thing.doubleValue = 0.1
        thing.floatValue = 1.5
        thing.decimalValue = Decimal(string: "12345678901234567890.123")
        thing.booleanValue = true
        thing.dateValue = Self.date
        thing.binaryValue = Data([0, 1, 255])
        thing.uuidValue = Self.uuid
        thing.uriValue = Self.url
        thing.characterValue = "é"
        thing.jsonValue = Self.json
        let empty = try context.insert(Thing.self)
        try context.save()

        let fresh = container.newBackgroundContext()
        let things = try fresh.fetch(Thing.self, where: "stringValue != nil")
        let read = try #require(things.first)
        #expect(things.count == 1)
        #expect(read.stringValue == "Café")
        #expect(read.integer16Value == .min && read.integer32Value == .max && read.integer64Value == .min)
        #expect(read.doubleValue == 0.1 && read.floatValue == 1.5)
        #expect(read.decimalValue == Decimal(string: "12345678901234567890.123"))
        #expect(read.booleanValue == true)
        #expect(read.dateValue == Self.date)
        #expect(read.binaryValue == Data([0, 1, 255]))
        #expect(read.uuidValue == Self.uuid)
        #expect(read.uriValue == Self.url)
        #expect(read.characterValue == "é")
        #expect(read.jsonValue == Self.json)
        #expect(read.faultError == nil)

        let nothing = try #require(try fresh.fetchFirst(Thing.self, where: "stringValue == nil"))
        #expect(nothing.objectID == empty.objectID)
        #expect(nothing.stringValue == nil && nothing.integer64Value == nil && nothing.dateValue == nil && nothing.jsonValue == nil)

        read.stringValue = nil
        try fresh.save()
        #expect(try container.newBackgroundContext().fetchCount(Thing.self, where: "stringValue == nil") == 2, "nil written back")
    }

    @Test func requiredAttributesReadAsTheirEmptyValueWhileNil() throws {
        let context = container.newBackgroundContext()
        let thing = try context.insert(RequiredThing.self)
        #expect(thing.stringValue == "")
        #expect(thing.integer16Value == 0 && thing.integer32Value == 0 && thing.integer64Value == 0)
        #expect(thing.doubleValue == 0 && thing.floatValue == 0 && thing.decimalValue == 0)
        #expect(thing.booleanValue == false)
        #expect(thing.dateValue == Date(timeIntervalSince1970: 0))
        #expect(thing.binaryValue == Data())
        #expect(thing.uuidValue.uuidString == "00000000-0000-0000-0000-000000000000")
        #expect(thing.uriValue == URL(fileURLWithPath: "/"))
        #expect(thing.characterValue == "\u{0}")
        #expect(thing.jsonValue == .null)
        #expect(try thing.value(forKey: "stringValue") == .null, "reading does not set the value")
        #expect(throws: ValidationError.self) { try context.save() }

        thing.stringValue = "s"
        thing.integer16Value = 16
        thing.integer32Value = 32
        thing.integer64Value = 64
        thing.doubleValue = 2.5
        thing.floatValue = 0.25
        thing.decimalValue = 7
        thing.booleanValue = false
        thing.dateValue = Self.date
        thing.binaryValue = Data([9])
        thing.uuidValue = Self.uuid
        thing.uriValue = Self.url
        thing.characterValue = "x"
        thing.jsonValue = [1]
        try context.save()

        let fresh = container.newBackgroundContext()
        let read = try #require(try fresh.fetchFirst(RequiredThing.self))
        #expect(read.stringValue == "s" && read.integer16Value == 16 && read.integer32Value == 32 && read.integer64Value == 64)
        #expect(read.doubleValue == 2.5 && read.floatValue == 0.25 && read.decimalValue == 7 && read.booleanValue == false)
        #expect(read.dateValue == Self.date && read.binaryValue == Data([9]) && read.uuidValue == Self.uuid)
        #expect(read.uriValue == Self.url && read.characterValue == "x" && read.jsonValue == [1])
    }

    @Test func defaultsAndKeywordNamedAttributesWork() throws {
        let context = container.newBackgroundContext()
        let thumbnail = try context.insert(Thumbnail.self)
        #expect(thumbnail.scale == 1 && thumbnail.width == 0 && thumbnail.`default` == false)
        thumbnail.id = "t"
        thumbnail.`default` = true
        try context.save()
        let fresh = container.newBackgroundContext()
        #expect(try fresh.fetchFirst(Media.self, where: "default == YES")?.id == "t")
    }

    @Test func derivedAttributesAreReadAndTransientOnesStayInMemory() throws {
        let context = container.newBackgroundContext()
        let shelf = try context.insert(Shelf.self)
        shelf.name = "top"
        shelf.label = "not stored"
        for id in ["a", "b", "c"] {
            let image = try context.insert(Image.self)
            image.id = id
            shelf.addToItems(image)
        }
        #expect(shelf.itemCount == nil, "computed by the store when the object is read")
        #expect(shelf.label == "not stored")
        try context.save()

        let fresh = container.newBackgroundContext()
        let read = try #require(try fresh.fetchFirst(Shelf.self))
        #expect(read.itemCount == 3)
        #expect(read.label == nil, "a transient value is not saved")
        #expect(read.items.map(\.id) == ["a", "b", "c"])
    }

    @Test func subEntityObjectsFetchedThroughTheParentClassAreOfTheirOwnClasses() throws {
        let context = container.newBackgroundContext()
        try context.insert(Media.self).id = "m"
        try context.insert(Image.self).id = "i"
        try context.insert(Thumbnail.self).id = "t"
        try context.insert(Video.self).id = "v"
        try context.save()

        let fresh = container.newBackgroundContext()
        let all = try fresh.fetch(Media.self, sortedBy: "id")
        #expect(all.map { "\(type(of: $0))" } == ["Image", "Media", "Thumbnail", "Video"])
        #expect(try fresh.fetch(Image.self, sortedBy: "id").map(\.id) == ["i", "t"], "an Image fetch includes Thumbnails")
        #expect(try fresh.fetchCount(Media.self) == 4)
        let thumbnail = try #require(all[2] as? Thumbnail)
        thumbnail.width = 64
        let video = try #require(all[3] as? Video)
        video.poster = thumbnail
        #expect(thumbnail.posterOf === video, "the inverse, through the sub-entity's own relationship")
        try fresh.save()
        let again = container.newBackgroundContext()
        let read = try #require(try again.fetchFirst(Video.self))
        #expect(type(of: try #require(read.poster)) == Thumbnail.self)
        #expect(read.poster?.width == 64)
    }
}
