import Foundation
import Testing
@testable import TrovePredicate

/// A format parsed before gives, with other arguments, exactly what parsing it with them gives:
/// the same tree, or the same error.
struct ParsedFormatTests {
    /// Parses without the kept formats.
    func parsed(_ format: String, _ arguments: [any PredicateArgument]) -> Result<ObjectPredicate.Node, ObjectPredicateError> {
        Result { () throws(ObjectPredicateError) in
            do throws(ObjectPredicateError) {
                var parser = try PredicateParser(format: format, arguments: arguments.map(\.predicateArgumentValue))
                return try parser.parse()
            } catch {
                throw error.located(in: format)
            }
        }
    }

    static let formats = [
        "id == %@", "views > %d AND title BEGINSWITH[c] %s", "NOT (views < %ld OR price >= %f)", "price BETWEEN %@",
        "id IN %@ AND %@ == title", "ANY photos.views > %i", "SUBQUERY(photos, $p, $p.views > %d).@count == %d",
        "%K == %@", "views == CAST(%@, \"NSDate\")", "title == $name AND views > %d", "views > %d %d",
    ]

    static let arguments: [PredicateArgumentValue] = [
        "a", 3, Int64(-7), 2.5, Decimal(string: "0.1") ?? 0, true, Date(timeIntervalSinceReferenceDate: 9),
        ["x", "y"], [1, 2], [String?.none, "z"], String?.none, [Int](), "title", "views",
    ].map { (argument: any PredicateArgument) in argument.predicateArgumentValue }

    @Test func aKeptFormatGivesWhatParsingGivesForEveryArgument() throws {
        var random = UInt64(0x2545_F491_4F6C_DD1D)
        func next(_ bound: Int) -> Int {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            return Int(random % UInt64(bound))
        }
        var trees = 0, errors = 0
        for trial in 0..<3000 {
            let format = Self.formats[next(Self.formats.count)]
            // Mostly as many arguments as the format takes, sometimes one fewer or one more.
            let wanted = format.count(where: { $0 == "%" }) + [0, 0, 0, 0, -1, 1][next(6)]
            let arguments: [any PredicateArgument] = (0..<max(0, wanted)).map { _ in Self.arguments[next(Self.arguments.count)] }
            let kept = Result { () throws(ObjectPredicateError) in try ObjectPredicate(format: format, arguments: arguments).root }
            switch (kept, parsed(format, arguments)) {
            case (.success(let a), .success(let b)):
                #expect(a == b, "trial \(trial): \(format) \(arguments)")
                trees += 1
            case (.failure(let a), .failure(let b)):
                #expect("\(a)" == "\(b)", "trial \(trial): \(format) \(arguments)")
                errors += 1
            case (let a, let b):
                Issue.record("trial \(trial): \(format) \(arguments): kept \(a), parsed \(b)")
            }
        }
        #expect(trees > 500 && errors > 500, "both outcomes are exercised (\(trees) trees, \(errors) errors)")
    }

    @Test func aFormatIsParsedOnceAndKeptUnlessItsTreeDependsOnItsArguments() throws {
        let format = "views > %d AND title == %@ AND id != %@"
        let kept = try #require(ParsedFormat.parsed(format))
        #expect(ParsedFormat.parsed(format) === kept, "asked again, the kept parse is returned")
        // A format whose tree depends on its arguments' values is parsed every time.
        #expect(ParsedFormat.parsed("%K == %@") == nil)
        #expect(ParsedFormat.parsed("views > ") == nil, "a syntax error is left to the parser, which says why")
    }

    @Test func aThreadAskingForItsLastFormatAgainTakesNoLock() throws {
        // (A synchronous test stays on one thread.)
        let format = "title == %@ AND views >= %d"
        let kept = try #require(ParsedFormat.parsed(format))
        let before = ParsedFormat.sharedLookupsOnThisThread
        for views in 0..<100 {
            #expect(ParsedFormat.parsed(format) === kept)
            #expect(try ObjectPredicate(format: format, "a", views).root == parsed(format, ["a", views]).get())
        }
        #expect(ParsedFormat.sharedLookupsOnThisThread == before, "the thread's last format is found without the shared cache")
        // Another format in between is looked up in the shared cache, and the first one again after it.
        #expect(ParsedFormat.parsed("views > %d") != nil)
        #expect(ParsedFormat.parsed(format) != nil)
        #expect(ParsedFormat.sharedLookupsOnThisThread == before + 2)
    }
}
