import Foundation
import Testing
import Trove
import TroveTesting

/// Reports and key-path values print for people and encode for programs.
@Suite struct ReportPrintingTests {
    @Test func anImportReportPrintsItsCountsAndRejectionsAndRoundTripsAsJSON() throws {
        let dir = try TemporaryDirectory()
        let container = try Container(model: SampleModels.photos(), url: dir.file("s.trove"))
        let payload = #"[{"id": "p1", "title": "a", "views": 3}, {"id": "p2", "views": "lots"}, {"id": "p3", "owner": {"id": "ann"}}]"#
        let report = try Importer(context: container.newBackgroundContext()).importJSON(Data(payload.utf8), into: "Photo")
        #expect(report.description.hasPrefix("3 records read, 2 imported, 1 rejected; Photo: 2 inserted; Photographer: 1 inserted"))
        #expect(report.description.contains("\n  record 1 at views: "))
        #expect("\(report.entities["Photo"] ?? .init())" == "2 inserted")
        #expect("\(ImportReport.EntityCounts())" == "nothing")

        let json = try JSONEncoder().encode(report)
        #expect(try JSONDecoder().decode(ImportReport.self, from: json) == report)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect((object["entities"] as? [String: Any])?["Photo"] != nil)
    }

    @Test func keyPathValuesPrintAndEncodeAsTheirValues() throws {
        #expect("\(KeyPathValue.one("Sunset"))" == #""Sunset""#)
        #expect("\(KeyPathValue.many(["sea", 2]))" == #"["sea", 2]"#)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let values: [String: KeyPathValue] = [
            "title": .one("Sunset"), "views": .one(.integer(9_007_199_254_740_993)), "none": .one(.null),
            "price": .one(.decimal(Decimal(sign: .plus, exponent: -1, significand: 1))), "tags": .many(["sea", "sky"]),
            "extra": .one(.json(["a": [1, "b"], "big": .number("123456789012345678901234567890")])),
        ]
        let text = String(decoding: try encoder.encode(values), as: UTF8.self)
        #expect(text.contains(#""views":9007199254740993"#), "every digit of an integer")
        #expect(text.contains(#""price":0.1"#), "decimals exact")
        #expect(text.contains(#""none":null"#) && text.contains(#""tags":["sea","sky"]"#))
        #expect(text.contains(#""extra":{"a":[1,"b"],"big":123456789012345678901234567890}"#))
    }
}
