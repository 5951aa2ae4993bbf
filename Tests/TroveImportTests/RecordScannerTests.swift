import Foundation
import Testing
@testable import TroveImport
import TroveModel

/// The scanner, which reads records straight from their bytes, against the parser, which reads
/// them parsed whole: the same node (values, key, links, unknown keys, coercions), the same
/// rejection, the same JSON error, for every record below.
@Suite struct RecordScannerTests {
    static let model: Model = {
        do {
            return try Model(keyStyle: .snakeCase) {
                Entity("Owner", uniqueBy: [["id"]]) {
                    Attribute("id", .string, optional: false)
                    Attribute("name", .string)
                    Relationship("photos", to: "Photo", toMany: true, inverse: "owner")
                }
                Entity("Photo", uniqueBy: [["id"]]) {
                    Attribute("id", .integer64, optional: false)
                    Attribute("title", .string)
                    Attribute("uploadDate", .date)
                    Attribute("views", .integer64, default: 0)
                    Attribute("isPublic", .boolean)
                    Attribute("caption", .string, remoteKey: ["caption", "title"])
                    Relationship("owner", to: "Owner", inverse: "photos")
                }
            }
        } catch {
            preconditionFailure("the test model is invalid: \(error)")
        }
    }()

    static let records = [
        #"{"id": 1, "title": "a", "views": "42", "upload_date": "2020-01-02T03:04:05Z", "is_public": "yes"}"#,
        #"{"id": "2", "uploadDate": 1600000000, "upload_date": "2021-01-01T00:00:00Z"}"#,  // the snake-case key wins
        #"{"upload_date": "2021-01-01T00:00:00Z", "id": 3, "uploadDate": 1600000000}"#,   // in either order
        #"{"id": 4, "title": "first", "title": "second"}"#,                                  // a repeated key: the last value
        #"{"id": 5, "caption": "c", "title": "t"}"#,                                         // title feeds two attributes
        #"{"id": 6, "ti\u0074le": "escaped key", "unknown": {"deep": [1, {"x": null}]}, "other": 1}"#,
        #"{"id": 7, "owner": {"id": "o1", "name": "Ann", "extra": true}}"#,
        #"{"id": 8, "owner": "o1"}"#,
        #"{"id": 9, "owner": null, "title": null, "views": null}"#,
        #"{"id": 10, "views": "3.7"}"#,                                                      // rejected: not an integer
        #"{"title": "no key"}"#,                                                             // rejected: no unique key
        #"{"id": null}"#,                                                                    // rejected: required
        #"{"id": 11, "owner": [1]}"#,                                                        // rejected: an array for a to-one
        #"{"id": 12, "owner": {"name": "no id"}}"#,                                          // rejected: nested without its key
        #"{}"#,
        #"[1, 2]"#,                                                                          // rejected: not an object
        #""just a string""#,
        #"{"id": 13, "\u00e9t\u00e9": 1, "été": 2, "views": 1e3}"#,
        // Nested objects, which the scanner reads straight from their bytes too.
        #"{"id": 14, "owner": {"id": 7, "name": 5, "name": "last", "x": 1}}"#,          // coerced, repeated, unknown
        #"{"id": 15, "owner": {"id": "o3", "name": ["x"]}}"#,                           // rejected at owner.name
        #"{"views": "bad", "owner": {"name": "no id"}, "id": 16}"#,                     // the record's own fault first
        #"{"id": 17, "owner": {"id": "o4"}, "owner": {"id": "o5"}}"#,                   // the last object wins
        #"{"id": 18, "owner": {}}"#,                                                    // rejected: no key
        #"{"id": 19, "owner": {"id": "o6", "photos": [{"id": 20, "owner": {"id": "o7"}}, 21]}}"#,
        #"{"id": 22, "owner": {"id": "o8", "photos": [{"views": "x"}]}}"#,              // rejected two levels down
    ]

    static let invalid = [
        #"{"id": 1,}"#, #"{"id" 1}"#, #"{"id": 1 "title": "x"}"#, #"{"id": [1,]}"#, #"{"id": "\x"}"#,
        #"{"id": 1, "unknown": {"a": tru}}"#, #"{"id": 1, "owner": {"id": "o1",}}"#, #"{"id": 1, "owner": {"id" "o1"}}"#, #"{"id": 01}"#, #"{"id": 1} x"#, #"{"ti"#, "{\"id\": \"a\u{01}\"}",
    ]

    func mappings() -> ImportParser {
        let cache = MappingCache(model: Self.model, transformers: .standard)
        return ImportParser(hooks: ImportHooks()) { try cache.mapping(for: $0) }
    }

    /// What a read record comes to, to compare.
    func summary(_ record: ReadRecord) -> String {
        switch record.outcome {
        case .success(let node?): return describe(node)
        case .success(nil): return "skipped"
        case .failure(let rejection as Rejection):
            return "rejected at \(rejection.path): \(rejection.reason) [\(rejection.excerpt)] in \((try? record.source.value)?.serialized() ?? "(unreadable)")"
        case .failure(let error): return "failed: \(error)"
        }
    }

    func describe(_ node: ImportNode) -> String {
        let links = node.toOne.map { index, target -> String in
            switch target {
            case .node(let nested)?: "\(index)=(\(describe(nested)))"
            case .reference(let key, _)?: "\(index)=ref \(key.values)"
            case nil: "\(index)=nil"
            }
        }
        return "\(node.mapping.entity.name)@\(node.path) values \(node.values.map { "\($0.index)=\($0.value)" }) key \(node.key?.values ?? []) "
            + "links \(links) unknown \(node.unknownKeys.sorted()) coercions \(node.coercions.map(\.rawValue).sorted()) record \((try? node.record)?.serialized() ?? "(unreadable)")"
    }

    @Test(arguments: records)
    func readsAsTheParserDoes(_ text: String) throws {
        let photo = try #require(Self.model.entity(named: "Photo"))
        let parser = mappings()
        let scanner = RecordScanner(parser: parser, entity: photo)
        let bytes = Array(text.utf8)
        let scanned = try bytes.withUnsafeBufferPointer { try scanner.read($0) }
        let parsed = ReadRecord(try JSONValue(parsing: text), as: photo, parser: parser)
        #expect(summary(scanned) == summary(parsed))
        // A second read goes through the key table as the first record left it.
        let again = try bytes.withUnsafeBufferPointer { try scanner.read($0) }
        #expect(summary(again) == summary(parsed))
    }

    @Test(arguments: invalid)
    func failsAsTheParserDoes(_ text: String) throws {
        let photo = try #require(Self.model.entity(named: "Photo"))
        let scanner = RecordScanner(parser: mappings(), entity: photo)
        let scanned = Array(text.utf8).withUnsafeBufferPointer { bytes in
            Result { () throws(JSONParseError) in try scanner.read(bytes) }
        }
        guard case .failure(let scannerError) = scanned else {
            Issue.record("the scanner accepted \(text)")
            return
        }
        #expect(throws: scannerError) { try JSONValue(parsing: text) }
    }

    @Test func unknownKeysPastTheKeyTablesRoomAreStillCountedOnce() throws {
        let photo = try #require(Self.model.entity(named: "Photo"))
        let scanner = RecordScanner(parser: mappings(), entity: photo)
        let keys = (0..<500).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        let text = "{\"id\": 1, \(keys)}"
        let record = try Array(text.utf8).withUnsafeBufferPointer { try scanner.read($0) }
        let node = try #require(try record.outcome.get())
        #expect(node.unknownKeys.count == 500)
        #expect(Set(node.unknownKeys).count == 500)
    }
}
