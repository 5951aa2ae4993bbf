import Foundation
import PropertyBased
import Testing
import Trove
@testable import TroveImport
import TroveTesting

/// The exporter writes records as bytes, without `JSONValue`s: a differential test against the
/// records as values (``Exporter/record(of:)``) serialized by ``JSONValue/serialized(pretty:)``,
/// over random models and graphs with harsh values — strings with every escape and NUL,
/// doubles of any bits, decimals, dates in each format, nested remote keys, every relationship
/// form and depth — must give the same text, byte for byte.
@Suite struct ExportTextTests {
    @Test func bytesAreTheTextOfTheRecordsAsValues() async throws {
        let dir = try TemporaryDirectory()
        var round = 0
        await propertyCheck(count: ExportRoundTripTests.cases, input: ExportRoundTripTests.scenarios) { scenario in
            round += 1
            let container = try Container(store: SQLiteStore(url: dir.file("\(round).trove"), model: scenario.model))
            var rng = SeededGenerator(seed: scenario.graphSeed)
            try ExportRoundTripTests.fill(container, &rng)
            try Self.roughenValues(container, &rng)
            let forms: [ExportOptions] = [ExportOptions(relationships: .keys), ExportOptions(relationships: .none),
                                          ExportOptions(relationships: .nested, depth: 1), ExportOptions(relationships: .nested, depth: 3)]
            for options in forms {
                try Self.expectSameText(container, options: options)
            }
        }
    }

    /// A record whose key paths overlap (`a` and `a.b`) is written as its value is.
    @Test func overlappingKeyPathsGiveTheRecordsValue() throws {
        let dir = try TemporaryDirectory()
        let model = try Model(entities: [
            Entity("Thing", uniqueBy: [["id"]], attributes: [
                Attribute("id", .integer64, optional: false),
                Attribute("whole", .string, remoteKey: ["a"]),
                Attribute("part", .string, remoteKey: ["a.b"]),
            ]),
        ])
        let container = try Container(store: SQLiteStore(url: dir.file("overlap.trove"), model: model))
        let context = container.newBackgroundContext()
        let thing = try context.insert("Thing")
        try thing.setValue(1, forKey: "id")
        try thing.setValue("w", forKey: "whole")
        try thing.setValue("p", forKey: "part")
        try context.save()
        let text = String(decoding: try Exporter(context: container.newBackgroundContext()).exportJSON(FetchRequest(entityName: "Thing"), format: .ndjson), as: UTF8.self)
        #expect(text == #"{"a":{"b":"p"},"id":1}"# + "\n")
        try Self.expectSameText(container, options: ExportOptions())
    }

    /// Random JSON values, with names that differ only in their bytes, escape-laden strings
    /// and number texts: ``JSONBytes`` writes what `serialized()` writes.
    @Test func jsonValuesAsBytesAreTheirSerializedText() {
        var rng = SeededGenerator(seed: 21)
        for _ in 0..<500 {
            let value = Self.randomJSON(depth: 3, &rng)
            var bytes = JSONBytes()
            bytes.append(value)
            #expect(String(decoding: bytes.bytes, as: UTF8.self) == value.serialized())
        }
        for integer in [Int64.min, .max, 0, -1, 9, 10, -10, 1_000_000] {
            var bytes = JSONBytes()
            bytes.append(integer: integer)
            #expect(String(decoding: bytes.bytes, as: UTF8.self) == String(integer))
        }
    }

    // MARK: Support

    /// Expects `exportJSON` in both formats to be the text of each record's value.
    static func expectSameText(_ container: Container, options: ExportOptions) throws {
        for entity in container.model.entities {
            let context = container.newBackgroundContext()
            let exporter = Exporter(context: context, options: ExportOptions(relationships: options.relationships, depth: options.depth, batchSize: 3))
            let request = FetchRequest(entityName: entity.name)
            let records = try context.fetch(request).map { try exporter.record(of: $0).serialized() }
            let json = records.isEmpty ? "[]\n" : "[\n" + records.joined(separator: ",\n") + "\n]\n"
            #expect(String(decoding: try exporter.exportJSON(request), as: UTF8.self) == json, "\(entity.name), \(options.relationships) \(options.depth)")
            #expect(String(decoding: try exporter.exportJSON(request, format: .ndjson), as: UTF8.self) == records.map { $0 + "\n" }.joined())
        }
    }

    /// Gives string, double and date attributes harsher values than the round trip's.
    static func roughenValues(_ container: Container, _ rng: inout SeededGenerator) throws {
        let context = container.newBackgroundContext()
        for entity in container.model.entities where !entity.isAbstract {
            for object in try context.fetch(FetchRequest(entityName: entity.name, includesSubentities: false)) {
                for attribute in entity.attributes where !attribute.name.hasPrefix("id") && !attribute.name.hasPrefix("key") {
                    switch attribute.type {
                    case .string: try object.setValue(AttributeValue.string(randomString(&rng)), forKey: attribute.name)
                    case .double:
                        let bits = Double(bitPattern: rng.next())
                        try object.setValue(AttributeValue.double(bits.isFinite ? bits : Double(Int64.random(in: -9_000...9_000, using: &rng)) / 8), forKey: attribute.name)
                    case .date:
                        let seconds = Double.random(in: -3e10...3e10, using: &rng)
                        try object.setValue(AttributeValue.date(Date(timeIntervalSinceReferenceDate: Bool.random(using: &rng) ? seconds.rounded() : seconds)), forKey: attribute.name)
                    default: break
                    }
                }
            }
        }
        try context.save()
    }

    /// Every control character, quote, backslash, DEL, line separators, combining marks,
    /// characters of two to four bytes.
    static let scalars: [Unicode.Scalar] = (0..<0x20).compactMap(Unicode.Scalar.init)
        + ["\"", "\\", "/", "\u{7F}", "\u{2028}", "\u{2029}", "e", "\u{301}", "é", "日", "👍", "\u{FEFF}", "a", "Z", " "]

    static func randomString(_ rng: inout SeededGenerator) -> String {
        var text = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...24, using: &rng) { text.append(scalars.randomElement(using: &rng) ?? "a") }
        return String(text)
    }

    static func randomJSON(depth: Int, _ rng: inout SeededGenerator) -> JSONValue {
        switch Int.random(in: 0..<(depth > 0 ? 7 : 5), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(["0", "-1.50", "1e400", "12345678901234567890123", "0.1"].randomElement(using: &rng) ?? "0")
        case 3, 4: return .string(randomString(&rng))
        case 5: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in randomJSON(depth: depth - 1, &rng) })
        default:
            let names = ["e\u{301}", "é", "a", "b\"", "\u{0}", "Z", "日本", ""]
            return .object(JSONObject((0..<Int.random(in: 0...5, using: &rng)).map { _ in
                (key: names.randomElement(using: &rng) ?? "a", value: randomJSON(depth: depth - 1, &rng))
            }))
        }
    }
}
