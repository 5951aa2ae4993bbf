import Foundation
import Testing
import Trove
import TroveTesting

/// JSONTestSuite's parsing cases (`Resources/JSONTestSuite/test_parsing`): `y_` cases must
/// parse, `n_` cases must fail with a clear error, `i_` cases may do either; none may crash.
/// Each case runs through the JSON parser, and through the importer both as the whole input
/// (from memory and streamed from a file) and as the value of a one-record payload; an input
/// the parser refuses must import nothing.
@Suite struct JSONTestSuiteTests {
    /// One parsing case: its file name and bytes.
    struct Case: Sendable {
        let name: String
        let bytes: Data
        var expectation: Character { name.first ?? "?" }
    }

    static let cases: [Case] = {
        guard let folder = Bundle.module.url(forResource: "JSONTestSuite", withExtension: nil)?.appendingPathComponent("test_parsing"),
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return names.filter { $0.hasSuffix(".json") }.sorted().compactMap { name in
            (try? Data(contentsOf: folder.appendingPathComponent(name))).map { Case(name: name, bytes: $0) }
        }
    }()

    let dir: TemporaryDirectory

    init() throws {
        dir = try TemporaryDirectory()
    }

    /// A store whose entity takes any record: no unique key, every value into a `json` attribute.
    func container(_ name: String) throws -> Container {
        let model = try Model {
            Entity("Thing") {
                Attribute("id", .string)
                Attribute("value", .json)
            }
        }
        return try Container(store: SQLiteStore(url: dir.file(name), model: model))
    }

    @Test func theSuiteIsThereWhole() {
        #expect(Self.cases.count == 318)
        #expect(Self.cases.filter { $0.expectation == "y" }.count == 95)
        #expect(Self.cases.filter { $0.expectation == "n" }.count == 188)
        #expect(Self.cases.filter { $0.expectation == "i" }.count == 35)
    }

    @Test func theParserAcceptsYRejectsNAndNeverCrashes() throws {
        for test in Self.cases {
            let parsed = Result { () throws(JSONParseError) in try JSONValue(parsing: test.bytes) }
            let checked = Result { () throws(JSONParseError) in try JSONValue.validate(test.bytes) }
            switch (test.expectation, parsed) {
            case ("y", .failure(let error)): Issue.record("\(test.name) must parse: \(error)")
            case ("n", .success(let value)): Issue.record("\(test.name) must fail, parsed as \(value.serialized())")
            case (_, .failure(let error)):
                #expect(!error.reason.isEmpty && error.offset <= test.bytes.count && error.line >= 1 && error.column >= 1, "\(test.name)")
            default: break
            }
            #expect((try? parsed.get()) != nil ? (try? checked.get()) != nil : (try? checked.get()) == nil,
                    "\(test.name): checking and parsing agree")
            if case .success(let value) = parsed {
                #expect(try JSONValue(parsing: value.serialized()) == value, "\(test.name): the value reads back from its text")
            }
        }
    }

    /// Whether the parser takes `bytes`.
    static func parses(_ bytes: Data) -> Bool {
        (try? JSONValue(parsing: bytes)) != nil
    }

    @Test func theImporterTakesWhatTheParserTakesAsWholeInputs() throws {
        let container = try container("whole.trove")
        let input = dir.file("case.json")
        for test in Self.cases {
            try test.bytes.write(to: input)
            let before = try container.newBackgroundContext().fetchCount("Thing")
            for streamed in [false, true] {
                let importer = Importer(context: container.newBackgroundContext())
                let outcome = Result {
                    try streamed ? importer.importStream(.file(input), into: "Thing", resume: .restart)
                        : importer.importJSON(test.bytes, into: "Thing")
                }
                let how = streamed ? "streamed" : "in memory"
                if Self.parses(test.bytes) {
                    if case .failure(let error as ImportError) = outcome, error.code == .invalidJSON {
                        Issue.record("\(test.name) (\(how)) parses, but the importer says it is invalid: \(error)")
                    }
                } else {
                    guard case .failure(let error) = outcome else {
                        Issue.record("\(test.name) (\(how)) does not parse, but the importer took it")
                        continue
                    }
                    let code = (error as? ImportError)?.code
                    let imported = try container.newBackgroundContext().fetchCount("Thing") - before
                    if streamed {
                        // A stream is not checked whole first: the records before the fault land
                        // (and are in the error's report); a value that is no array or object
                        // where the records should be says so.
                        let first = test.bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
                        let startsAValue = first.map { Array(#""-0123456789tfn"#.utf8).contains($0) } ?? false
                        #expect(code == .invalidJSON && "\(error)".contains("invalid JSON at line")
                                || startsAValue && code == .rootNotFound && "\(error)".contains("expected an array of records or one record"),
                                "\(test.name) (\(how)): \(error)")
                        #expect(imported == (error as? ImportError)?.report?.entities["Thing"]?.inserted ?? 0,
                                "\(test.name) (\(how)): only the records its report counts landed")
                    } else {
                        #expect(code == .invalidJSON && "\(error)".contains("invalid JSON at line"), "\(test.name) (\(how)): \(error)")
                        #expect(imported == 0, "\(test.name) (\(how)) imported nothing")
                    }
                }
            }
        }
    }

    @Test func eachCaseAsARecordsValueImportsWhatTheParserReads() throws {
        let container = try container("records.trove")
        for test in Self.cases {
            // The case as the value of one record, in a payload of one record.
            let payload = Data(#"[{"id": "\#(test.name)", "value": "#.utf8) + test.bytes + Data("}]".utf8)
            let importer = Importer(context: container.newBackgroundContext())
            let outcome = Result { try importer.importJSON(payload, into: "Thing") }
            let stored = try container.newBackgroundContext().fetchFirst("Thing", whereKey: "id", equals: test.name)
            switch (Self.parses(payload), outcome) {
            case (true, .success(let report)):
                #expect(report.entities["Thing"]?.inserted == 1 && report.rejected.isEmpty, "\(test.name)")
                let value = try #require(try? JSONValue(parsing: test.bytes), "\(test.name) parses alone too")
                #expect(try stored?.value(forKey: "value") == (value == .null ? .null : .json(value)),
                        "\(test.name): the stored value is the parsed one")
            case (true, .failure(let error)):
                Issue.record("\(test.name) parses as a record's value, but the importer failed: \(error)")
            case (false, .success):
                Issue.record("\(test.name) does not parse as a record's value, but the importer took it")
            case (false, .failure(let error)):
                #expect(test.expectation != "y", "\(test.name) must parse as a value too")
                #expect((error as? ImportError)?.code == .invalidJSON, "\(test.name): \(error)")
                #expect(stored == nil, "\(test.name) imported nothing")
            }
        }
    }
}
