import Foundation
import Testing
import TrovePredicate

/// In-memory evaluation over the Photographer/Photo test graph, with Core Data's meaning.
struct PredicateEvaluationTests {
    let library: PhotoLibrary

    init() throws {
        library = try PhotoLibrary()
    }

    @Test func lectureExamples() throws {
        #expect(try library.ids("Photo", "uniqueId = %@", "p2") == ["p2"])
        #expect(try library.ids("Photographer", "name contains[c] %@", "LOVE") == ["ada"])
        #expect(try library.ids("Photo", "viewed > %@", PhotoLibrary.date("2011-07-21")) == ["p2", "p4"])
        #expect(try library.ids("Photo", "whoTook.name = %@", "Grace Hopper") == ["p4"])
        #expect(try library.ids("Photographer", "any photos.title contains %@", "night") == ["grace"])
        #expect(try library.ids("Photographer", "any photos.viewed > %@", PhotoLibrary.date("2011-07-22")) == ["ada", "grace"])
        #expect(try library.ids("Photo", "(whoTook.name = %@) OR (title = %@)", "Grace Hopper", "Mountains") == ["p3", "p4"])
    }

    @Test(arguments: [
        // nil: = and != are null-safe; ordering with nil is false; NOT is two-valued.
        ("title = nil", ["p5"]),
        ("title == NULL", ["p5"]),
        ("title != nil", ["p1", "p2", "p3", "p4", "p6"]),
        ("views != 10", ["p2", "p3", "p4", "p5", "p6"]),
        ("views > 3", ["p1", "p2", "p3", "p4"]),
        ("views <= 3", ["p6"]),
        ("NOT views > 3", ["p5", "p6"]),
        ("title BEGINSWITH 'M' OR views = nil", ["p3", "p5"]),
        ("title CONTAINS nil", []),
        ("whoTook = nil", ["p6"]),
        ("whoTook != nil", ["p1", "p2", "p3", "p4", "p5"]),
        ("whoTook.name = nil", ["p5", "p6"]),
        ("whoTook.mentor.name = 'Grace Hopper'", ["p1", "p2", "p3"]),
        // numbers across kinds
        ("views > 9.5", ["p1", "p2", "p4"]),
        ("views = 10.0", ["p1"]),
        ("views = 1e1", ["p1"]),
        ("score > 7", ["p4"]),
        ("score >= 7", ["p2", "p4"]),
        ("score = 2.5", ["p1"]),
        ("price = 0.1", ["p1"]),
        ("price < 1", ["p1"]),
        ("price > 19.989", ["p2"]),
        ("likes BETWEEN {0, 2}", ["p2"]),
        ("views BETWEEN {5, 50}", ["p1", "p2", "p3"]),
        ("views IN {5, 100, 7}", ["p3", "p4"]),
        ("views IN {}", []),
        ("title IN {'Mountains', nil}", ["p3", "p5"]),
        ("title IN[cd] {'mountains', 'CAFE NOIR'}", ["p2", "p3"]),
        ("-1 < views", ["p1", "p2", "p3", "p4", "p6"]),
        // dates, booleans, UUIDs, URIs, characters
        ("viewed BETWEEN {'2011-07-20', '2011-07-23T00:00:00Z'}", ["p1", "p2"]),
        ("viewed < '2011-01-01'", ["p6"]),
        ("isPublic = YES", ["p1"]),
        ("isPublic == false", ["p2"]),
        ("isPublic = 1", ["p1"]),
        ("token = '00000000-0000-0000-0000-000000000001'", ["p1"]),
        ("link BEGINSWITH 'https://'", ["p1"]),
        ("grade = 'A'", ["p1"]),
        ("grade IN {'a', 'b'}", []),
        ("grade ==[c] 'a'", ["p1"]),
        // logic
        ("TRUEPREDICATE", ["p1", "p2", "p3", "p4", "p5", "p6"]),
        ("FALSEPREDICATE", []),
        ("views > 1 AND views < 50 OR title = 'orphan'", ["p1", "p3", "p6"]),
        ("views > 1 AND (views < 50 OR title = 'orphan')", ["p1", "p3"]),
        ("NOT (views > 1 AND views < 50)", ["p2", "p4", "p5", "p6"]),
        // string operators
        ("title CONTAINS 'o'", ["p1", "p2", "p3", "p6"]),
        ("title CONTAINS ''", ["p1", "p2", "p3", "p4", "p6"]),
        ("title BEGINSWITH[c] 'sun'", ["p1"]),
        ("title ENDSWITH 'STRASSE'", []),
        ("title ENDSWITH[c] 'STRASSE'", ["p1"]),
        ("title CONTAINS[d] 'Cafe'", ["p2"]),
        ("title CONTAINS 'Cafe'", []),
        ("title ==[cd] 'cafe noir'", ["p2"]),
        ("title BEGINSWITH[cd] 'istanbul'", ["p4"]),
        ("title LIKE 'M*s'", ["p3"]),
        ("title LIKE '?ountains'", ["p3"]),
        ("title LIKE[c] 'caf? *'", ["p2"]),
        ("title LIKE 'Mountain'", []),
        ("title MATCHES '[A-Z][a-z]+'", ["p3"]),
        ("title MATCHES 'ountains'", []),
        ("title MATCHES[c] 'MOUNTAINS|ORPHAN'", ["p3", "p6"]),
        ("title MATCHES[d] 'Cafe.*'", ["p2"]),
        ("title < 'N'", ["p2", "p3"]),
        ("title >[c] 'n'", ["p1", "p6"]),
    ])
    func photos(format: String, expected: [String]) throws {
        #expect(try library.ids("Photo", format) == expected)
    }

