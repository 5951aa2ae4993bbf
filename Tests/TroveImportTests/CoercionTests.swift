import Foundation
import Testing
import TroveImport
import TroveModel

@Suite struct CoercionTests {
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()

    static let accepted: [Accepted] = [
        // string
        Accepted("30-32", .string, "30-32", .none),
        Accepted(8, .string, "8", .numberToString),
        Accepted(number("12345678901234567890123"), .string, "12345678901234567890123", .numberToString),
        // A number's text as sent is the value: never rounded through a Double, nor respelled.
        Accepted(number("3.0"), .string, "3.0", .numberToString),
        Accepted(number("2.50"), .string, "2.50", .numberToString),
        Accepted(number("0.1"), .string, "0.1", .numberToString),
        Accepted(number("1e2"), .string, "1e2", .numberToString),
        Accepted(number("-0"), .string, "-0", .numberToString),
        Accepted(number("1e400"), .string, "1e400", .numberToString),
        Accepted(number("3.14159265358979323846264338327950288"), .string, "3.14159265358979323846264338327950288", .numberToString),
        Accepted(number("1e-400"), .string, "1e-400", .numberToString),
        Accepted(number("100000000000000000000.5"), .string, "100000000000000000000.5", .numberToString),
        Accepted(number("-1.5E+3"), .string, "-1.5E+3", .numberToString),
        Accepted("  padded ", .string, "  padded ", .none),
        // integers
        Accepted(42, .integer64, 42, .none),
        Accepted(number("9007199254740993"), .integer64, .integer(9_007_199_254_740_993), .none),
        Accepted(number("-9223372036854775808"), .integer64, .integer(Int64.min), .none),
        Accepted(number("9223372036854775807"), .integer64, .integer(Int64.max), .none),
        Accepted(number("3.0"), .integer64, 3, .numberToInteger),
        Accepted(number("3e0"), .integer64, 3, .numberToInteger),
        Accepted(number("30e-1"), .integer16, 3, .numberToInteger),
        Accepted(number("1.5e1"), .integer32, 15, .numberToInteger),
        Accepted(number("-0.0"), .integer16, 0, .numberToInteger),
        Accepted("42", .integer64, 42, .stringToInteger),
        Accepted(" \t-7\n", .integer32, -7, .stringToInteger),
        Accepted("+5", .integer16, 5, .stringToInteger),
        Accepted("3.0", .integer16, 3, .stringToInteger),
        Accepted("007", .integer16, 7, .stringToInteger),
        Accepted("9007199254740993", .integer64, .integer(9_007_199_254_740_993), .stringToInteger),
        Accepted("\u{00A0}12\u{2003}", .integer64, 12, .stringToInteger),
        Accepted(32767, .integer16, 32767, .none),
        Accepted(-32768, .integer16, -32768, .none),
        Accepted(number("2147483647"), .integer32, .integer(Int64(Int32.max)), .none),
        // floating point and decimal
        Accepted(number("3.7"), .double, 3.7, .none),
        Accepted(3, .double, 3.0, .none),
        Accepted("3.7", .double, 3.7, .stringToDouble),
        Accepted(" -1e-3 ", .double, -0.001, .stringToDouble),
        Accepted(".5", .double, 0.5, .stringToDouble),
        Accepted(number("0.1"), .float, .double(Double(Float(0.1))), .none),
        Accepted("0.1", .float, .double(Double(Float(0.1))), .stringToFloat),
        Accepted(number("0"), .float, 0.0, .none),
        Accepted(number("0.1"), .decimal, .decimal(Decimal(sign: .plus, exponent: -1, significand: 1)), .none),
        Accepted("12.345", .decimal, .decimal(Decimal(sign: .plus, exponent: -3, significand: 12345)), .stringToDecimal),
        Accepted(number("-1.5e3"), .decimal, .decimal(Decimal(-1500)), .none),
        Accepted(number("0"), .decimal, .decimal(Decimal(0)), .none),
        // booleans
        Accepted(true, .boolean, true, .none),
        Accepted(false, .boolean, false, .none),
        Accepted("true", .boolean, true, .stringToBoolean),
        Accepted("FALSE", .boolean, false, .stringToBoolean),
        Accepted("Yes", .boolean, true, .stringToBoolean),
        Accepted(" no ", .boolean, false, .stringToBoolean),
        Accepted("1", .boolean, true, .stringToBoolean),
        Accepted("0", .boolean, false, .stringToBoolean),
        Accepted(1, .boolean, true, .numberToBoolean),
        Accepted(0, .boolean, false, .numberToBoolean),
        Accepted(number("1.0"), .boolean, true, .numberToBoolean),
        // UUID, URL, binary, character
        Accepted("e621e1f8-c36c-495a-93fc-0c247a3e6e5f", .uuid, .uuid(uuid), .stringToUUID),
        Accepted(" E621E1F8-C36C-495A-93FC-0C247A3E6E5F ", .uuid, .uuid(uuid), .stringToUUID),
        Accepted("https://example.com/a?b=c#d", .uri, .uri(url("https://example.com/a?b=c#d")), .stringToURL),
        Accepted("mailto:a@example.com", .uri, .uri(url("mailto:a@example.com")), .stringToURL),
        Accepted("aGVsbG8=", .binary, .binary(Data("hello".utf8)), .base64ToBinary),
        Accepted("aGVsbG8", .binary, .binary(Data("hello".utf8)), .base64ToBinary),
        Accepted("", .binary, .binary(Data()), .base64ToBinary),
        Accepted("x", .character, .character("x"), .none),
        Accepted("abc", .character, .character("a"), .stringToCharacter),
        Accepted("👩‍👩‍👧abc", .character, .character("👩‍👩‍👧"), .stringToCharacter),
        Accepted("e\u{301}", .character, .character("e\u{301}"), .none),
        // json and null
        Accepted(["a": [1, "b", nil]], .json, .json(["a": [1, "b", nil]]), .none),
        Accepted(number("1.50"), .json, .json(number("1.50")), .none),
        Accepted("text", .json, .json("text"), .none),
    ] + AttributeType.allCases.map { Accepted(nil, $0, .null, .none) }

