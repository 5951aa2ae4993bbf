import Foundation
import Testing
import TrovePredicate

/// Checking against the model: key paths, types, variables, and messages a person can act on.
struct PredicateCheckingTests {
    @Test func unknownKeySuggestsTheClosest() throws {
        let error = try #require(checkError("titel = 'x'"))
        #expect(error.code == .unknownKey)
        #expect(error.suggestions == ["title"])
        #expect(error.column == 1)
        #expect(error.description == """
            invalid predicate at column 1: Photo has no key 'titel'; did you mean 'title'?
              titel = 'x'
              ^
            """)
    }

    @Test(arguments: [
        ("whoTook.nmae = 'x'", "Photographer has no key 'nmae' (in 'whoTook.nmae'); did you mean 'name'?", ["name"]),
        ("view > 1", "Photo has no key 'view'; did you mean 'views' or 'viewed'?", ["views", "viewed"]),
        ("Views > 1", "Photo has no key 'Views'; did you mean 'views' or 'viewed'?", ["views", "viewed"]),
        ("whoTook.naem = 'x'", "Photographer has no key 'naem' (in 'whoTook.naem'); did you mean 'name'?", ["name"]),
        ("zzzzzz = 1", "Photo has no key 'zzzzzz'; its keys are uniqueId, title, viewed, views, likes, score, price, isPublic, token, link, grade, thumbnail, whoTook", []),
        ("ANY photos.titl = 'x'", "Photo has no key 'titl' (in 'photos.titl'); did you mean 'title'?", ["title"]),
    ])
    func unknownKeys(format: String, message: String, suggestions: [String]) throws {
        let error = try #require(checkError(format, entity: format.contains("photos") ? "Photographer" : "Photo"))
        #expect(error.code == .unknownKey)
        #expect(error.message == message)
        #expect(error.suggestions == suggestions)
    }

    @Test func typeErrorNamesAttributeAndValue() throws {
        let error = try #require(checkError("title = 'x' AND views > 'ten'"))
        #expect(error.code == .typeMismatch)
        #expect(error.description == """
            invalid predicate at column 23: compares integer64 attribute 'views' with a string (> "ten")
              title = 'x' AND views > 'ten'
                                    ^
            """)
    }

    @Test(arguments: [
        // types
        ("title = 3", ObjectPredicateError.Code.typeMismatch, "compares string attribute 'title' with an integer (== 3)"),
        ("views = %@", .typeMismatch, "compares integer64 attribute 'views' with a string (== \"3\")"),
        ("views = TRUE", .typeMismatch, "compares integer64 attribute 'views' with a boolean (== true)"),
        ("viewed > 'yesterday'", .typeMismatch, "compares date attribute 'viewed' with a string that is not an ISO 8601 date such as \"2011-07-23T22:30:40Z\" (> \"yesterday\")"),
        ("viewed > 3", .typeMismatch, "compares date attribute 'viewed' with an integer (> 3)"),
        ("token = 'abc'", .typeMismatch, "compares uuid attribute 'token' with a string that is not a UUID (== \"abc\")"),
        ("grade = 'AB'", .typeMismatch, "compares character attribute 'grade' with a string of 2 characters (== \"AB\")"),
        ("isPublic = 2", .typeMismatch, "compares boolean attribute 'isPublic' with an integer (== 2)"),
        ("views IN {1, 'two'}", .typeMismatch, "compares integer64 attribute 'views' with a string (IN \"two\")"),
        ("views = title", .typeMismatch, "compares integer64 attribute 'views' with string attribute 'title'"),
        ("views CONTAINS '1'", .typeMismatch, "CONTAINS applies to strings, but integer64 attribute 'views' is not one"),
        ("views ==[c] 1", .typeMismatch, "[c] and [d] apply to strings, but integer64 attribute 'views' is not one"),
        ("title LIKE 3", .typeMismatch, "LIKE applies to strings, but an integer is not one"),
        ("title IN[c] {'a', 2}", .typeMismatch, "[c] and [d] apply to strings, but a list is not one"),
        ("views BETWEEN {1}", .typeMismatch, "BETWEEN needs a list of two values, such as {1, 10}, not 1"),
        ("views BETWEEN 1", .typeMismatch, "BETWEEN needs a list on the right, such as {1, 10}, not an integer"),
        ("views IN 3", .typeMismatch, "IN needs a list on the right, such as {1, 2} or an array argument, not an integer"),
        ("views = {1, 2}", .typeMismatch, "a list can only follow IN or BETWEEN, not =="),
        ("title MATCHES '(unclosed'", .invalidRegex, "\"(unclosed\" is not a valid regular expression"),
        ("whoTook = 'Ada'", .typeMismatch, "relationship 'whoTook' can only be compared with nil (= nil, != nil) or an object (== %@); compare one of its keys instead, such as whoTook.id"),
        ("whoTook > nil", .typeMismatch, "relationship 'whoTook' can only be compared with nil (= nil, != nil) or an object (== %@); compare one of its keys instead, such as whoTook.id"),
        // key paths
        ("whoTook.photos.title = 'x'", .keyPath, "string attribute 'whoTook.photos.title' goes through a to-many relationship: write ANY, ALL or NONE before it, or use an aggregate such as @count"),
        ("ANY title = 'x'", .keyPath, "ANY needs a key path through a to-many relationship on the left, not string attribute 'title'"),
        ("title.length = 3", .keyPath, "'title' is a string attribute of Photo and has no key 'length'"),
        ("ANY whoTook.photos = nil", .keyPath, "'whoTook.photos' is a to-many relationship: compare a key of its objects (ANY whoTook.photos.uniqueId …) or count them with whoTook.photos.@count"),
        ("'x' = whoTook.photos.title", .keyPath, "string attribute 'whoTook.photos.title' goes through a to-many relationship: put it on the left, after ANY, ALL or NONE"),
        ("ANY whoTook.photos.whoTook.photos.views > 1", .keyPath, "'whoTook.photos.whoTook.photos.views' goes through more than one to-many relationship; use a SUBQUERY"),
        ("whoTook.@count > 1", .keyPath, "@count needs a to-many relationship, but 'whoTook' is not one"),
        ("whoTook.photos.@sum.title > 1", .typeMismatch, "@sum cannot aggregate string attribute 'title'"),
        ("whoTook.photos.@avg.whoTook > 1", .keyPath, "@avg needs a key path to an attribute through to-one relationships, not 'whoTook'"),
        ("whoTook.photos.@count > 'x'", .typeMismatch, "compares whoTook.photos.@count with a string (> \"x\")"),
        ("SUBQUERY(whoTook.photos, $p, $p.nope > 1).@count > 0", .unknownKey, "Photo has no key 'nope' (in '$p.nope'); its keys are uniqueId, title, viewed, views, likes, score, price, isPublic, token, link, grade, thumbnail, whoTook"),
        // variables
        ("title = $TITLE", .unboundVariable, "$TITLE is not bound: call substituting([\"TITLE\": value]) before checking"),
        ("views IN {1, $X}", .unboundVariable, "$X is not bound: call substituting([\"X\": value]) before checking"),
    ])
    func checkErrors(format: String, code: ObjectPredicateError.Code, message: String) throws {
        let error = try #require(format.contains("%@") ? checkError(format, "3") : checkError(format))
        #expect(error.code == code)
        #expect(error.message == message)
        #expect(error.source == format)
        #expect(error.column != nil)
    }

    @Test func aPatternLongerThanAPatternMayBeIsRefusedWhenChecked() throws {
        let limit = RegexMatcher.maximumPatternLength
        let error = try #require(checkError("title MATCHES %@", String(repeating: "a", count: limit + 1)))
        #expect(error.code == .invalidRegex)
        #expect(error.message.hasSuffix("is \(limit + 1) UTF-16 units long, over the \(limit) a pattern may have"))
    }

    @Test func constantsAreTypedAsTheirAttribute() throws {
        let photo = try PhotoModel.entity("Photo"), model = try PhotoModel.model()
        let checked = try ObjectPredicate(format: "score > 3 AND views > 2.0 AND views < 2.5 AND viewed > '2011-07-23' AND price > 1 AND isPublic = 1 AND grade = 'A'")
            .checked(for: photo, in: model)
        guard case .and(let parts) = checked.root else {
            Issue.record("expected AND, got \(checked.root)")
            return
        }
        let rights: [AttributeValue] = parts.compactMap {
            if case .comparison(let c) = $0, case .value(let v) = c.right { v } else { nil }
        }
        #expect(rights == [.double(3), .integer(2), .double(2.5), .date(PhotoLibrary.date("2011-07-23")), .decimal(1), .boolean(true), .character("A")])
        #expect(checked.entityName == "Photo")
    }

    @Test func resolvedKeyPathsCarryPositions() throws {
        let photographer = try PhotoModel.entity("Photographer"), model = try PhotoModel.model()
        let checked = try ObjectPredicate(format: "ANY photos.whoTook.name = 'x'").checked(for: photographer, in: model)
        guard case .comparison(let comparison) = checked.root, case .keyPath(let path) = comparison.left else {
            Issue.record("unexpected \(checked.root)")
            return
        }
        #expect(path.description == "photos.whoTook.name")
        #expect(path.steps.map(\.key) == [
            PredicateKey(name: "photos", index: 0, isRelationship: true),
            PredicateKey(name: "whoTook", index: 0, isRelationship: true),
            PredicateKey(name: "name", index: 1, isRelationship: false),
        ])
        #expect(path.steps.map(\.entityName) == ["Photographer", "Photo", "Photographer"])
        #expect(path.toManyStepIndex == 0)
        #expect(path.attribute?.name == "name")
    }
}
