import Foundation
import Testing
import TrovePredicate

/// `ObjectPredicate(format:textArguments:for:in:)`: texts typed by the key each `%@` is compared with.
@Suite struct PredicateTextArgumentTests {
    func parse(_ format: String, _ texts: String..., entity: String = "Photo") throws -> ObjectPredicate {
        try ObjectPredicate(format: format, textArguments: texts, for: PhotoModel.entity(entity), in: PhotoModel.model())
    }

    @Test func textsTakeTheTypeOfTheirKey() throws {
        let date = Date(timeIntervalSince1970: 1_311_460_240)
        #expect(try parse("viewed > %@", "2011-07-23T22:30:40Z") == ObjectPredicate(format: "viewed > %@", date))
        #expect(try parse("views >= %@ AND likes < %@", "100", "-3") == ObjectPredicate(format: "views >= %@ AND likes < %@", 100, -3))
        #expect(try parse("price = %@", "0.1") == ObjectPredicate(format: "price = %@", Decimal(string: "0.1") ?? 0))
        #expect(try parse("isPublic = %@", "yes") == ObjectPredicate(format: "isPublic = %@", true))
        #expect(try parse("token = %@", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
            == ObjectPredicate(format: "token = %@", UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")))
        #expect(try parse("title = %@", "42") == ObjectPredicate(format: "title = %@", "42"), "a string key keeps the text")
        #expect(try parse("%@ < views", "7") == ObjectPredicate(format: "%@ < views", 7), "the key may be on the right")
        #expect(try parse("views BETWEEN {%@, %@}", "1", "9") == ObjectPredicate(format: "views BETWEEN {1, 9}"))
        #expect(try parse("whoTook.born < %@", "1970-01-01") == ObjectPredicate(format: "whoTook.born < %@", Date(timeIntervalSince1970: 0)))
        #expect(try parse("photos.@count > %@", "2", entity: "Photographer") == ObjectPredicate(format: "photos.@count > 2"))
        #expect(try parse("ANY photos.views > %@", "10", entity: "Photographer") == ObjectPredicate(format: "ANY photos.views > 10"))
        #expect(try parse("SUBQUERY(photos, $p, $p.views > %@).@count > %@", "10", "1", entity: "Photographer")
            == ObjectPredicate(format: "SUBQUERY(photos, $p, $p.views > 10).@count > 1"))
        #expect(try parse("%K = %@", "views", "3") == ObjectPredicate(format: "views = 3"))
    }

    @Test func aTextThatDoesNotFitNamesTheArgumentTheKeyAndTheType() throws {
        let error = try #require(throws: ObjectPredicateError.self) { try parse("title = %@ AND views > %@", "x", "lots") }
        #expect(error.code == .argument)
        #expect(error.message == "argument 2 (\"lots\") does not fit integer64 attribute 'views': expected a whole number such as 42")
        #expect(error.column == 22)
        #expect(error.source == "title = %@ AND views > %@")

        let date = try #require(throws: ObjectPredicateError.self) { try parse("viewed > %@", "2011-13-45") }
        #expect(date.message.hasSuffix("expected an ISO 8601 date such as 2011-07-23 or 2011-07-23T22:30:40Z"))
        let bool = try #require(throws: ObjectPredicateError.self) { try parse("isPublic = %@", "2") }
        #expect(bool.message.hasSuffix("expected true or false"))
    }

    @Test func countsMustMatch() throws {
        let missing = try #require(throws: ObjectPredicateError.self) { try parse("views > %@") }
        #expect(missing.message == "missing argument for %@ (it is argument 1; 0 given)")
        let extra = try #require(throws: ObjectPredicateError.self) { try parse("views > %@", "1", "2") }
        #expect(extra.message == "2 arguments given, but the format uses 1")
    }

    @Test func resolvingKeyPaths() throws {
        let photo = try PhotoModel.entity("Photo")
        let path = try ResolvedKeyPath(resolving: "whoTook.name", from: photo, in: PhotoModel.model())
        #expect(path.attribute?.name == "name")
        let unknown = try #require(throws: ObjectPredicateError.self) {
            try ResolvedKeyPath(resolving: "whoTook.nmae", from: photo, in: PhotoModel.model())
        }
        #expect(unknown.code == .unknownKey)
        #expect(unknown.suggestions == ["name"])
        #expect(throws: ObjectPredicateError.self) { try ResolvedKeyPath(resolving: "title..x", from: photo, in: PhotoModel.model()) }
    }
}
