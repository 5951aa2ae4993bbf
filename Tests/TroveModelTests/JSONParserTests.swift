import Foundation
import Testing
import TroveModel

@Suite struct JSONParserTests {
    /// The error parsing `text` throws, or `nil` when it parses.
    private func parseError(_ text: String) -> JSONParseError? {
        parseError(Data(text.utf8))
    }

    private func parseError(_ data: Data) -> JSONParseError? {
        do {
            _ = try JSONValue(parsing: data)
            return nil
        } catch {
            return error
        }
    }

    /// Member names compare by their bytes (RFC 8259 §8.3): the NFC and NFD spellings of one
    /// name are two members, each with its value, whichever comes first; a name repeated byte
    /// for byte keeps its last value.
    @Test(arguments: [#"{"\u00e9": 1, "e\u0301": 2, "\u00e9": 3}"#, #"{"e\u0301": 2, "\u00e9": 1, "\u00e9": 3}"#])
    func equivalentNamesAreTwoMembers(text: String) throws {
        let members = try #require(try JSONValue(parsing: Data(text.utf8)).objectValue)
        #expect(members.count == 2)
        #expect(members["\u{e9}"] == 3 && members["e\u{301}"] == 2)
        #expect(Set(members.keys.map { Array($0.utf8) }) == [Array("\u{e9}".utf8), Array("e\u{301}".utf8)])
        // Written in the order of the names' bytes ("e" before "é"), both kept.
        #expect(JSONValue.object(members).serialized() == "{\"e\u{301}\":2,\"\u{e9}\":3}")
    }

    @Test func trailingCommasAreRejectedWithTheirOffset() {
        let array = parseError("[1, 2,]")
        #expect(array?.reason == "trailing comma before ']'")
        #expect(array?.offset == 6)
        #expect(array?.line == 1)
        #expect(array?.column == 7)
        let object = parseError("{\n  \"a\": 1,\n}")
        #expect(object?.reason == "trailing comma before '}'")
        #expect(object?.offset == 12)
        #expect(object?.line == 3)
        #expect(object?.column == 1)
        #expect(object?.description == "invalid JSON at line 3, column 1 (byte 12): trailing comma before '}'")
    }

    @Test func bigNumbersKeepEveryDigit() throws {
        let text = "[12345678901234567890123, 0.1000000000000000000000001, -9223372036854775808, 1e400]"
        let value = try JSONValue(parsing: text)
        let numbers = try #require(value.arrayValue)
        #expect(numbers[0] == .number("12345678901234567890123"))
        #expect(numbers[0].int64Value == nil)
        #expect(numbers[0].decimalValue == Decimal(string: "12345678901234567890123"))
        #expect(numbers[1].decimalValue == Decimal(string: "0.1000000000000000000000001"))
        #expect(numbers[2].int64Value == Int64.min)
        #expect(numbers[3].doubleValue == .infinity)
        #expect(value.serialized() == "[12345678901234567890123,0.1000000000000000000000001,-9223372036854775808,1e400]")
    }

    @Test func escapesAndSurrogatePairsDecode() throws {
        let value = try JSONValue(parsing: #"["\u00e9\n\t\"\\\/\b\f\r", "\ud83d\ude00", "plain é"]"#)
        #expect(value == ["é\n\t\"\\/\u{08}\u{0C}\r", "😀", "plain é"])
        #expect(parseError(#""\ud83d""#)?.reason == "unpaired surrogate \\ud83d in string")
        #expect(parseError(#""\ude00""#)?.reason == "unpaired surrogate \\ude00 in string")
        #expect(parseError(#""\x""#)?.reason == "invalid escape '\\x' in string")
        #expect(parseError(#""\u12G4""#)?.reason == "expected four hex digits after \\u")
        #expect(parseError("\"a\tb\"")?.reason == "unescaped control character in string")
    }

    @Test func nestingDeeperThanTheLimitIsAnError() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONValue(parsing: deepest) }
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        let error = parseError(tooDeep)
        #expect(error?.reason == "nesting deeper than 512 levels")
        #expect(error?.offset == 512)
    }

    @Test func invalidUTF8IsRejected() {
        let error = parseError(Data([0x5B, 0x22, 0x61, 0xFF, 0x22, 0x5D]))
        #expect(error?.reason == "invalid UTF-8 in string")
        #expect(error?.offset == 2)
        #expect(parseError(Data([0x5B, 0x22, 0x5C, 0x6E, 0xC3, 0x22, 0x5D]))?.reason == "invalid UTF-8 in string")
    }

    @Test(arguments: ["01", "-01", "00.5", "1.", ".5", "-", "1e", "+1", "NaN", "Infinity"])
    func malformedNumbersAreRejected(text: String) {
        #expect(parseError(text) != nil)
    }

    @Test func leadingZeroHasItsOwnReason() {
        #expect(parseError("[01]")?.reason == "leading zero in number")
        #expect(parseError("[01]")?.offset == 2)
    }

    @Test(arguments: ["0", "-0", "0.5", "-0.5e-3", "10E+2", "123"])
    func wellFormedNumbersKeepTheirText(text: String) throws {
        #expect(try JSONValue(parsing: text) == .number(text))
    }

    @Test(arguments: ["// comment\n1", "['a']", "{\"a\" 1}", "{a: 1}", "[1 2]", "1 2", "tru", "", "  ", "{\"a\":1}}"])
    func lenientSyntaxIsRejected(text: String) {
        #expect(parseError(text) != nil)
    }

    @Test func serializationRoundTrips() throws {
        let text = #"{"b": [true, false, null, 1.50, "x\u0001y"], "a": {"nested": {}, "empty": []}, "é": "\u2028"}"#
        let value = try JSONValue(parsing: text)
        #expect(value.serialized() == #"{"a":{"empty":[],"nested":{}},"b":[true,false,null,1.50,"x\u0001y"],"é":"\#u{2028}"}"#)
        #expect(try JSONValue(parsing: value.serialized()) == value)
        #expect(try JSONValue(parsing: value.serialized(pretty: true)) == value)
        #expect(JSONValue.object(["k": [1, 2]]).serialized(pretty: true) == "{\n  \"k\": [\n    1,\n    2\n  ]\n}")
    }

    /// Validating without building values accepts and rejects exactly what parsing does, with
    /// the same error.
    @Test(arguments: [
        "[1, 2,]", "{\"a\": 1,}", "{\"a\" 1}", "{a: 1}", "[1 2]", "1 2", "tru", "", "  ", "{\"a\":1}}", "// comment\n1",
        "01", "-01", "00.5", "1.", ".5", "-", "1e", "+1", "NaN", "[01]", "0", "-0.5e-3", "10E+2",
        #"["\u00e9\n\t\"\\\/\b\f\r", "\ud83d\ude00", "plain é"]"#, #""\ud83d""#, #""\udc00""#, #""\x""#, #""a"#,
        "\"tab\there\"", #"{"b": [true, false, null, 1.50, "x\u0001y"], "a": {"nested": {}, "empty": []}, "é": "\u2028"}"#,
        #"{"id": 1, "owner": {"name": "Ann", "tags": ["x", {"deep": [null]}]}}"#, "[true, fals]", "[nul]", "{\"k\"",
        String(repeating: "[", count: 513) + String(repeating: "]", count: 513),
    ])
    func validatingAgreesWithParsing(text: String) {
        var validated: JSONParseError?
        do { try JSONValue.validate(Data(text.utf8)) } catch { validated = error }
        #expect(validated == parseError(text))
    }

    @Test func validatingRejectsInvalidUTF8AsParsingDoes() {
        let data = Data([0x5B, 0x22, 0x61, 0xFF, 0x22, 0x5D])
        var validated: JSONParseError?
        do { try JSONValue.validate(data) } catch { validated = error }
        #expect(validated == parseError(data) && validated != nil)
    }

    @Test func repeatedKeyKeepsTheLastValue() throws {
        #expect(try JSONValue(parsing: #"{"a": 1, "a": 2}"#) == ["a": 2])
    }
}