    @Test(arguments: accepted)
    func accepts(_ cell: Accepted) throws {
        let coerced = try coerce(cell.json, to: cell.type).get()
        #expect(coerced.value == cell.value)
        #expect(coerced.kind == cell.kind)
    }

    static let rejected: [Rejected] = [
        // string
        Rejected(true, .string, .wrongKind),
        Rejected(["a": 1], .string, .wrongKind),
        Rejected([1], .string, .wrongKind),
        // integers
        Rejected(number("3.7"), .integer64, .notAnInteger),
        Rejected("3.7", .integer64, .notAnInteger),
        Rejected(number("1e-1"), .integer64, .notAnInteger),
        Rejected(70000, .integer16, .outOfRange),
        Rejected("70000", .integer16, .outOfRange),
        Rejected(32768, .integer16, .outOfRange),
        Rejected(-32769, .integer16, .outOfRange),
        Rejected(number("2147483648"), .integer32, .outOfRange),
        Rejected(number("9223372036854775808"), .integer64, .outOfRange),
        Rejected(number("-9223372036854775809"), .integer64, .outOfRange),
        Rejected(number("12345678901234567890123"), .integer64, .outOfRange),
        Rejected(number("1e19"), .integer64, .outOfRange),
        Rejected(number("1e999999999999"), .integer64, .outOfRange),
        Rejected("abc", .integer64, .notANumber),
        Rejected("", .integer64, .notANumber),
        Rejected("   ", .integer32, .notANumber),
        Rejected("1,000", .integer64, .notANumber),
        Rejected("0x10", .integer64, .notANumber),
        Rejected("12abc", .integer64, .notANumber),
        Rejected("--1", .integer64, .notANumber),
        Rejected("1e", .integer64, .notANumber),
        Rejected(".", .integer64, .notANumber),
        Rejected(true, .integer64, .wrongKind),
        Rejected(["a": 1], .integer64, .wrongKind),
        Rejected([1], .integer16, .wrongKind),
        // floating point and decimal
        Rejected("NaN", .double, .notANumber),
        Rejected("Infinity", .double, .notANumber),
        Rejected("-inf", .double, .notANumber),
        Rejected("nan", .float, .notANumber),
        Rejected("3,5", .double, .notANumber),
        Rejected("0x1p3", .double, .notANumber),
        Rejected(number("1e400"), .double, .outOfRange),
        Rejected(number("1e-400"), .double, .outOfRange),
        Rejected(number("1e39"), .float, .outOfRange),
        Rejected("3.5e38", .float, .outOfRange),
        Rejected(number("1e-50"), .float, .outOfRange),
        Rejected("Infinity", .decimal, .notANumber),
        Rejected("12.3.4", .decimal, .notANumber),
        Rejected(number("1234567890123456789012345678901234567890"), .decimal, .tooPrecise),
        Rejected(number("1e200"), .decimal, .outOfRange),
        Rejected(false, .double, .wrongKind),
        Rejected([number("1.5")], .decimal, .wrongKind),
        // booleans
        Rejected(2, .boolean, .notABoolean),
        Rejected(-1, .boolean, .notABoolean),
        Rejected(number("0.5"), .boolean, .notABoolean),
        Rejected("y", .boolean, .notABoolean),
        Rejected("on", .boolean, .notABoolean),
        Rejected("2", .boolean, .notABoolean),
        Rejected("1.0", .boolean, .notABoolean),
        Rejected("", .boolean, .notABoolean),
        Rejected(["a": true], .boolean, .wrongKind),
        // UUID, URL, binary, character
        Rejected("not-a-uuid", .uuid, .notAUUID),
        Rejected("E621E1F8C36C495A93FC0C247A3E6E5F", .uuid, .notAUUID),
        Rejected(42, .uuid, .wrongKind),
        Rejected("http://example.com/a b", .uri, .notAURL),
        Rejected("/relative/path", .uri, .notAURL),
        Rejected("example.com", .uri, .notAURL),
        Rejected("", .uri, .notAURL),
        Rejected("http://example.com/<tag>", .uri, .notAURL),
        Rejected(1, .uri, .wrongKind),
        Rejected("not base64!", .binary, .notBase64),
        Rejected("aGVsbG8=x", .binary, .notBase64),
        Rejected("a", .binary, .notBase64),
        Rejected(true, .binary, .wrongKind),
        Rejected("", .character, .emptyString),
        Rejected(8, .character, .wrongKind),
        // dates (forms in DateCoercionTests)
        Rejected(true, .date, .wrongKind),
        Rejected(["a": 1], .date, .wrongKind),
    ]

