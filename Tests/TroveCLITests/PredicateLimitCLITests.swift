import Foundation
import Testing
import Trove
import TroveTesting

/// Predicates that cannot be answered, or are too large to run: exit 2 with the reason, and
/// the store as it was.
@Suite struct PredicateLimitCLITests {
    let fixture: QueryFixture
    static let hostilePattern = "((a+)+c)|a*!"

    /// The fixture with a fourth photo whose title makes the pattern backtrack exponentially.
    init() throws {
        fixture = try QueryFixture()
        let context = try Container(model: QueryFixture.model(), url: URL(fileURLWithPath: fixture.storePath)).newBackgroundContext()
        let photo = try context.insert("Photo")
        try photo.setValue("p4", forKey: "id")
        try photo.setValue(String(repeating: "a", count: 30) + "!", forKey: "title")
        try context.save()
    }

    @Test func aMatchTheRegexEngineGivesUpOnFailsInsteadOfCountingAsNo() throws {
        let count = try fixture.run("count", "Photo", "--where", "title MATCHES %@", "--arg", Self.hostilePattern)
        #expect(count.status == 2)
        #expect(count.stdout.isEmpty, "count must not say 0")
        #expect(count.stderr.hasPrefix(
            "trove: predicate evaluation failed: the regular expression \"((a+)+c)|a*!\" gave up after 5000000 steps on a value of 31 UTF-16 units"))
        #expect(count.stderr.contains("simplify the pattern"))

        let query = try fixture.run("query", "Photo", "--where", "title MATCHES[c] %@", "--arg", Self.hostilePattern)
        #expect(query.status == 2)

        let delete = try fixture.run("delete", "Photo", "--where", "NOT (title MATCHES %@)", "--arg", Self.hostilePattern)
        #expect(delete.status == 2)
        #expect(delete.stderr.contains("gave up"))
        #expect(try fixture.run("count", "Photo").stdout == "4\n", "nothing was deleted")
    }

    @Test func aPredicateOfAThousandTermsIsRefusedWithTheLimit() throws {
        let terms = (0..<1_000).map { "views = \($0)" }.joined(separator: " OR ")
        let result = try fixture.run("count", "Photo", "--where", terms)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("trove: --where: invalid predicate: the predicate has more than 500 comparisons"))
        #expect(!result.stderr.contains("Expression tree is too large"))
        let atTheLimit = (0..<500).map { "views = \($0)" }.joined(separator: " OR ")
        #expect(try fixture.run("count", "Photo", "--where", atTheLimit).stdout == "3\n")

        let deep = String(repeating: "NOT (", count: 25) + "views = 5" + String(repeating: ")", count: 25)
        let nested = try fixture.run("delete", "Photo", "--where", deep)
        #expect(nested.status == 2)
        #expect(nested.stderr.contains("the predicate nests deeper than 24 levels"))
        #expect(try fixture.run("count", "Photo").stdout == "4\n")
    }

    @Test func fiveThousandSortKeysAreRefusedWithTheLimit() throws {
        let result = try fixture.run("query", "Photo", "--sort", Array(repeating: "-views", count: 5_000).joined(separator: ","))
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "trove: --sort: the sort list has 5000 keys, more than the 32 allowed; sort by fewer keys\n")
        let atTheLimit = try fixture.run("query", "Photo", "--fields", "id", "--format", "csv",
                                         "--sort", Array(repeating: "title:ci,-views", count: 16).joined(separator: ","))
        #expect(atTheLimit.stdout == "id\r\np4\r\np2\r\np3\r\np1\r\n")
    }
}