    @Test(arguments: [
        // quantifiers, including on empty to-manys (linus has no photos)
        ("ANY photos.views > 60", ["grace"]),
        ("SOME photos.views > 60", ["grace"]),
        ("ALL photos.views > 7", ["grace", "linus"]),
        ("NONE photos.views > 60", ["ada", "anon", "linus"]),
        ("NOT ANY photos.views > 60", ["ada", "anon", "linus"]),
        ("ANY photos.title = nil", ["anon"]),
        ("ALL photos.views > 0", ["ada", "grace", "linus"]),
        ("ANY photos.views IN {5, 7}", ["ada"]),
        ("ANY photos.title ENDSWITH[c] 'strasse'", ["ada"]),
        ("ANY photos.whoTook.mentor.name = 'Grace Hopper'", ["ada"]),
        // aggregates, including over nothing
        ("photos.@count = 0", ["linus"]),
        ("photos.@count > 2", ["ada"]),
        ("photos.@count >= 1", ["ada", "anon", "grace"]),
        ("photos.@sum.views = 0", ["anon", "linus"]),
        ("photos.@sum.views = 65", ["ada"]),
        ("photos.@avg.views > 20", ["ada", "grace"]),
        ("photos.@avg.views = nil", ["anon", "linus"]),
        ("photos.@avg.views BETWEEN {21.66, 21.67}", ["ada"]),
        ("photos.@min.views = 5", ["ada"]),
        ("photos.@max.views = 100", ["grace"]),
        ("photos.@max.views = nil", ["anon", "linus"]),
        ("photos.@max.viewed > '2011-07-22'", ["ada", "grace"]),
        ("photos.@min.title = 'Café Noir'", ["ada"]),
        ("photos.@sum.price > 20", ["ada"]),
        ("photos.@avg.score > 4", ["ada", "grace"]),
        ("mentor.photos.@count = 1", ["ada"]),
        ("photos.@count > photos.@sum.views", ["anon"]),
        // subqueries
        ("SUBQUERY(photos, $p, $p.views > 8).@count = 2", ["ada"]),
        ("SUBQUERY(photos, $p, $p.views > 8 AND $p.title CONTAINS[c] 'noir').@count > 0", ["ada"]),
        ("SUBQUERY(photos, $p, $p.views > 1000).@count = 0", ["ada", "anon", "grace", "linus"]),
        ("SUBQUERY(photos, $p, $p.views > 8).@sum.views = 60", ["ada"]),
        ("SUBQUERY(photos, $p, name BEGINSWITH 'G').@count = 1", ["grace"]),
        ("SUBQUERY(photos, $p, $p.whoTook.mentor != nil).@count = 3", ["ada"]),
        ("SUBQUERY(photos, $p, SUBQUERY($p.whoTook.photos, $q, $q.views > $p.views).@count = 0).@count = 1", ["ada", "anon", "grace"]),
    ])
    func photographers(format: String, expected: [String]) throws {
        #expect(try library.ids("Photographer", format) == expected)
    }

