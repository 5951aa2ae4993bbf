import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct RoundTripTests {
    /// A value of every attribute type, chosen to catch lossy storage.
    static let values: [String: AttributeValue] = [
        "stringValue": .string("Straße ✓ \"quoted\" 'single' \\ \u{0} end"),
        "integer16Value": .integer(Int64(Int16.min)),
        "integer32Value": .integer(Int64(Int32.max)),
        "integer64Value": .integer(Int64.max),
        "doubleValue": .double(0.1 + 0.2),
        "floatValue": .double(Double(Float(3.14159))),
        "decimalValue": .decimal(Decimal(string: "12345678901234567890.123456789")!),
        "booleanValue": .boolean(true),
        "dateValue": .date(Date(timeIntervalSince1970: 1_311_460_240.123)),
        "binaryValue": .binary(Data([0, 1, 2, 255, 254, 0])),
        "uuidValue": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        "uriValue": .uri(URL(string: "https://example.com/a%20b?q=1#frag")!),
        "characterValue": .character("👩‍👩‍👧"),
        "jsonValue": .json(["n": .number("123456789012345678901234567890"), "a": [true, nil, "x"], "o": [:]]),
    ]

    @Test func everyTypeRoundTripsExactlyThroughAFreshContainer() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("types.trove")
        let id: ObjectID
        do {
            let context = try Container(model: SampleModels.everyType(), url: url).newBackgroundContext()
            let thing = try context.insert("Thing")
            for (key, value) in Self.values { try thing.setValue(value, forKey: key) }
            try context.save()
            id = thing.objectID
        }
        let context = try Container(model: SampleModels.everyType(), url: url).newBackgroundContext()
        let thing = try context.object(with: id)
        for (key, value) in Self.values {
            #expect(try thing.value(forKey: key) == value, "\(key)")
        }
        #expect(try thing.value(forKey: "decimalValue", as: Decimal.self)?.description == "12345678901234567890.123456789")
        let date = try #require(try thing.value(forKey: "dateValue", as: Date.self))
        #expect(abs(date.timeIntervalSince1970 - 1_311_460_240.123) < 0.000_001)
    }

    @Test func nilRoundTripsForEveryType() throws {
        let dir = try TemporaryDirectory()
        let context = try Container(model: SampleModels.everyType(), url: dir.file("nil.trove")).newBackgroundContext()
        let thing = try context.insert("Thing")
        try context.save()
        let fresh = try Container(model: SampleModels.everyType(), url: dir.file("nil.trove")).newBackgroundContext()
        let again = try fresh.object(with: thing.objectID)
        for type in AttributeType.allCases {
            #expect(try again.value(forKey: type.rawValue + "Value") == .null)
        }
    }

    @Test func extremesOfNumbers() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("n.trove")
        let context = try Container(model: SampleModels.everyType(), url: url).newBackgroundContext()
        let cases: [(String, AttributeValue)] = [
            ("integer64Value", .integer(Int64.min)), ("doubleValue", .double(-0.0)),
            ("doubleValue", .double(.infinity)), ("doubleValue", .double(.leastNonzeroMagnitude)),
            ("decimalValue", .decimal(Decimal(string: "-0.000000000000000000000000000001")!)),
        ]
        var ids: [ObjectID] = []
        for (key, value) in cases {
            let thing = try context.insert("Thing")
            try thing.setValue(value, forKey: key)
            try context.save()
            ids.append(thing.objectID)
        }
        let fresh = try Container(model: SampleModels.everyType(), url: url).newBackgroundContext()
        for ((key, value), id) in zip(cases, ids) {
            #expect(try fresh.object(with: id).value(forKey: key) == value, "\(key) \(value)")
        }
    }
}
