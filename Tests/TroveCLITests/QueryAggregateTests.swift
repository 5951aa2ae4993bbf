import Foundation
import Testing
import Trove
import TroveTesting

/// `trove query … --group-by … --fields 'K,count(),sum(V) as name' --having P`: a row per group.
@Suite struct QueryAggregateTests {
    let fixture: QueryFixture

    init() throws {
        fixture = try QueryFixture()
    }

    @Test func groupsPrintTheirKeysAndAggregatesExactly() throws {
        let result = try fixture.run("query", "Photo", "--group-by", "whoTook.name",
                                     "--fields", "whoTook.name,count() as photos,sum(views),sum(price),max(taken)", "--format", "json")
        #expect(result.status == 0, "\(result.stderr)")
        // p2 has no photographer and p3's has no name: one group, nil, first (keys ascending).
        // The sums are exact: 2^53 + 1 as an integer, the decimal to its last digit.
        #expect(result.stdout == """
            [
              {"whoTook.name":null,"photos":2,"sum(views)":47,"sum(price)":0.1,"max(taken)":"2020-02-29T12:00:00.250Z"},
              {"whoTook.name":"Ann Ödegaard","photos":1,"sum(views)":9007199254740993,"sum(price)":12345678901234567890.05,"max(taken)":"2011-07-23T22:30:40.000Z"}
            ]

            """)
    }

    @Test func havingSortLimitAndATableForPeople() throws {
        let result = try fixture.run("query", "Photo", "--where", "views < %@", "--arg", "100", "--group-by", "whoTook.id",
                                     "--fields", "whoTook.id,count() as n,min(title)", "--having", "n >= 1", "--sort", "-n,whoTook.id", "--limit", "5")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            whoTook.id  n  min(title)
            ----------  -  ------------
                        1  Café ☕ 東京
            bob         1  Mountain

            """, "\(result.stdout)")
        let filtered = try fixture.run("query", "Photo", "--group-by", "isPublic", "--having", "isPublic == true", "--format", "csv")
        #expect(filtered.stdout == "isPublic,count()\r\ntrue,1\r\n", "\(filtered.stdout)")
    }

    @Test func aggregatesWithoutGroupKeysGiveOneRow() throws {
        let result = try fixture.run("query", "Photo", "--fields", "count(),avg(views),min(price)", "--where", "views < 100", "--format", "ndjson")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "{\"count()\":2,\"avg(views)\":23.5,\"min(price)\":0.1}\n")
    }

    @Test(arguments: [
        (["--group-by", "whoTook.name", "--fields", "title"], "'title' is not grouped"),
        (["--fields", "total(views)"], "'total' in 'total(views)' is not an aggregate"),
        (["--fields", "count(views)"], "count() counts objects"),
        (["--fields", "sum()"], "sum() needs a key path"),
        (["--fields", "title as t"], "only aggregates take a name"),
        (["--having", "views > 1"], "--having filters groups"),
        (["--group-by", "tags.name"], "to-many"),
        (["--fields", "sum(title)"], "sum needs a number"),
        (["--group-by", "whoTook.name", "--sort", "views"], "sort by a group key or an aggregate"),
    ]) func mistakesAreUsageErrors(_ test: ([String], String)) throws {
        let result = try CLIRunner.run(["query", fixture.storePath, "Photo"] + test.0)
        #expect(result.status != 0 && result.stdout.isEmpty)
        #expect(result.stderr.contains(test.1), "\(result.stderr)")
    }
}
