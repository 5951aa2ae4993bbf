import Foundation
import Testing
import TroveImport
import TroveModel

@Suite struct LenientDecoderTests {
    struct Photo: Decodable, Equatable {
        struct Owner: Decodable, Equatable {
            let id: Int64
            let name: String
            let verified: Bool
        }
        let id: String
        let views: Int
        let rating: Double
        let price: Decimal
        let size: Float
        let uploaded: Date
        let thumbnail: Data
        let key: UUID
        let link: URL
        let owner: Owner
        let tags: [String]
        let counts: [String: Int16]
        let caption: String?
        let width: Int32?
    }

    /// A messy payload: numbers as strings, a string as a number, yes/no booleans, dates as
    /// epoch seconds, big integers, an absent optional and a null one.
    static let messy = """
    {
      "id": 12345,
      "views": " 42 ",
      "rating": "4.5",
      "price": "19.99",
      "size": 1.5,
      "uploaded": 1311460240,
      "thumbnail": "aGVsbG8=",
      "key": "e621e1f8-c36c-495a-93fc-0c247a3e6e5f",
      "link": "https://example.com/p/12345",
      "owner": { "id": "9007199254740993", "name": 8, "verified": "yes", "extra": true },
      "tags": ["sunset", 2011, "beach"],
      "counts": { "likes": "3", "faves": 4.0 },
      "caption": null,
      "unknown": [1, 2, 3]
    }
    """

