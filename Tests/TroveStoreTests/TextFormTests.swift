import Foundation
import Testing
import TroveModel
import TrovePredicate
import TroveStore
import TroveTesting

/// The text forms a PostgreSQL store keeps are PredicateText's folds and sort key, however
/// `TextForm.values(of:)` shares the work between them; `nil` where a form equals the value.
@Suite struct TextFormTests {
    @Test func theFormsAreTheFoldsAndTheSortKey() {
        let pieces = ["a", "B", "é", "e\u{301}", "ß", "SS", "İ", "ı", "Σ", "ς", "0", "12", "007", " ", "😀", "K", "Å", "x"]
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
            let expected = [
                PredicateText.fold(text, options: .caseInsensitive),
                PredicateText.fold(text, options: .diacriticInsensitive),
                PredicateText.fold(text, options: [.caseInsensitive, .diacriticInsensitive]),
                PredicateText.localizedStandardSortKey(text),
            ].map { $0.utf8.elementsEqual(text.utf8) ? AttributeValue.null : .string($0) }
            #expect(TextForm.values(of: .string(text)) == expected, "\(Array(text.unicodeScalars))")
        }
        #expect(TextForm.values(of: .null) == [.null, .null, .null, .null])
    }
}
