import Foundation
import Testing
import TrovePredicate

/// `[c]`/`[cd]` comparisons and `:ci`/`:localized` sorts on non-ASCII text cost work in
/// proportion to the text's length (they once took quadratic time: 300,000 characters, 10 s).
/// The work is counted (`PredicateText.WorkCounter`), never timed: for 8 times the text, 8 times
/// the work. The store's SQL functions run the same code: `SQLFoldingGrowthTests`.
@Suite struct FoldingGrowthTests {
    /// Text of about `length` characters, mostly not ASCII (precomposed and decomposed letters,
    /// `ß`, Greek, Cyrillic), with no `z`.
    static func text(_ length: Int) -> String {
        let unit = "Ünïcödé Straße e\u{301}\u{308} ΟΔΟΣ Ёлка "
        return String(repeating: unit, count: max(length / unit.count, 1))
    }

    /// A letter followed by `length` combining marks whose classes alternate, so that
    /// normalization must reorder them all: a run the normalizer sorts in quadratic time.
    static func markRun(_ length: Int) -> String {
        "e" + String(repeating: "\u{301}\u{316}", count: length / 2)
    }

    /// The work `body` counts.
    static func work(_ body: () throws -> Void) rethrows -> PredicateText.WorkCounter {
        let counter = PredicateText.WorkCounter()
        try PredicateText.$work.withValue(counter) { try body() }
        return counter
    }

    /// The argument a comparison is made with: the text itself, its first half, or a short one.
    enum Operand: Sendable {
        case upperCased, lowerCased, upperCasedFirstHalf
        case fixed(String)

        func string(_ length: Int) -> String {
            switch self {
            case .upperCased: FoldingGrowthTests.text(length).uppercased()
            case .lowerCased: FoldingGrowthTests.text(length).lowercased()
            case .upperCasedFirstHalf: String(FoldingGrowthTests.text(length).prefix(length / 2)).uppercased()
            case .fixed(let text): text
            }
        }
    }

    /// The comparisons measured, with operands that make them read the whole text.
    static let comparisons: [(String, Operand)] = [
        ("name ==[c] %@", .upperCased),
        ("name ==[cd] %@", .lowerCased),
        ("name CONTAINS[c] %@", .fixed("ZZZ")),
        ("name CONTAINS[cd] %@", .fixed("ÉLKAZ")),
        ("name BEGINSWITH[c] %@", .upperCasedFirstHalf),
        ("name ENDSWITH[cd] %@", .fixed("ЕЛКАZ")),
        ("name LIKE[c] %@", .fixed("*STRASSE*Z")),
        ("name LIKE[cd] %@", .fixed("ü*ÉLKA ?")),
    ]

    /// `format` evaluated on a Photographer whose name is `text(length)`.
    func evaluationWork(_ format: String, _ operand: Operand, length: Int) throws -> Int {
        let entity = try PhotoModel.entity("Photographer")
        let subject = TestObject(entity, ["id": "p", "name": .string(Self.text(length))])
        let checked = try ObjectPredicate(format: format, arguments: [operand.string(length)]).checked(for: entity, in: try PhotoModel.model())
        return try Self.work { _ = try checked.evaluate(with: subject) }.count
    }

    @Test(arguments: comparisons)
    func comparisonWorkGrowsLinearly(format: String, operand: Operand) throws {
        let small = try evaluationWork(format, operand, length: 4_000)
        let large = try evaluationWork(format, operand, length: 32_000)
        let ratio = Double(large) / Double(small)
        #expect((7.5...8.5).contains(ratio), "\(format): work \(small) → \(large) for 8× the text (×\(ratio))")
    }

    @Test(arguments: ["name:ci", "-name:ci", "name:localized"])
    func sortWorkGrowsLinearly(key: String) throws {
        let entity = try PhotoModel.entity("Photographer")
        let sortKeys = try SortKey.parse(key).map { try $0.checked(for: entity, in: try PhotoModel.model()) }
        func work(_ length: Int) -> Int {
            let a = TestObject(entity, ["id": "a", "name": .string(Self.text(length))])
            let b = TestObject(entity, ["id": "b", "name": .string(Self.text(length).uppercased())])
            return Self.work { _ = sortKeys.compare(a, b) }.count
        }
        let ratio = Double(work(32_000)) / Double(work(4_000))
        #expect((7.5...8.5).contains(ratio), "\(key): ×\(ratio) work for 8× the text")
    }

    /// A long run of combining marks is handed to the normalizer at most
    /// `PredicateText.markRunLimit` marks at a time (its own sort of a run is quadratic).
    @Test(arguments: [StringOptions.caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]])
    func aLongRunOfCombiningMarksCostsLinearWork(options: StringOptions) {
        let small = Self.work { _ = PredicateText.fold(Self.markRun(4_000), options: options) }
        let large = Self.work { _ = PredicateText.fold(Self.markRun(32_000), options: options) }
        #expect(large.longestMarkRun <= PredicateText.markRunLimit, "runs the normalizer sorts stay short")
        let ratio = Double(large.count) / Double(small.count)
        #expect((7.5...8.5).contains(ratio), "×\(ratio) work for 8× the marks")
    }

    @Test func markRunsAreFoldedInCanonicalOrderUpToTheLimit() {
        // Marks of two classes, in an order canonical ordering changes: 220 (below) sorts before 230 (above).
        let short = "e" + String(repeating: "\u{301}\u{316}", count: 15)   // 30 marks: one run, sorted
        let sorted = "e" + String(repeating: "\u{316}", count: 15) + String(repeating: "\u{301}", count: 15)
        #expect(PredicateText.compare(short, sorted, options: .caseInsensitive) == .orderedSame)
        // Past the limit, each 30 marks are sorted among themselves: the text still equals itself
        // and its case variants, and a letter's marks are all still there.
        let long = "E" + String(repeating: "\u{301}\u{316}", count: 40)
        #expect(PredicateText.compare(long, "e" + String(repeating: "\u{301}\u{316}", count: 40), options: .caseInsensitive) == .orderedSame)
        let folded = PredicateText.fold(long, options: .caseInsensitive)
        #expect(folded.unicodeScalars.filter { $0 == "\u{301}" || $0 == "é" }.count == 40, "one acute composed with the e")
        #expect(folded.unicodeScalars.filter { $0 == "\u{316}" }.count == 40)
        #expect(PredicateText.fold(long, options: .diacriticInsensitive) == "E", "[d] removes the marks and the joiners between them")
    }
}