    @Test func decodesAMessyPayloadAndReportsEachCoercion() throws {
        let decoded = try LenientDecoder().decode(Photo.self, from: Data(Self.messy.utf8))
        let photo = decoded.value
        #expect(photo.id == "12345")
        #expect(photo.views == 42)
        #expect(photo.rating == 4.5)
        #expect(photo.price == Decimal(sign: .plus, exponent: -2, significand: 1999))
        #expect(photo.size == 1.5)
        #expect(photo.uploaded == Date(timeIntervalSince1970: 1_311_460_240))
        #expect(photo.thumbnail == Data("hello".utf8))
        #expect(photo.key == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(photo.link.absoluteString == "https://example.com/p/12345")
        #expect(photo.owner == Photo.Owner(id: 9_007_199_254_740_993, name: "8", verified: true))
        #expect(photo.tags == ["sunset", "2011", "beach"])
        #expect(photo.counts == ["likes": 3, "faves": 4])
        #expect(photo.caption == nil)
        #expect(photo.width == nil)

        let byPath = Dictionary(uniqueKeysWithValues: decoded.report.coercions.map { ($0.path, $0.kind) })
        #expect(byPath == [
            "id": .numberToString, "views": .stringToInteger, "rating": .stringToDouble,
            "price": .stringToDecimal, "uploaded": .epochSecondsToDate, "thumbnail": .base64ToBinary,
            "key": .stringToUUID, "link": .stringToURL, "owner.id": .stringToInteger,
            "owner.name": .numberToString, "owner.verified": .stringToBoolean, "tags[1]": .numberToString,
            "counts.likes": .stringToInteger, "counts.faves": .numberToInteger,
        ])
        #expect(decoded.report.counts[.stringToInteger] == 3)
        #expect(decoded.report.rejections.isEmpty)
    }

    struct Rejection: Sendable, CustomTestStringConvertible {
        let json: String
        let path: String
        let expected: String
        let reason: CoercionRejection.Reason
        var testDescription: String { json }
    }

    struct Small: Decodable {
        struct Inner: Decodable { let level: Int16 }
        let count: Int
        let note: String?
        let inner: Inner?
        let list: [UInt8]?
    }

    static let rejections: [Rejection] = [
        Rejection(json: #"{"count": "3.7"}"#, path: "count", expected: "Int", reason: .notAnInteger),
        Rejection(json: #"{"count": "many"}"#, path: "count", expected: "Int", reason: .notANumber),
        Rejection(json: #"{"count": null}"#, path: "count", expected: "Int", reason: .missingValue),
        Rejection(json: #"{}"#, path: "count", expected: "Int", reason: .missingKey),
        Rejection(json: #"{"count": {"n": 1}}"#, path: "count", expected: "Int", reason: .wrongKind),
        // A rejected optional value throws too: never silently nil.
        Rejection(json: #"{"count": 1, "note": true}"#, path: "note", expected: "String", reason: .wrongKind),
        Rejection(json: #"{"count": 1, "inner": {"level": 70000}}"#, path: "inner.level", expected: "Int16", reason: .outOfRange),
        Rejection(json: #"{"count": 1, "inner": "deep"}"#, path: "inner", expected: "an object", reason: .wrongKind),
        Rejection(json: #"{"count": 1, "list": [1, 2, 300]}"#, path: "list[2]", expected: "UInt8", reason: .outOfRange),
        Rejection(json: #"{"count": 1, "list": [1, -1]}"#, path: "list[1]", expected: "UInt8", reason: .outOfRange),
        Rejection(json: #"{"count": 1, "list": 5}"#, path: "list", expected: "an array", reason: .wrongKind),
        Rejection(json: #"[1, 2]"#, path: "", expected: "an object", reason: .wrongKind),
        Rejection(json: #"{"count": 1,}"#, path: "", expected: "JSON", reason: .invalidJSON),
    ]

    @Test(arguments: rejections)
    func rejectsWithThePath(_ case: Rejection) {
        do {
            _ = try LenientDecoder().decode(Small.self, from: Data(`case`.json.utf8))
            Issue.record("decoded")
        } catch {
            #expect(error.rejection.path == `case`.path)
            #expect(error.rejection.expected == `case`.expected)
            #expect(error.rejection.reason == `case`.reason)
        }
    }

    @Test func aRejectionSaysWhereWhatAndWhy() {
        do {
            _ = try LenientDecoder().decode(Small.self, from: Data(#"{"count": 1, "inner": {"level": 70000}}"#.utf8))
            Issue.record("decoded")
        } catch {
            #expect(error.description == "cannot decode: at inner.level: expected Int16, got the number 70000: "
                + "out of range (-32768...32767); fix the value in the input or make the Swift type accept it")
        }
    }

    /// One bad record does not stop the others, as in an import.
    @Test func recordsDecodeOneByOne() throws {
        let payload = #"[{"count": "1"}, {"count": "x"}, {"count": 3, "note": 4}, {"count": 4.5}]"#
        let decoded = try LenientDecoder().decodeRecords(Small.self, from: Data(payload.utf8))
        #expect(decoded.values.map(\.count) == [1, 3])
        #expect(decoded.values.map(\.note) == [nil, "4"])
        #expect(decoded.report.rejections.map(\.recordIndex) == [1, 3])
        #expect(decoded.report.rejections.map(\.description) == [
            "record 1, at count: expected Int, got the string \"x\": not a number",
            "record 3, at count: expected Int, got the number 4.5: has a fractional part, and integers are never rounded",
        ])
        #expect(decoded.report.coercions == [
            PerformedCoercion(recordIndex: 0, path: "count", kind: .stringToInteger),
            PerformedCoercion(recordIndex: 2, path: "note", kind: .numberToString),
        ])
    }

    @Test func datesFollowTheDecodersDateFormat() throws {
        struct Event: Decodable { let at: Date }
        let milliseconds = try LenientDecoder(dateFormat: .epochMilliseconds)
            .decode(Event.self, from: JSONValue.object(["at": number("1311460240123")]))
        #expect(milliseconds.value.at == (try isoDate("2011-07-23T22:30:40.123Z")))
        let pattern = try LenientDecoder(dateFormat: .pattern("dd.MM.yyyy"))
            .decode(Event.self, from: JSONValue.object(["at": "23.07.2011"]))
        #expect(pattern.value.at == (try isoDate("2011-07-23")))
    }

    @Test func typesWithTheirOwnDecodingAreHonoured() throws {
        enum Status: String, Decodable { case open, closed }
        struct Ticket: Decodable { let status: Status; let numbers: [Int?] }
        let ticket = try LenientDecoder().decode(Ticket.self, from: ["status": "open", "numbers": [1, nil, "3"]])
        #expect(ticket.value.status == .open)
        #expect(ticket.value.numbers == [1, nil, 3])
        do {
            _ = try LenientDecoder().decode(Ticket.self, from: ["status": "pending", "numbers": []])
            Issue.record("decoded")
        } catch {
            #expect(error.rejection.reason == .invalidValue)
            #expect(error.rejection.path == "status")
        }
    }

    @Test func reportsEncodeAsJSON() throws {
        let decoded = try LenientDecoder().decodeRecords(Small.self, from: [["count": "1"], ["count": "x"]])
        let data = try JSONEncoder().encode(decoded.report)
        #expect(try JSONDecoder().decode(LenientDecodingReport.self, from: data) == decoded.report)
    }
}