    @Test(arguments: rejected)
    func rejects(_ cell: Rejected) throws {
        let result = try coerce(cell.json, to: cell.type)
        guard case .failure(let rejection) = result else {
            Issue.record("expected a rejection, got \(result)")
            return
        }
        #expect(rejection.reason == cell.reason)
        #expect(rejection.expected == cell.type)
        #expect(rejection.got == cell.json.kindName)
    }

    @Test func rejectionsSayWhatWasExpectedAndWhatCame() throws {
        func message(_ json: JSONValue, _ type: AttributeType) throws -> String {
            guard case .failure(let rejection) = try coerce(json, to: type) else { return "accepted" }
            return rejection.description
        }
        #expect(try message(70000, .integer16) == "expected integer16, got the number 70000: out of range (-32768...32767)")
        #expect(try message(["id": 1], .integer64) == "expected integer64, got an object")
        #expect(try message([1, 2], .string) == "expected string, got an array")
        #expect(try message("3.7", .integer32)
            == "expected integer32, got the string \"3.7\": has a fractional part, and integers are never rounded")
        #expect(try message(true, .string) == "expected string, got true")
        #expect(try message("maybe", .boolean)
            == "expected boolean, got the string \"maybe\": a boolean is one of true, false, yes, no, 1, 0")
    }

    @Test func excerptsAreCut() throws {
        let long = JSONValue.string(String(repeating: "x", count: 500))
        guard case .failure(let rejection) = try coerce(long, to: .integer64) else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.excerpt.count == 80)
        #expect(rejection.excerpt.hasSuffix("…"))
    }

    @Test func rejectionsEncodeAsJSON() throws {
        guard case .failure(let rejection) = try coerce(70000, to: .integer16) else {
            Issue.record("accepted")
            return
        }
        let decoded = try JSONDecoder().decode(CoercionRejection.self, from: JSONEncoder().encode(rejection))
        #expect(decoded == rejection)
        #expect(decoded.reason == .outOfRange)
    }

    /// Every digit of integers beyond 2^53 survives, into integer64 and into string.
    @Test(arguments: ["9007199254740993", "-9007199254740993", "9223372036854775807", "1234567890123456789"])
    func integersBeyond2To53KeepEveryDigit(_ literal: String) throws {
        let integer = try coerce(number(literal), to: .integer64).get()
        #expect(integer.value == .integer(Int64(literal) ?? 0))
        let text = try coerce(number(literal), to: .string).get()
        #expect(text.value == .string(literal))
        let fromString = try coerce(.string(literal), to: .integer64).get()
        #expect(fromString.value == .integer(Int64(literal) ?? 0))
    }

    /// Decimals are exact where `Double` is not.
    @Test(arguments: ["0.1", "123456789012345678901234567890.12345678", "-0.000000000000000000000000000001", "99999999999999999999999999999999999999"])
    func decimalsAreExact(_ literal: String) throws {
        let expected = try #require(Decimal(string: literal, locale: Locale(identifier: "en_US_POSIX")))
        #expect(try coerce(number(literal), to: .decimal).get().value == .decimal(expected))
        #expect(try coerce(.string(literal), to: .decimal).get().value == .decimal(expected))
    }

    /// The reference text's clothing sizes: strings stay, numbers become their text.
    @Test func clothingSizesIntoAStringAttribute() throws {
        let sizes: [JSONValue] = ["30-32", "34-36", 8, 10]
        let values = try sizes.map { try coerce($0, to: .string).get().value }
        #expect(values == ["30-32", "34-36", "8", "10"])
    }
}
