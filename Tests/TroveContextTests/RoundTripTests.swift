import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct RoundTripTests {
    /// A value of every attribute type, chosen to catch lossy storage, the string with a NUL.
    static let values = SampleModels.everyTypeValues.merging(["stringValue": .string("Straße ✓ \"quoted\" 'single' \\ \u{0} end")]) { $1 }

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
