import Foundation
import Testing
import TroveImport
import TroveModel
import TrovePredicate

/// Replays the committed corpus of each libFuzzer target (`Fuzz/Corpus/TARGET/`, Fuzz/README.md)
/// through the same entry the fuzzer runs: every input keeps its properties, and each corpus
/// holds inputs of both outcomes, so the replay exercises the accepting and the refusing paths.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    static let targets: [(name: String, entry: @Sendable (Data) -> FuzzOutcome)] = [
        ("JSONParser", FuzzEntries.jsonParser),
        ("RecordScanner", FuzzEntries.recordScanner),
        ("PredicateParser", FuzzEntries.predicateParser),
        ("ModelFile", FuzzEntries.modelFile),
    ]

    @Test(arguments: targets.map(\.name))
    func corpusKeepsEveryProperty(target: String) throws {
        let entry = try #require(Self.targets.first { $0.name == target }?.entry)
        let folder = Self.corpus.appendingPathComponent(target)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files.count >= 10, "the corpus of \(target) has \(files.count) inputs")
        var outcomes: [String: Int] = [:]
        for file in files {
            let outcome = entry(try Data(contentsOf: folder.appendingPathComponent(file)))
            if case .broken(let reason) = outcome {
                Issue.record("\(target)/\(file): \(reason)")
            }
            outcomes["\(outcome)", default: 0] += 1
        }
        #expect(outcomes["accepted", default: 0] > 0, "no input of \(target) is accepted: \(outcomes)")
        #expect(outcomes["rejected", default: 0] > 0, "no input of \(target) is refused: \(outcomes)")
    }

    /// Known inputs get the outcome they must: valid text accepted, invalid text refused (an
    /// empty model file, a truncated array, a predicate without its operand), none broken.
    @Test func knownInputsGetTheirOutcomes() {
        #expect(FuzzEntries.recordScanner(Data("[1, 2]".utf8)) == .accepted)
        #expect(FuzzEntries.recordScanner(Data("[1, 2".utf8)) == .rejected)
        #expect(FuzzEntries.modelFile(Data()) == .rejected)
        #expect(FuzzEntries.predicateParser(Data("views >".utf8)) == .rejected)
        #expect(FuzzEntries.jsonParser(Data("[1e400, \"\\u00e9\"]".utf8)) == .accepted)
    }
}
