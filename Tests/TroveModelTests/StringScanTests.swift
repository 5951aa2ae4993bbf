import Foundation
import Testing
import TroveModel

/// `StringScan.plainEnd` reads eight bytes at a time: it must find what a byte-at-a-time loop
/// finds at every position of the word and at every alignment, and the strings parsed with it
/// must be those of such a loop.
@Suite struct StringScanTests {
    /// The byte-at-a-time answer.
    private func reference(_ bytes: [UInt8], from start: Int, controls: Bool) -> (end: Int, nonASCII: Bool) {
        var nonASCII = false
        for i in start..<bytes.count {
            let byte = bytes[i]
            if byte == 0x22 || byte == 0x5C || (controls && byte < 0x20) { return (i, nonASCII) }
            if byte >= 0x80 { nonASCII = true }
        }
        return (bytes.count, nonASCII)
    }

    @Test func findsWhatAByteLoopFindsAtEveryPositionAndAlignment() {
        // Plain bytes, and every byte that stops or marks the scan (and their neighbours 0x21,
        // 0x5B, 0x5D, 0x1F/0x20, 0x7F/0x80, 0xFF: the ones a borrow could confuse).
        let plain: [UInt8] = [0x41, 0x7A, 0x30, 0x21, 0x5B, 0x5D, 0x20, 0x7F]
        let specials: [UInt8] = [0x22, 0x5C, 0x00, 0x1F, 0x0A, 0x80, 0xC3, 0xFF]
        var checked = 0
        for length in 0...24 {
            for start in 0...min(length, 9) {
                for at in start..<max(length, start + 1) where at < length {
                    for special in specials {
                        for controls in [false, true] {
                            var bytes = (0..<length).map { plain[$0 % plain.count] }
                            bytes[at] = special
                            // A second special after the first: the lowest must win.
                            if at + 3 < length { bytes[at + 3] = 0x22 }
                            let expected = reference(bytes, from: start, controls: controls)
                            var nonASCII = false
                            let end = bytes.withUnsafeBufferPointer {
                                StringScan.plainEnd(in: $0, from: start, controls: controls, nonASCII: &nonASCII)
                            }
                            #expect(end == expected.end, "length \(length), start \(start), \(special) at \(at)")
                            #expect(nonASCII == expected.nonASCII, "length \(length), start \(start), \(special) at \(at)")
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked > 10_000)
    }

    @Test func randomTextScansAsByteByByte() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let length = Int.random(in: 0...64, using: &generator)
            // Mostly plain ASCII, sometimes a stop or a high byte.
            let bytes = (0..<length).map { _ -> UInt8 in
                Int.random(in: 0..<10, using: &generator) == 0 ? UInt8.random(in: 0...255, using: &generator) : UInt8.random(in: 0x23...0x5B, using: &generator)
            }
            let start = length == 0 ? 0 : Int.random(in: 0...length, using: &generator)
            for controls in [false, true] {
                let expected = reference(bytes, from: start, controls: controls)
                var nonASCII = false
                let end = bytes.withUnsafeBufferPointer {
                    StringScan.plainEnd(in: $0, from: start, controls: controls, nonASCII: &nonASCII)
                }
                #expect(end == expected.end && nonASCII == expected.nonASCII, "\(bytes) from \(start)")
            }
        }
    }

    @Test func stringsAndKeysParseAsBeforeAtEveryLength() throws {
        for length in 0...40 {
            let text = String((0..<length).map { Character(Unicode.Scalar(UInt8(0x61 + $0 % 26))) })
            let accented = String(repeating: "é", count: length / 2) + text
            let json = "{\"\(text)k\": \"\(text)\", \"\(accented)\": \"\(accented)\\n\\\"\"}"
            let value = try JSONValue(parsing: Data(json.utf8))
            #expect(value == .object(["\(text)k": .string(text), accented: .string(accented + "\n\"")]))
        }
        // A control character inside a string is still an error, at its offset.
        for length in 0...20 {
            let json = "[\"" + String(repeating: "a", count: length) + "\u{01}\"]"
            do {
                _ = try JSONValue(parsing: Data(json.utf8))
                Issue.record("a raw control character parsed")
            } catch {
                #expect(error.reason == "unescaped control character in string")
                #expect(error.offset == 2 + length)
            }
        }
        // Invalid UTF-8 after plain ASCII is found whatever its place in the word.
        for length in 0...20 {
            let bytes = Array("[\"".utf8) + Array(repeating: 0x61, count: length) + [0xFF] + Array("\"]".utf8)
            #expect(throws: JSONParseError.self) { try JSONValue(parsing: Data(bytes)) }
        }
    }
}
