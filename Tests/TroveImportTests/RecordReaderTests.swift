import Foundation
import Testing
@testable import TroveImport
import TroveModel
import TroveTesting

/// The streaming reader against the whole-document parser, with read buffers from 1 byte up, so
/// that every record, key, string, escape and number is cut at every place.
@Suite struct RecordReaderTests {
    let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory()
    }

    static let readSizes = [1, 2, 3, 5, 7, 16, 64, 1 << 20]

    /// Every record the reader returns for `text`, read `readSize` bytes at a time.
    func records(_ text: String, format: RecordFormat = .json(root: nil), readSize: Int) throws -> [JSONValue] {
        let url = dir.file("input-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        let reader = RecordReader(input: try ByteInput(.file(url), readSize: readSize), format: format)
        var all: [JSONValue] = []
        while let record = try reader.next() { all.append(record) }
        #expect(try reader.atEnd())
        return all
    }

    /// The error message the reader gives for `text`.
    func failure(_ text: String, format: RecordFormat = .json(root: nil), readSize: Int = 3) throws -> (message: String, read: Int) {
        let url = dir.file("bad-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        let reader = RecordReader(input: try ByteInput(.file(url), readSize: readSize), format: format)
        var read = 0
        do {
            while try reader.next() != nil { read += 1 }
        } catch let error as ImportError {
            #expect(error.code == .invalidJSON || error.code == .rootNotFound)
            return (error.message, read)
        }
        Issue.record("no error for \(text)")
        return ("", read)
    }

    static let arrays = [
        #"[]"#,
        #"  [ {"a": 1} ]  "#,
        "[\n  {\"id\": 1, \"s\": \"a\\\"]}\\\\\", \"n\": -12.5e+3},\n  {\"id\": 2, \"nested\": {\"x\": [1, [2, {\"y\": \"}\"}]]}}\r\n]\n",
        #"[{"u": "東京 \u00e9 😀 \ud83d\ude00"}, {"e": ""}, {"t": true, "f": false, "z": null}]"#,
        #"[1, -0.5, "text", true, null, [], {}, 12345678901234567890123]"#,
        #"[{"s": "a long text with \\ and \" and ] and } inside, then \\\" more text\\"}, "a top-level \"string\" \\", "\\\\"]"#,
    ]

    @Test(arguments: arrays)
    func arraysReadAsTheWholeDocumentParses(_ text: String) throws {
        guard case .array(let expected) = try JSONValue(parsing: text) else { throw ImportError(.invalidJSON, "not an array") }
        for size in Self.readSizes {
            #expect(try records(text, readSize: size) == expected, "read \(size) bytes at a time")
        }
    }

    @Test func anArrayAtAKeyPathAmongOtherMembers() throws {
        let text = #"{"stat": "ok", "photos": {"page": [1, {"x": "]"}], "photo": [{"id": "a"}, {"id": "b"}], "total": {"n": 2}}, "end": [true]}"#
        for size in Self.readSizes {
            #expect(try records(text, format: .json(root: "photos.photo"), readSize: size) == [["id": "a"], ["id": "b"]])
        }
        #expect(try records(#"{"id": "only"}"#, readSize: 2) == [["id": "only"]], "one object is one record")
        #expect(try records(#"{"r": {"id": "x"}}"#, format: .json(root: "r"), readSize: 2) == [["id": "x"]])
    }

    @Test func ndjsonLinesWithBlankLinesAndCRLF() throws {
        let text = "{\"id\": 1}\n\n  {\"id\": 2, \"s\": \"x\\ny\"}\r\n[3]\n   \n\"four\"\n{\"id\": 5}"
        for size in Self.readSizes {
            #expect(try records(text, format: .ndjson, readSize: size) == [["id": 1], ["id": 2, "s": "x\ny"], [3], "four", ["id": 5]])
        }
    }

    @Test func faultsNameTheirLineColumnAndByteAndFollowTheRecordsBeforeThem() throws {
        let trailing = try failure("[{\"id\": 1},\n {\"id\": 2,}]")
        #expect(trailing.message == "invalid JSON at line 2, column 11 (byte 22): trailing comma before '}'")
        #expect(trailing.read == 1)

        let comma = try failure("[{\"id\": 1}\n {\"id\": 2}]")
        #expect(comma.message == "invalid JSON at line 2, column 2 (byte 12): expected ',' or ']' after a record, found '{'")

        let cut = try failure(#"[{"id": 1}, {"id": 2"#)
        #expect(cut.message == "invalid JSON at line 1, column 21 (byte 20): expected ',' or '}' in object, found end of input")
        #expect(cut.read == 1)

        let string = try failure("[{\"id\": \"a\u{01}\"}]")
        #expect(string.message == "invalid JSON at line 1, column 11 (byte 10): unescaped control character in string")

        let after = try failure(#"{"photos": [{"id": 1}]} x"#, format: .json(root: "photos"))
        #expect(after.message == "invalid JSON at line 1, column 25 (byte 24): unexpected 'x' after the end of the JSON value")
        #expect(after.read == 1)

        let line = try failure("{\"id\": 1}\n\n{\"id\": 2}\n{\"id\": 3,\n{\"id\": 4}", format: .ndjson)
        #expect(line.message == "invalid JSON at line 4, column 10 (byte 30): expected a string key, found end of input")
        #expect(line.read == 2)

        let missing = try failure(#"{"photos": {"page": 1}}"#, format: .json(root: "photos.photo"))
        #expect(missing.message == "the input has no key path 'photos.photo': 'photo' is missing; check --root")
        let scalar = try failure(#"{"stat": "ok"}"#, format: .json(root: "stat"))
        #expect(scalar.message == "expected an array of records or one record at 'stat', found string")
        let empty = try failure("  ")
        #expect(empty.message == "invalid JSON at line 1, column 3 (byte 2): unexpected end of input, expected an array of records")
    }

    @Test func aReaderStartedAtAPositionReadsOnFromThere() throws {
        let text = "[{\"id\": 1},\n{\"id\": 2}, {\"id\": 3},\n{\"id\": 4}]"
        let url = dir.file("resume.json")
        try Data(text.utf8).write(to: url)
        let first = RecordReader(input: try ByteInput(.file(url), readSize: 4), format: .json(root: nil))
        #expect(try first.next() == ["id": 1])
        #expect(try first.next() == ["id": 2])
        let position = first.position
        #expect(position.offset == 21)

        let input = try ByteInput(.file(url), readSize: 4)
        try input.skip(to: position.offset)
        let second = RecordReader(input: input, format: .json(root: nil), resume: position)
        var rest: [JSONValue] = []
        while let record = try second.next() { rest.append(record) }
        #expect(rest == [["id": 3], ["id": 4]])
    }

    @Test func theLastRecordsBytesAreDigestedForTheCheckpoint() throws {
        let url = dir.file("digest.json")
        try Data(#"[{"id": 1}, {"id": 22}]"#.utf8).write(to: url)
        let input = try ByteInput(.file(url), readSize: 3)
        let reader = RecordReader(input: input, format: .json(root: nil))
        _ = try reader.next()
        _ = try reader.next()
        #expect(reader.lastRecordOffsets == 12..<22)
        let other = try ByteInput(.file(url))
        try other.ensure(22)
        #expect(reader.lastRecordDigest() == other.digest(12..<22))
        #expect(reader.lastRecordDigest() != other.digest(1..<10))
    }
}
