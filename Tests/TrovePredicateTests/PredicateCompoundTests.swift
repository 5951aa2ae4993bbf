import Foundation
import Testing
import TrovePredicate

/// `ObjectPredicate.and`, `.or` and `.not` (Core Data's NSCompoundPredicate): the same trees as
/// the format strings, and errors that show the text of the part they are in.
@Suite struct PredicateCompoundTests {
    func parsed(_ format: String, _ arguments: any PredicateArgument...) throws -> ObjectPredicate {
        try ObjectPredicate(format: format, arguments: arguments)
    }

    @Test func combinationsAreTheTreesOfTheFormats() throws {
        let a = try parsed("views > %d", 5), b = try parsed("title != nil"), c = try parsed("whoTook.name BEGINSWITH 'A'")
        #expect(ObjectPredicate.and([a, b]) == (try parsed("views > 5 AND title != nil")))
        #expect(ObjectPredicate.or([a, b, c]) == (try parsed("views > 5 OR title != nil OR whoTook.name BEGINSWITH 'A'")))
        #expect(ObjectPredicate.and([.and([a, b]), c]) == (try parsed("views > 5 AND title != nil AND whoTook.name BEGINSWITH 'A'")))
        #expect(ObjectPredicate.or([.and([a, b]), c]) == (try parsed("(views > 5 AND title != nil) OR whoTook.name BEGINSWITH 'A'")))
        #expect(ObjectPredicate.not(.or([a, b])) == (try parsed("NOT (views > 5 OR title != nil)")))
        #expect(ObjectPredicate.and([a]) == a)
        #expect(ObjectPredicate.and([]) == (try parsed("TRUEPREDICATE")))
        #expect(ObjectPredicate.or([]) == (try parsed("FALSEPREDICATE")))
        #expect(ObjectPredicate.and([a, b]).description == "views > 5 AND title != nil")
        #expect(ObjectPredicate.and([a, b]).format == nil)
    }

    @Test func combinationsEvaluateAsTheirParts() throws {
        let library = try PhotoLibrary()
        #expect(try library.ids("Photo", "views > 5") == ["p1", "p2", "p4"])
        let model = try PhotoModel.model(), photo = try PhotoModel.entity("Photo")
        let either = ObjectPredicate.or([try parsed("views > 60"), try parsed("title BEGINSWITH 'M'")])
        let checked = try ObjectPredicate.and([either, .not(try parsed("uniqueId == 'p3'"))]).checked(for: photo, in: model)
        #expect(try library.photos.filter { try checked.evaluate(with: $0) }.map(\.id) == ["p4"])
    }

    @Test func anErrorShowsItsOwnPartsTextAndColumn() throws {
        let model = try PhotoModel.model(), photo = try PhotoModel.entity("Photo")
        let good = try parsed("views > 5 AND title != nil"), misspelt = try parsed("views > 5 AND titel == 'x'")
        let unknown = #expect(throws: ObjectPredicateError.self) { try ObjectPredicate.and([good, misspelt]).checked(for: photo, in: model) }
        #expect(unknown?.code == .unknownKey)
        #expect(unknown?.source == "views > 5 AND titel == 'x'")
        #expect(unknown?.column == 15)
        #expect(unknown?.description.hasSuffix("\n  views > 5 AND titel == 'x'\n                ^") == true)

        let mismatch = try parsed("views == 'many'")
        let typed = #expect(throws: ObjectPredicateError.self) {
            try ObjectPredicate.or([good, .not(mismatch)]).checked(for: photo, in: model)
        }
        #expect(typed?.code == .typeMismatch)
        #expect(typed?.source == "views == 'many'")
        #expect(typed?.column == 7)

        // The first part's own text too, whatever follows it.
        let first = #expect(throws: ObjectPredicateError.self) { try ObjectPredicate.and([misspelt, mismatch]).checked(for: photo, in: model) }
        #expect(first?.source == "views > 5 AND titel == 'x'")
    }
}