    @Test func variablesSubstituted() throws {
        let template = try ObjectPredicate(format: "views > $MIN AND whoTook.name IN $NAMES")
        let checked = try template.substituting(["MIN": 6, "NAMES": ["Ada Lovelace", "Grace Hopper"]])
            .checked(for: try PhotoModel.entity("Photo"), in: try PhotoModel.model())
        #expect(try library.photos.filter { try checked.evaluate(with: $0) }.map(\.id) == ["p1", "p2", "p4"])
    }

    @Test func keyPathArgumentsAndFormatSpecifiers() throws {
        #expect(try library.ids("Photo", "%K > %d", "views", 60) == ["p4"])
        #expect(try library.ids("Photo", "%K.%K BEGINSWITH %s", "whoTook", "name", "Grace") == ["p4"])
        #expect(try library.ids("Photo", "score < %f", 3) == ["p1"])
        #expect(try library.ids("Photo", "views IN %@", [5, 50]) == ["p2", "p3"])
        #expect(try library.ids("Photo", "views IN %@", Set([Int64(5)])) == ["p3"])
        #expect(try library.ids("Photo", "token = %@", UUID(uuidString: "00000000-0000-0000-0000-000000000001")) == ["p1"])
        #expect(try library.ids("Photo", "title = %@", String?.none) == ["p5"])
        #expect(try library.ids("Photo", "price = %@", Decimal(string: "19.99")) == ["p2"])
        #expect(try library.ids("Photo", "views = %@", AttributeValue.integer(100)) == ["p4"])
    }

    /// Values that would break a query spliced into SQL, or a naive pattern, match literally.
    @Test(arguments: [
        "'; DROP TABLE Photo; --", "Robert'); DELETE FROM Photo;--", "100%", "a_b", "%", "_", "*", "?",
        "back\\slash", "\\", "\"quoted\"", "it's", "nul\u{0}byte", "👩‍👩‍👧 family", "e\u{301}", "\n\t",
        String(repeating: "long'\"%_*?\\", count: 1000),
    ])
    func hostileValuesMatchLiterally(hostile: String) throws {
        let target = try TestObject(PhotoModel.entity("Photo"), ["uniqueId": "h", "title": .string(hostile)])
        let other = try TestObject(PhotoModel.entity("Photo"), ["uniqueId": "o", "title": .string(hostile + "x")])
        let photo = try PhotoModel.entity("Photo"), model = try PhotoModel.model()
        for format in ["title = %@", "title ==[cd] %@", "title LIKE %@", "title BEGINSWITH %@", "title IN %@"] {
            let argument: any PredicateArgument = format.hasSuffix("IN %@") ? [hostile] : hostile
            let checked = try ObjectPredicate(format: format, argument).checked(for: photo, in: model)
            let literalPattern = format.contains("LIKE") && (hostile.contains("*") || hostile.contains("?") || hostile.contains("\\"))
            if !literalPattern {
                #expect(try checked.evaluate(with: target), "\(format)")
            }
            if !format.contains("BEGINSWITH") && !literalPattern {
                #expect(try !checked.evaluate(with: other), "\(format)")
            }
        }
        let contains = try ObjectPredicate(format: "title CONTAINS %@", hostile).checked(for: photo, in: model)
        #expect(try contains.evaluate(with: target) && contains.evaluate(with: other))
        #expect(try !ObjectPredicate(format: "title CONTAINS %@", hostile + "!").checked(for: photo, in: model).evaluate(with: target))
    }

    @Test func wrongShapedSubjectsReadAsNil() throws {
        /// A subject that answers every key with a string.
        struct Confused: PredicateSubject {
            let objectID: ObjectID
            func predicateValue(for key: PredicateKey) -> PredicateSubjectValue { .value("x") }
        }
        let photographer = try PhotoModel.entity("Photographer"), model = try PhotoModel.model()
        for format in ["ANY photos.views > 1", "photos.@count = 0", "mentor = nil", "mentor.name = nil", "name = 'x'"] {
            let checked = try ObjectPredicate(format: format).checked(for: photographer, in: model)
            #expect(try checked.evaluate(with: Confused(objectID: .temporary(entity: photographer))) == (format != "ANY photos.views > 1"), "\(format)")
        }
    }
}
