import Foundation
import Testing
import TrovePredicate

/// Parsing: every construct, checked through the canonical description and, where the shape
/// matters, the tree itself.
struct PredicateParserTests {
    @Test(arguments: [
        // comparisons, every spelling
        ("title = 'x'", #"title == "x""#),
        ("title == 'x'", #"title == "x""#),
        ("views != 3", "views != 3"),
        ("views <> 3", "views != 3"),
        ("views < 3", "views < 3"),
        ("views <= 3", "views <= 3"),
        ("views =< 3", "views <= 3"),
        ("views > 3", "views > 3"),
        ("views >= 3", "views >= 3"),
        ("views => 3", "views >= 3"),
        ("3 < views", "3 < views"),
        ("views BETWEEN {1, 10}", "views BETWEEN {1, 10}"),
        ("views in {1,2,3}", "views IN {1, 2, 3}"),
        ("title IN {}", "title IN {}"),
        // string operators and options
        ("title beginswith 'a'", #"title BEGINSWITH "a""#),
        ("title ENDSWITH[c] 'a'", #"title ENDSWITH[c] "a""#),
        ("title contains[d] 'a'", #"title CONTAINS[d] "a""#),
        ("title LIKE[cd] 'a*?'", #"title LIKE[cd] "a*?""#),
        ("title MATCHES[DC] '[a-z]+'", #"title MATCHES[cd] "[a-z]+""#),
        ("title ==[c] 'a'", #"title ==[c] "a""#),
        // literals
        (#"title = "say \"hi\"\n\t\\ \u00e9 \uD83D\uDE00""#, #"title == "say \"hi\"\n\t\\ é 😀""#),
        (#"title = 'it\'s'"#, #"title == "it's""#),
        ("views = -5", "views == -5"),
        ("views = +5", "views == 5"),
        ("price = 0.1", "price == 0.1"),
        ("price = -0.25", "price == -0.25"),
        ("price = 1e3", "price == 1000"),
        ("views = 0x1F", "views == 31"),
        ("views = 0b101", "views == 5"),
        ("views = 0o17", "views == 15"),
        ("views = 99999999999999999999", "views == 99999999999999999999"),
        ("views = -9223372036854775808", "views == -9223372036854775808"),
        ("flag = true", "flag == TRUE"),
        ("flag = YES", "flag == TRUE"),
        ("flag = false", "flag == FALSE"),
        ("flag = no", "flag == FALSE"),
        ("title = nil", "title == nil"),
        ("title = NULL", "title == nil"),
        ("when > CAST(0, \"NSDate\")", "when > CAST(0.0, \"NSDate\")"),
        // logic and precedence
        ("a = 1 AND b = 2 OR c = 3", "a == 1 AND b == 2 OR c == 3"),
        ("a = 1 OR b = 2 AND c = 3", "a == 1 OR b == 2 AND c == 3"),
        ("(a = 1 OR b = 2) AND c = 3", "(a == 1 OR b == 2) AND c == 3"),
        ("NOT a = 1 AND b = 2", "NOT a == 1 AND b == 2"),
        ("NOT (a = 1 AND b = 2)", "NOT (a == 1 AND b == 2)"),
        ("!(a = 1 || b = 2) && c = 3", "NOT (a == 1 OR b == 2) AND c == 3"),
        ("a = 1 and (b = 2 and c = 3)", "a == 1 AND b == 2 AND c == 3"),
        ("not not a = 1", "NOT NOT a == 1"),
        ("TRUEPREDICATE", "TRUEPREDICATE"),
        ("falsepredicate OR truepredicate", "FALSEPREDICATE OR TRUEPREDICATE"),
        // key paths, quantifiers, aggregates, subqueries, variables
        ("whoTook.name = 'Ada'", #"whoTook.name == "Ada""#),
        ("any photos.title contains 'x'", #"ANY photos.title CONTAINS "x""#),
        ("SOME photos.views > 1", "ANY photos.views > 1"),
        ("ALL photos.views > 1", "ALL photos.views > 1"),
        ("NONE photos.views > 1", "NONE photos.views > 1"),
        ("photos.@count > 2", "photos.@count > 2"),
        ("photos.@COUNT > 2", "photos.@count > 2"),
        ("photos.@avg.views > 10", "photos.@avg.views > 10"),
        ("photos.@sum.views >= 10", "photos.@sum.views >= 10"),
        ("whoTook.photos.@max.views < 10", "whoTook.photos.@max.views < 10"),
        ("SUBQUERY(photos, $p, $p.views > 10).@count > 0", "SUBQUERY(photos, $p, $p.views > 10).@count > 0"),
        ("subquery(photos, $p, $p.views > 10 AND name = 'x').@avg.views > 0",
         #"SUBQUERY(photos, $p, $p.views > 10 AND name == "x").@avg.views > 0"#),
        ("title = $TITLE", "title == $TITLE"),
        ("views IN $LIST", "views IN $LIST"),
        ("#size = 3 AND #first.#last = 'x'", "#size == 3 AND #first.#last == \"x\""),
        ("ÉtéTitre = 'x'", #"ÉtéTitre == "x""#),
    ])
    func canonicalDescription(format: String, expected: String) throws {
        let predicate = try ObjectPredicate(format: format)
        #expect(predicate.description == expected)
        // The description parses back to the same tree.
        #expect(try ObjectPredicate(format: predicate.description) == predicate)
    }

    @Test func precedenceShapesTheTree() throws {
        let predicate = try ObjectPredicate(format: "NOT a = 1 AND b = 2 OR c = 3")
        guard case .or(let parts) = predicate.root, parts.count == 2,
              case .and(let conjuncts) = parts[0], conjuncts.count == 2,
              case .not(.comparison) = conjuncts[0] else {
            Issue.record("unexpected tree \(predicate.root)")
            return
        }
    }

    @Test func comparisonTree() throws {
        let predicate = try ObjectPredicate(format: "ANY photos.title CONTAINS[cd] %@", "sun")
        let expected = ObjectPredicate.Comparison(
            .keyPath(.init(["photos", "title"])), .contains, .value("sun"),
            modifier: .any, options: [.caseInsensitive, .diacriticInsensitive])
        #expect(predicate.root == .comparison(expected))
    }

    @Test func aggregateAndSubqueryTrees() throws {
        let average = try ObjectPredicate(format: "photos.@avg.views > 10")
        #expect(average.root == .comparison(.init(
            .aggregate(.avg, of: .keyPath(.init(["photos"])), key: ["views"]), .greater, .value(10))))
        let subquery = try ObjectPredicate(format: "SUBQUERY(photos, $p, $p.views > 10).@count > 0")
        let inner = ObjectPredicate.Node.comparison(.init(.keyPath(.init(["views"], variable: "p")), .greater, .value(10)))
        #expect(subquery.root == .comparison(.init(
            .aggregate(.count, of: .subquery(collection: .init(["photos"]), variable: "p", predicate: inner), key: []),
            .greater, .value(0))))
    }

    @Test func decimalsStayExact() throws {
        let predicate = try ObjectPredicate(format: "price = 0.1")
        #expect(predicate.root == .comparison(.init(.keyPath(.init(["price"])), .equal,
                                                    .value(.decimal(Decimal(string: "0.1")!)))))
    }

    // MARK: Arguments

    @Test func formatArguments() throws {
        let date = Date(timeIntervalSinceReferenceDate: 12345.5)
        let id = UUID()
        let predicate = try ObjectPredicate(
            format: "a = %@ AND b = %d AND c = %ld AND d = %f AND e = %s AND %K = %i AND g > %@ AND h = %@ AND i IN %@ AND j = %@",
            "x", 3, Int64(4), 2.5, "y", "whoTook.name", 7, date, id, ["p", "q"], Optional<String>.none)
        #expect(predicate.description == """
            a == "x" AND b == 3 AND c == 4 AND d == 2.5 AND e == "y" AND whoTook.name == 7 \
            AND g > CAST(12345.5, "NSDate") AND h == "\(id.uuidString)" AND i IN {"p", "q"} AND j == nil
            """)
    }

    @Test func keyPathArgumentMayBeAReservedWordOrAnAggregate() throws {
        #expect(try ObjectPredicate(format: "%K = 1", "first").description == "#first == 1")
        #expect(try ObjectPredicate(format: "%K > 2", "photos.@count").description == "photos.@count > 2")
        #expect(try ObjectPredicate(format: "whoTook.%K = 'x'", "name").description == #"whoTook.name == "x""#)
    }

    @Test func hostileStringArgumentsStayValues() throws {
        for hostile in ["'; DROP TABLE Photo; --", "%@", "%K", "\"", "\\", "\u{0}", "a_b%c", "👩‍👩‍👧", String(repeating: "x'\"", count: 4000)] {
            let predicate = try ObjectPredicate(format: "title = %@", hostile)
            #expect(predicate.root == .comparison(.init(.keyPath(.init(["title"])), .equal, .value(.string(hostile)))))
            #expect(try ObjectPredicate(format: predicate.description) == predicate)
        }
    }

    @Test func substitutingVariables() throws {
        let template = try ObjectPredicate(format: "title = $TITLE AND views IN $VIEWS AND SUBQUERY(photos, $p, $p.views > $MIN).@count > 0")
        #expect(template.variableNames == ["TITLE", "VIEWS", "MIN"])
        let bound = template.substituting(["TITLE": "Sun", "VIEWS": [1, 2], "MIN": 5, "UNUSED": true])
        #expect(bound.variableNames.isEmpty)
        #expect(bound.description == #"title == "Sun" AND views IN {1, 2} AND SUBQUERY(photos, $p, $p.views > 5).@count > 0"#)
    }
}
