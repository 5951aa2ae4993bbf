import Foundation
public import Trove

/// One predicate of the differential suite: run through a store's SQL and in memory over
/// ``DifferentialDataSet``, both must select the same objects, and (when given) as many as
/// counted by hand.
public struct PredicateCase: Sendable {
    public var entity: String
    public var format: String
    public var arguments: [PredicateArgumentValue]
    public var variables: [String: PredicateArgumentValue] = [:]
    /// The number of objects the predicate selects, counted by hand from
    /// ``DifferentialDataSet``'s tables.
    public var expected: Int?

    /// The predicate, its variables substituted.
    public func predicate() throws -> ObjectPredicate {
        let parsed = try ObjectPredicate(format: format, arguments: arguments)
        return variables.isEmpty ? parsed : parsed.substituting(variables)
    }
}

/// The differential suite's predicates over ``DifferentialDataSet``, by topic: every store runs
/// them (SQLite's tests against the in-memory evaluator, other stores' against SQLite's).
public enum DifferentialPredicates {
    typealias Data = DifferentialDataSet

    /// Every case.
    public static var all: [PredicateCase] {
        operators + logic + strings + dates + everyType + keyPaths + quantifiers + aggregates
    }

    /// `entity`, `format`, arguments, and the hand-counted number of matches.
    static func when(_ entity: String, _ format: String, _ arguments: any PredicateArgument..., vars: [String: any PredicateArgument] = [:],
                     count: Int?) -> PredicateCase {
        PredicateCase(entity: entity, format: format, arguments: arguments.map(\.predicateArgumentValue),
                      variables: vars.mapValues(\.predicateArgumentValue), expected: count)
    }

    /// Comparison operators on numbers.
    public static let operators: [PredicateCase] = [
        // views: p1 10, p2 0, p3 -5, p4 max, p5 min, p6 100, p7 7, p8 7, p9 42, p10 3, p11 10, p12 nil, p13 10
        when("Photo", "views = 10", count: 3),
        when("Photo", "views == 10", count: 3),
        when("Photo", "views != 10", count: 10),
        when("Photo", "views <> 10", count: 10),
        when("Photo", "views < 7", count: 4),
        when("Photo", "views <= 7", count: 6),
        when("Photo", "views =< 7", count: 6),
        when("Photo", "views > 10", count: 3),
        when("Photo", "views >= 10", count: 6),
        when("Photo", "views => 10", count: 6),
        when("Photo", "views BETWEEN {0, 10}", count: 7),
        when("Photo", "views between {10, 0}", count: 0),
        when("Photo", "views IN {7, 42, 99}", count: 3),
        when("Photo", "views IN %@", [7, 42], count: 3),
        when("Photo", "views IN {}", count: 0),
        when("Photo", "views = 9223372036854775807", count: 1),
        when("Photo", "views = %ld", Int64.min, count: 1),
        when("Photo", "views > 9.5", count: 6),
        when("Photo", "views < -4.5", count: 2),
        when("Photo", "views = 10.0", count: 3),
        when("Photo", "views = 10.5", count: 0),
        when("Photo", "views > %d", 40, count: 3),
        when("Photo", "views = %i", 7, count: 2),
        when("Photo", "views <= %ld", Int64.min, count: 1),
        when("Photo", "views > %f", 9.99, count: 6),
        when("Photo", "10 < views", count: 3),
        when("Photo", "views > 1e19", count: 0),
        when("Photo", "views < -1e19", count: 0),
        // rating: p1 4, p2 0.1+0.2, p3 nil, p4 0.3, p5 -1.5, p6 1e300, p7 nil, p8 2.5, p9 nil, p10 3, p11 4, p12 nil, p13 0.5
        when("Photo", "rating = 0.3", count: 1),
        when("Photo", "rating = %f", Data.pointThree, count: 1),
        when("Photo", "rating > 0.3", count: 7),
        when("Photo", "rating BETWEEN %@", [0.3, Data.pointThree], count: 2),
        when("Photo", "rating < 0", count: 1),
        when("Photo", "rating > 1e299", count: 1),
        when("Photo", "rating = 0.30000000000000004", count: 1),
        when("Photo", "rating < 1e-300", count: 1),
        when("Photo", "rating >= 4", count: 3),
        when("Photo", "rating = 4", count: 2),
        when("Photo", "1 = 1", count: 13),
        when("Photo", "1 > 2", count: 0),
        when("Photo", "'a' ==[c] 'A'", count: 13),
        when("Photo", "'STRASSE' ==[c] 'Straße'", count: 13),
        when("Photo", "nil = nil", count: 13),
        when("Photo", "views IN {7, nil}", count: 3),
        when("Photo", "NOT (views IN {7, nil})", count: 10),
        when("Photo", "views BETWEEN {-1e300, 1e300}", count: 12),
    ]

    /// Logic, constants and nil.
    public static let logic: [PredicateCase] = [
        when("Photo", "TRUEPREDICATE", count: 13),
        when("Photo", "FALSEPREDICATE", count: 0),
        when("Photo", "NOT TRUEPREDICATE", count: 0),
        when("Photo", "NOT FALSEPREDICATE", count: 13),
        when("Photo", "views > 5 AND rating > 1", count: 4),
        when("Photo", "views > 5 && rating > 1", count: 4),
        when("Photo", "views < 0 OR rating < 0", count: 2),
        when("Photo", "views < 0 || title = nil", count: 3),
        when("Photo", "NOT views > 5", count: 5),
        when("Photo", "! (views > 5)", count: 5),
        when("Photo", "NOT (views = nil)", count: 12),
        when("Photo", "views = 10 OR views = 7 AND rating > 3", count: 3),
        when("Photo", "(views = 10 OR views = 7) AND rating > 3", count: 2),
        when("Photo", "NOT views = 10 AND views > 5", count: 5),
        when("Photo", "NOT (views = 10 AND views > 5)", count: 10),
        when("Photo", "TRUEPREDICATE AND views = 7", count: 2),
        when("Photo", "FALSEPREDICATE OR views = 7", count: 2),
        when("Photo", "NOT (NOT (views = 7))", count: 2),
        when("Photo", "NOT rating > 1", count: 8),
        when("Photo", "views > 5 and not (rating < 1)", count: 6),
        when("Photo", "NOT (rating BETWEEN {0, 1})", count: 10),
        when("Photo", "NOT title CONTAINS 'Sun'", count: 11),
        when("Photo", "NOT title IN {'Sunset', ''}", count: 10),
        when("Photographer", "name = nil", count: 1),
        when("Photographer", "name == NULL", count: 1),
        when("Photographer", "nil = name", count: 1),
        when("Photographer", "name != nil", count: 14),
        when("Photographer", "name > nil", count: 0),
        when("Photographer", "NOT (name < nil)", count: 15),
        when("Photographer", "name BEGINSWITH nil", count: 0),
        when("Photographer", "name IN {nil}", count: 1),
        when("Photographer", "name IN %@", ["Grace Hopper", nil] as [String?], count: 2),
        when("Photographer", "rating = nil", count: 7),
        when("Photographer", "NOT (rating > 0)", count: 9),
        when("Photographer", "rating != 3", count: 13),
    ]

    /// String operators and their options, over hostile Unicode.
    public static let strings: [PredicateCase] = [
        // names: Ada Lovelace ×2, Grace Hopper, Straße, STRASSE, İstanbul, istanbul, café, cafe, CAFÉ,
        // cafe + U+0301, nil, emoji, ΣΊΣΥΦΟΣ, σίσυφος
        when("Photographer", "name = 'Ada Lovelace'", count: 2),
        when("Photographer", "name = \"Straße\"", count: 1),
        when("Photographer", "name ==[c] 'strasse'", count: 2),
        when("Photographer", "name ==[c] 'ISTANBUL'", count: 1),
        when("Photographer", "name ==[cd] 'ISTANBUL'", count: 2),
        when("Photographer", "name ==[d] 'istanbul'", count: 1),
        when("Photographer", "name ==[d] 'cafe'", count: 3),
        when("Photographer", "name ==[c] 'café'", count: 3),
        when("Photographer", "name ==[cd] 'CAFE'", count: 4),
        when("Photographer", "name == 'café'", count: 1),
        when("Photographer", "name == %@", "cafe\u{301}", count: 1),
        when("Photographer", "name ==[c] 'ΣΊΣΥΦΟΣ'", count: 2),
        when("Photographer", "name == 'σίσυφος'", count: 1),
        when("Photographer", "name != 'Ada Lovelace'", count: 13),
        when("Photographer", "name !=[c] 'strasse'", count: 13),
        when("Photographer", "name < 'B'", count: 2),
        when("Photographer", "name > 'z'", count: 4),
        when("Photographer", "name >[c] 'Z'", count: 3),
        when("Photographer", "name <=[c] 'CAFE'", count: 3),
        when("Photographer", "name BETWEEN {'c', 'd'}", count: 3),
        when("Photographer", "name IN {'Straße', 'cafe'}", count: 2),
        when("Photographer", "name IN[c] {'strasse', 'CAFE'}", count: 3),
        when("Photographer", "name IN[cd] {'strasse', 'CAFE'}", count: 6),
        when("Photographer", "name BEGINSWITH 'Ada'", count: 2),
        when("Photographer", "name BEGINSWITH[c] 'ada'", count: 2),
        when("Photographer", "name BEGINSWITH 'caf'", count: 3),
        when("Photographer", "name BEGINSWITH ''", count: 14),
        when("Photographer", "name ENDSWITH 'e'", count: 4),
        when("Photographer", "name ENDSWITH[d] 'e'", count: 6),
        when("Photographer", "name ENDSWITH[cd] 'E'", count: 8),
        when("Photographer", "name CONTAINS 'ss'", count: 0),
        when("Photographer", "name CONTAINS[c] 'ss'", count: 2),
        when("Photographer", "name CONTAINS[c] 'ß'", count: 2),
        when("Photographer", "name CONTAINS 'ß'", count: 1),
        when("Photographer", "name CONTAINS[c] 'LOVE'", count: 2),
        when("Photographer", "name CONTAINS %@", "👩‍👩‍👧", count: 1),
        when("Photographer", "name CONTAINS ''", count: 14),
        // `?` is one Unicode scalar: "cafe\u{301}" (five) is not matched, "café" (four) is.
        when("Photographer", "name LIKE 'caf?'", count: 2),
        when("Photographer", "name LIKE 'caf??'", count: 1),
        when("Photographer", "name LIKE 'caf*'", count: 3),
        when("Photographer", "name LIKE[c] 'caf?'", count: 4),
        when("Photographer", "name LIKE[cd] 'CAFE'", count: 4),
        when("Photographer", "name LIKE '*Love*'", count: 2),
        when("Photographer", "name LIKE 'S*e'", count: 1),
        when("Photographer", "name LIKE[c] 's*e'", count: 2),
        when("Photographer", "name LIKE '*'", count: 14),
        when("Photographer", "name LIKE '????'", count: 3),
        when("Photographer", "name LIKE %@", "caf\u{E9}", count: 1),
        when("Photographer", "name LIKE %@", "cafe\u{301}", count: 1),
        when("Photographer", "name LIKE[c] %@", "cafe\u{301}", count: 3),
        when("Photographer", "'STRASSE' ==[c] name", count: 2),
        when("Photographer", "'ada lovelace' ==[c] name", count: 2),
        when("Photographer", "'b' <[c] name", count: 12),
        when("Photographer", "name IN[c] {'STRASSE', nil}", count: 3),
        when("Photographer", "name MATCHES 'Ada.*'", count: 2),
        when("Photographer", "name MATCHES '[a-z]+'", count: 2),
        when("Photographer", "name MATCHES[c] 'ada lovelace'", count: 2),
        when("Photographer", "name MATCHES[d] 'cafe'", count: 3),
        when("Photographer", "name MATCHES[cd] 'CAFE'", count: 4),
        when("Photographer", "name MATCHES 'σ.*ς'", count: 1),
        when("Photographer", "name MATCHES 'Ada|Grace'", count: 0),
        when("Photographer", "name MATCHES '\\\\w+ \\\\w+'", count: 3),
        when("Photographer", "name MATCHES[c] '^ADA.*'", count: 2),
        when("Photo", "whoTook.name MATCHES[c] 'ada.*'", count: 2),
        // titles: Sunset, sunset over the Straße, Café au lait, nil, cafe + U+0301 crème, "", 100% _real_ *star*?,
        // O'Brien "quoted", back\slash, İstanbul nights, Sunset, ΣΊΣΥΦΟΣ 📷, sunrise
        when("Photo", "title contains[c] %@", "sun", count: 4),
        when("Photo", "title CONTAINS[cd] %@", "CAFE", count: 2),
        when("Photo", "title CONTAINS 'é'", count: 1),
        when("Photo", "title CONTAINS[d] 'e'", count: 8),
        when("Photo", "title LIKE %@", "100% _real_ \\*star\\*\\?", count: 1),
        when("Photo", "title LIKE '*%*'", count: 1),
        when("Photo", "title LIKE '*_*'", count: 1),
        when("Photo", "title LIKE %@", "*\\\\*", count: 1),
        when("Photo", "title BEGINSWITH 'O\\'Brien'", count: 1),
        when("Photo", "title ENDSWITH \"\\\"quoted\\\"\"", count: 1),
        when("Photo", "title = ''", count: 1),
        when("Photo", "title = nil", count: 1),
        when("Photo", "title != ''", count: 12),
        when("Photo", "title ==[c] 'SUNSET'", count: 2),
        when("Photo", "title MATCHES '.*📷'", count: 1),
        when("Photo", "title MATCHES '.*\\\\\\\\.*'", count: 1),
        when("Photo", "title = %s", "Sunset", count: 2),
        when("Photo", "uniqueId = %@", "p7", count: 1),
    ]

    /// Dates around the epochs.
    public static let dates: [PredicateCase] = [
        // uploadDate: p1 2011-07-23T22:30:40, p2 2001, p3 1970, p4 nil, p5 2038, p6 2001 + 1 ms, p7 = p1, p8 nil,
        // p9 nil, p10 2015-06-01, p11 p1 + 1 s, p12 nil, p13 2011-07-24
        when("Photo", "uploadDate > %@", Data.referenceDate, count: 7),
        when("Photo", "uploadDate >= %@", Data.referenceDate, count: 8),
        when("Photo", "uploadDate = %@", Data.referenceDate, count: 1),
        when("Photo", "uploadDate < %@", Data.referenceDate, count: 1),
        when("Photo", "uploadDate = %@", Data.date("2011-07-23T22:30:40Z"), count: 2),
        when("Photo", "uploadDate BETWEEN %@", [Data.date("2011-07-23T22:30:40Z"), Data.date("2011-07-23T22:30:41Z")], count: 3),
        when("Photo", "uploadDate > '2011-07-23T22:30:40Z'", count: 4),
        when("Photo", "uploadDate = nil", count: 4),
        when("Photo", "uploadDate < %@", Data.unixEpoch, count: 0),
        when("Photo", "uploadDate <= %@", Data.unixEpoch, count: 1),
        when("Photo", "uploadDate IN %@", [Data.referenceDate, Data.year2038], count: 2),
        when("Photo", "viewed > %@", Data.date("2015-01-01T00:00:00Z"), count: 3),
        when("Photo", "viewed < %@", Data.unixEpoch, count: 1),
        when("Photo", "viewed < uploadDate", count: 2),
        when("Photo", "viewed > uploadDate", count: 3),
        when("Photographer", "born < %@", Data.unixEpoch, count: 4),
        when("Photographer", "born >= %@", Data.unixEpoch, count: 4),
        when("Photographer", "born = %@", Data.date("1815-12-10T00:00:00Z"), count: 2),
        when("Photographer", "born BETWEEN %@", [Data.beforeReferenceDate, Data.referenceDate], count: 2),
    ]

    /// A comparison on every attribute type.
    public static let everyType: [PredicateCase] = [
        // int16: t1 0, t2 max, t3 min, t4 nil, t5 -1, t6 7, t7 nil, t8 0
        when("Thing", "int16Value = 0", count: 2),
        when("Thing", "int16Value < 0", count: 2),
        when("Thing", "int16Value = 32767", count: 1),
        when("Thing", "int16Value >= -32768", count: 6),
        // int32: t1 0, t2 max, t3 min, t5 1, t6 7
        when("Thing", "int32Value > 0", count: 3),
        when("Thing", "int32Value = %d", Int32.max, count: 1),
        when("Thing", "int32Value IN {0, 1}", count: 2),
        // int64: t1 0, t2 max, t3 min, t5 -(2^53 + 1), t6 7, t7 2^53 + 1, t8 1
        when("Thing", "int64Value = %ld", Int64.max, count: 1),
        when("Thing", "int64Value = %ld", Data.beyondDouble, count: 1),
        when("Thing", "int64Value = 9007199254740992", count: 0),
        when("Thing", "int64Value > 9007199254740992.0", count: 2),
        when("Thing", "int64Value = 9007199254740992.0", count: 0),
        when("Thing", "int64Value < 0", count: 2),
        when("Thing", "int64Value BETWEEN {-1, 1}", count: 2),
        // double: t1 0, t2 0.1+0.2, t3 -1.5, t5 0.3, t6 7, t7 1e-300, t8 0.1+0.2
        when("Thing", "doubleValue = %@", Data.pointThree, count: 2),
        when("Thing", "doubleValue = 0.3", count: 1),
        when("Thing", "doubleValue > 0", count: 5),
        when("Thing", "doubleValue > 0.3", count: 3),
        when("Thing", "doubleValue = 0", count: 1),
        when("Thing", "doubleValue = 7", count: 1),
        when("Thing", "doubleValue = 0.30000000000000004", count: 2),
        when("Thing", "doubleValue = 1e-300", count: 1),
        when("Thing", "doubleValue = 0.1", count: 0),
        // float: t1 0, t2 0.5, t3 -0.25, t5 1e30 (as Float), t6 7
        when("Thing", "floatValue = 0.5", count: 1),
        when("Thing", "floatValue > 1e29", count: 1),
        when("Thing", "floatValue < 0", count: 1),
        when("Thing", "floatValue = %f", Float(0.5), count: 1),
        // decimal: t1 0, t2 1.10, t3 1.1, t5 -0.5, t6 7, t7 12345678901234567890.123456789, t8 0.30
        when("Thing", "decimalValue = 1.1", count: 2),
        when("Thing", "decimalValue = %@", Decimal(string: "1.10"), count: 2),
        when("Thing", "decimalValue > 1", count: 4),
        when("Thing", "decimalValue < 0", count: 1),
        when("Thing", "decimalValue = 0.3", count: 1),
        when("Thing", "decimalValue > %@", Decimal(string: "12345678901234567890.12345678"), count: 1),
        when("Thing", "decimalValue BETWEEN {0, 2}", count: 4),
        when("Thing", "decimalValue IN {7, -0.5}", count: 2),
        when("Thing", "decimalValue = 7", count: 1),
        when("Thing", "decimalValue < 10", count: 6),
        when("Thing", "decimalValue > 2", count: 2),
        when("Thing", "decimalValue > 2.5", count: 2),
        when("Thing", "1.1 = decimalValue", count: 2),
        when("Thing", "2 < decimalValue", count: 2),
        when("Thing", "%@ >= decimalValue", Decimal(string: "1.10"), count: 5),
        when("Thing", "decimalValue IN {1.10, nil}", count: 3),
        when("Thing", "decimalValue < 1e300", count: 7),
        when("Thing", "decimalValue > -1e300", count: 7),
        when("Thing", "decimalValue = 1e-300", count: 0),
        when("Thing", "decimalValue BETWEEN {-1e-300, 1e300}", count: 6),
        when("Thing", "decimalValue != 1.1", count: 6),
        when("Thing", "characterValue BETWEEN {'a', 'z'}", count: 2),
        when("Thing", "booleanValue BETWEEN {false, true}", count: 5),
        when("Thing", "int16Value > 1e10", count: 0),
        when("Thing", "int16Value < %@", 100_000, count: 6),
        when("Thing", "uuidValue < %@", UUID(uuidString: "F0000000-0000-0000-0000-000000000001"), count: 3),
        when("Thing", "'2001-01-01T00:00:00Z' = dateValue", count: 1),
        // boolean: t1 false, t2 true, t3 false, t5 true, t8 false, others nil
        when("Thing", "booleanValue = true", count: 2),
        when("Thing", "booleanValue == YES", count: 2),
        when("Thing", "booleanValue = NO", count: 3),
        when("Thing", "booleanValue = FALSE", count: 3),
        when("Thing", "booleanValue != true", count: 6),
        when("Thing", "booleanValue = 1", count: 2),
        when("Thing", "booleanValue = %@", true, count: 2),
        when("Thing", "booleanValue = nil", count: 3),
        when("Thing", "booleanValue < true", count: 3),
        // date: t1 2001, t2 1970, t3 2001 - 1 s, t5 2038, t8 2001 + 1 ms
        when("Thing", "dateValue = %@", Data.referenceDate, count: 1),
        when("Thing", "dateValue > %@", Data.referenceDate, count: 2),
        when("Thing", "dateValue < %@", Data.referenceDate, count: 2),
        when("Thing", "dateValue BETWEEN %@", [Data.beforeReferenceDate, Data.referenceDate], count: 2),
        // uuid: t1 0000…, t2 F000…01, t3 0F00…02, t5 A000…0B
        when("Thing", "uuidValue = %@", UUID(uuidString: "F0000000-0000-0000-0000-000000000001"), count: 1),
        when("Thing", "uuidValue = 'a0000000-0000-0000-0000-00000000000b'", count: 1),
        when("Thing", "uuidValue > %@", UUID(uuidString: "0F000000-0000-0000-0000-000000000002"), count: 2),
        when("Thing", "uuidValue IN %@", [UUID(uuidString: "00000000-0000-0000-0000-000000000000"),
                                          UUID(uuidString: "0F000000-0000-0000-0000-000000000002")], count: 2),
        when("Thing", "uuidValue != nil", count: 4),
        // uri: t1 https://example.com/a, t2 https://example.com/b?q=1, t3 file:///tmp/x%20y, t5 http://a.b/
        when("Thing", "uriValue = %@", URL(string: "https://example.com/b?q=1"), count: 1),
        when("Thing", "uriValue BEGINSWITH 'https:'", count: 2),
        when("Thing", "uriValue CONTAINS '%20'", count: 1),
        when("Thing", "uriValue = 'http://a.b/'", count: 1),
        when("Thing", "uriValue < 'https'", count: 2),
        // character: t1 a, t2 é, t3 Z, t5 ß, t6 7, t8 e
        when("Thing", "characterValue = 'a'", count: 1),
        when("Thing", "characterValue ==[cd] 'E'", count: 2),
        when("Thing", "characterValue ==[c] 'z'", count: 1),
        when("Thing", "characterValue IN {'a', 'Z', '7'}", count: 3),
        when("Thing", "characterValue > 'Z'", count: 4),
        when("Thing", "characterValue BEGINSWITH[c] 's'", count: 1),
        when("Thing", "characterValue = %@", Character("é"), count: 1),
        // string: t1 a, t2 é, t3 Z, t5 Straße, t6 7, t7 "", t8 e + U+0301
        when("Thing", "stringValue ==[d] 'e'", count: 2),
        when("Thing", "stringValue == 'é'", count: 1),
        when("Thing", "stringValue ==[c] 'é'", count: 2),
        when("Thing", "stringValue = ''", count: 1),
        // `?` is one Unicode scalar (as SQL's `_`): a one-character value of two scalars is not matched.
        when("Thing", "stringValue LIKE '?'", count: 4),
        when("Thing", "stringValue LIKE '??'", count: 1),
        // binary: t1 empty, t2 00 01, t3 FF, t5 00, t8 00 01
        when("Thing", "binaryValue = %@", Foundation.Data([0, 1]), count: 2),
        when("Thing", "binaryValue = %@", Foundation.Data(), count: 1),
        when("Thing", "binaryValue > %@", Foundation.Data([0]), count: 3),
        when("Thing", "binaryValue < %@", Foundation.Data([0]), count: 1),
        when("Thing", "binaryValue = nil", count: 3),
    ]

    /// Keys against keys, key paths through to-one relationships.
    public static let keyPaths: [PredicateCase] = [
        when("Thing", "int16Value = int64Value", count: 3),
        when("Thing", "int32Value < int64Value", count: 1),
        when("Thing", "doubleValue = floatValue", count: 3),
        when("Thing", "decimalValue = int64Value", count: 3),
        when("Thing", "decimalValue > doubleValue", count: 3),
        when("Thing", "characterValue = stringValue", count: 5),
        when("Thing", "characterValue ==[cd] stringValue", count: 6),
        when("Photo", "views > rating", count: 5),
        when("Photographer", "rating < mentor.rating", count: 1),
        when("Photo", "whoTook.name = %@", "Ada Lovelace", count: 2),
        when("Photo", "whoTook.name = nil", count: 1),
        when("Photo", "whoTook = nil", count: 1),
        when("Photo", "whoTook != nil", count: 12),
        when("Photo", "whoTook.name ==[c] 'strasse'", count: 2),
        when("Photo", "whoTook.mentor.name = 'Ada Lovelace'", count: 4),
        when("Photo", "whoTook.mentor = nil", count: 8),
        when("Photo", "whoTook.rating > 2", count: 6),
        when("Photo", "NOT whoTook.rating > 2", count: 7),
        when("Photo", "whoTook.born < uploadDate", count: 8),
        when("Photo", "detail.booleanValue = true", count: 1),
        when("Photo", "detail.decimalValue = 1.1", count: 2),
        when("Photo", "detail = nil", count: 9),
        when("Photo", "%K = %@", "views", 7, count: 2),
        when("Photo", "%K CONTAINS[c] %@", "whoTook.name", "ada", count: 2),
        when("Photo", "title BEGINSWITH[c] whoTook.name", count: 1),
        when("Photo", "title BEGINSWITH[cd] whoTook.name", count: 2),
        when("Photo", "whoTook.name ==[c] whoTook.mentor.name", count: 1),
        when("Thing", "photo.whoTook.name BEGINSWITH 'Ada'", count: 2),
        when("Thing", "photo = nil", count: 4),
        when("Thing", "tag.name ==[c] 'NATURE'", count: 4),
        when("Thing", "photo.views > 5 OR tag.name = 'sky'", count: 5),
        when("Photo", "views > $MIN", vars: ["MIN": 40], count: 3),
        when("Photographer", "name ==[c] $NAME", vars: ["NAME": "STRASSE"], count: 2),
        when("Photo", "uploadDate BETWEEN {$FROM, $TO}", vars: ["FROM": Data.referenceDate, "TO": Data.year2038], count: 8),
        when("Photo", "views IN $LIST", vars: ["LIST": [7, 10]], count: 5),
        when("Photo", "whoTook.name BEGINSWITH $P AND views >= $V", vars: ["P": "S", "V": 0], count: 1),
    ]

    /// To-many key paths: ANY, ALL, NONE.
    public static let quantifiers: [PredicateCase] = [
        // photos: ada p1 p2, grace p3 p4 p13, strasse1 p5, strasse2 p11, ist1 p7, ist2 p10, emoji p8 p9,
        // sigma1 p12; seven photographers have none
        when("Photographer", "ANY photos.title CONTAINS %@", "Sun", count: 2),
        when("Photographer", "any photos.title contains[c] 'sun'", count: 3),
        when("Photographer", "SOME photos.views > 50", count: 1),
        when("Photographer", "ANY photos.views > 5", count: 5),
        when("Photographer", "ALL photos.views > 5", count: 10),
        when("Photographer", "NONE photos.views > 5", count: 10),
        when("Photographer", "ANY photos.uploadDate > %@", Data.date("2011-01-01T00:00:00Z"), count: 6),
        when("Photographer", "ANY photos.title = nil", count: 1),
        when("Photographer", "ALL photos.title != nil", count: 14),
        when("Photographer", "ANY photos.whoTook.name = 'Ada Lovelace'", count: 1),
        when("Photographer", "ANY photos.rating = nil", count: 4),
        when("Photographer", "ALL photos.rating > 0", count: 10),
        when("Photographer", "ANY photos.uploadDate = nil", count: 3),
        when("Photographer", "NONE photos.title BEGINSWITH[c] 'sun'", count: 12),
        when("Photographer", "ANY photos.views IN {7, 42}", count: 2),
        when("Photographer", "ANY photos.views BETWEEN {0, 5}", count: 2),
        when("Photographer", "ANY photos.title LIKE[cd] 'cafe*'", count: 2),
        when("Photographer", "ANY photos.title MATCHES[c] 'sun.*'", count: 3),
        when("Photographer", "NONE photos.title MATCHES[cd] '.*cafe.*'", count: 13),
        when("Photographer", "NOT (ANY photos.views > 5)", count: 10),
        when("Photographer", "NOT (ALL photos.views > 5)", count: 5),
        when("Photographer", "ANY photos.views > 5 AND NONE photos.views < 0", count: 4),
        when("Photographer", "ANY students.name BEGINSWITH 'S'", count: 2),
        when("Photographer", "ANY students.mentor.name = 'Ada Lovelace'", count: 1),
        when("Photographer", "ANY photos.views > rating", count: 4),
        when("Tag", "ANY photos.views > 50", count: 3),
        when("Tag", "ALL photos.views > 5", count: 4),
        when("Tag", "NONE photos.whoTook.name BEGINSWITH 'Ada'", count: 5),
        when("Photo", "ANY tags.name = 'sky'", count: 4),
        when("Photo", "ANY tags.name ==[c] 'nature'", count: 4),
        when("Photo", "ALL tags.name ==[c] 'nature'", count: 7),
        when("Photo", "NONE tags.name = 'city'", count: 9),
        when("Photo", "ANY tags.name = nil", count: 0),
        when("Photo", "ANY whoTook.photos.views > 50", count: 3),
        when("Photo", "ALL whoTook.photos.views >= 0", count: 8),
        when("Photographer", "ANY %K > %d", "photos.views", 5, count: 5),
        when("Photographer", "ALL photos.whoTook.name = name", count: 15),
    ]

    /// Aggregates (`@count`, `@sum`, …) and SUBQUERY.
    public static let aggregates: [PredicateCase] = [
        when("Photographer", "photos.@count = 0", count: 7),
        when("Photographer", "photos.@count > 1", count: 3),
        when("Photographer", "photos.@count >= 1", count: 8),
        when("Photographer", "photos.@count == 3", count: 1),
        when("Photographer", "students.@count = 2", count: 2),
        when("Photographer", "photos.@sum.views > 40", count: 2),
        when("Photographer", "photos.@sum.views = 0", count: 8),
        when("Photographer", "photos.@avg.rating > 2", count: 4),
        when("Photographer", "photos.@avg.views = nil", count: 8),
        when("Photographer", "photos.@min.uploadDate < %@", Data.referenceDate, count: 1),
        when("Photographer", "photos.@min.uploadDate <= %@", Data.referenceDate, count: 2),
        when("Photographer", "photos.@max.views = 9223372036854775807", count: 1),
        when("Photographer", "photos.@min.views < 0", count: 2),
        when("Photographer", "photos.@max.title = 'sunset over the Straße'", count: 1),
        when("Photographer", "photos.@min.title BEGINSWITH 'C'", count: 1),
        when("Photographer", "photos.@max.rating >= 4", count: 2),
        when("Photographer", "photos.@sum.rating > 4", count: 1),
        when("Photographer", "photos.@count = students.@count", count: 8),
        when("Photographer", "photos.@max.rating > rating", count: 1),
        when("Tag", "photos.@count = 0", count: 2),
        when("Tag", "photos.@count >= 3", count: 3),
        when("Tag", "photos.@avg.views > 20", count: 4),
        when("Tag", "things.@count = 0", count: 2),
        when("Tag", "things.@sum.decimalValue = 2.2", count: 1),
        when("Tag", "things.@sum.decimalValue < 0", count: 1),
        when("Tag", "things.@avg.decimalValue > 1", count: 2),
        when("Tag", "things.@max.decimalValue > 2", count: 2),
        when("Tag", "things.@min.decimalValue < 0", count: 1),
        when("Tag", "things.@sum.int64Value = -1", count: 1),
        when("Tag", "things.@sum.int64Value = -9007199254740992", count: 1),
        when("Tag", "things.@sum.doubleValue > 0.5", count: 2),
        when("Tag", "things.@min.stringValue ==[c] 'STRASSE'", count: 1),
        when("Photo", "whoTook.photos.@count = 3", count: 3),
        when("Photo", "whoTook.photos.@count = 0", count: 1),
        when("Photo", "tags.@count > 2", count: 1),
        when("Photographer", "SUBQUERY(photos, $p, $p.views > 5).@count > 0", count: 5),
        when("Photographer", "SUBQUERY(photos, $p, $p.views > 5).@count = 2", count: 2),
        when("Photographer", "SUBQUERY(photos, $p, $p.title CONTAINS[c] 'sun' AND $p.rating > 1).@count >= 1", count: 2),
        when("Photographer", "SUBQUERY(photos, $p, ANY $p.tags.name = 'sky').@count > 0", count: 3),
        when("Photographer", "SUBQUERY(photos, $p, $p.rating > rating).@count > 0", count: 1),
        when("Photographer", "SUBQUERY(photos, $p, $p.views > 5).@sum.views > 100", count: 1),
        when("Photographer", "SUBQUERY(photos, $p, SUBQUERY($p.tags, $t, $t.name = 'city').@count > 0).@count > 0", count: 3),
        when("Photographer", "SUBQUERY(photos, $p, $p.whoTook.mentor = nil).@count = photos.@count", count: 12),
        when("Tag", "SUBQUERY(photos, $p, $p.whoTook.name BEGINSWITH 'Ada').@count = 1", count: 1),
        when("Photo", "SUBQUERY(tags, $t, $t.photos.@count > 3).@count > 0", count: 5),
        when("Photographer", "SUBQUERY(photos, $p, SUBQUERY($p.tags, $t, ANY $t.photos.views > $p.views).@count > 0).@count > 0", count: 3),
        when("Photographer", "SUBQUERY(photos, $x, $x.title ==[c] $x.whoTook.photos.@max.title).@count > 0", count: 8),
        when("Photographer", "photos.@count > 1.5", count: 3),
        when("Photographer", "photos.@avg.views > 1e18", count: 1),
    ]

    /// Sorts every store runs over ``DifferentialDataSet`` (``SortKey/parse(_:)``'s form):
    /// each attribute type both ways, the three string comparisons, and key paths through to-ones.
    public static let sorts: [(entity: String, sort: String)] = [
        ("Photographer", "name"), ("Photographer", "-name"), ("Photographer", "name:ci"), ("Photographer", "-name:ci"),
        ("Photographer", "name:localized"), ("Photographer", "-name:localized"), ("Photographer", "rating,-name"),
        ("Photographer", "-rating,name:ci"), ("Photographer", "mentor.name,name"), ("Photographer", "-mentor.name,-born"),
        ("Photographer", "born"), ("Photographer", "mentor.mentor.name:localized,-id"),
        ("Photo", "views"), ("Photo", "-views,title"), ("Photo", "whoTook.name:ci,-uploadDate"), ("Photo", "rating,-viewed"),
        ("Photo", "whoTook.mentor.name,title:localized"), ("Photo", "title:ci"), ("Photo", "detail.decimalValue,uniqueId"),
        ("Photo", "-detail.uuidValue"), ("Photo", "-title:localized"),
        ("Tag", "name:ci"), ("Tag", "-name:localized"), ("Tag", "name"),
        ("Thing", "characterValue:ci"), ("Thing", "stringValue:localized"), ("Thing", "-stringValue:ci,label"),
        ("Thing", "tag.name,-decimalValue"), ("Thing", "photo.whoTook.name:localized,label"),
    ] + [
        "int16Value", "int32Value", "int64Value", "doubleValue", "floatValue", "decimalValue", "booleanValue",
        "dateValue", "uuidValue", "uriValue", "characterValue", "stringValue", "binaryValue",
    ].flatMap { [("Thing", $0), ("Thing", "-" + $0)] }

    /// Aggregate requests every store runs over ``DifferentialDataSet``: groups through
    /// to-ones, every aggregate of every type, having-predicates, sorts and windows.
    public static let aggregateRequests: [AggregateCase] = [
        AggregateCase("Photo", by: ["whoTook.name"], [.count(), .sum("views"), .avg("views"), .min("views"), .max("views"),
                                                 .min("title"), .max("uploadDate"), .sum("rating"), .avg("rating")]),
        AggregateCase("Photo", [.count(), .sum("views"), .max("title")], where: "views > 0"),
        AggregateCase("Photo", [.count(), .sum("views"), .avg("views"), .min("views")], where: "FALSEPREDICATE"),
        AggregateCase("Photo", by: ["whoTook.name"], []),
        AggregateCase("Photo", by: ["whoTook.name", "rating"], [.count()]),
        AggregateCase("Photo", by: ["whoTook.mentor.name"], [.count(as: "photos"), .sum("views", as: "total")],
                having: "photos > 1", sort: [SortKey("total", ascending: false)]),
        AggregateCase("Photo", by: ["whoTook.name"], [.sum("views", as: "total")], having: "total >= 0 OR total == nil",
                sort: [SortKey("total", ascending: false)], limit: 2, offset: 1),
        AggregateCase("Photo", by: ["title"], [.count(as: "n")], having: "title BEGINSWITH[cd] 's'"),
        AggregateCase("Photo", by: ["whoTook.name"], [.count(as: "n")], where: "title MATCHES[c] 'sun.*'"),
        AggregateCase("Photographer", by: ["mentor.name"], [.count(as: "students"), .avg("rating"), .min("born")],
                sort: [SortKey("mentor.name", ascending: false)]),
        AggregateCase("Thing", by: ["booleanValue"], [.count(), .sum("int16Value"), .sum("int32Value"), .sum("int64Value"),
                                                 .sum("floatValue"), .sum("decimalValue"), .avg("decimalValue"),
                                                 .min("decimalValue"), .max("decimalValue"), .max("stringValue"),
                                                 .min("dateValue"), .max("characterValue"), .min("uuidValue")]),
        AggregateCase("Thing", by: ["tag.name"], [.avg("int64Value"), .avg("doubleValue"), .min("stringValue")]),
        AggregateCase("Thing", by: ["stringValue"], [.count(as: "n")], sort: [SortKey("stringValue", comparison: .caseInsensitive)]),
        // The text of groups and of their extremes, compared and sorted with [c], [d] and the localized order.
        AggregateCase("Photo", by: ["whoTook.name"], [.max("title", as: "latest"), .min("title", as: "earliest")],
                having: "latest CONTAINS[cd] 'e' OR earliest BEGINSWITH[c] 'a'",
                sort: [SortKey("latest", ascending: false, comparison: .localizedStandard), SortKey("whoTook.name")]),
        AggregateCase("Photographer", by: ["name"], [.count(as: "n")], having: "name LIKE[d] '*e*'",
                sort: [SortKey("name", ascending: false, comparison: .localizedStandard)]),
        AggregateCase("Thing", by: ["tag.name", "characterValue"], [.min("stringValue", as: "least")],
                sort: [SortKey("least", comparison: .caseInsensitive), SortKey("tag.name", comparison: .caseInsensitive),
                       SortKey("characterValue"), SortKey("tag.name")]),
    ]
}

/// One aggregate request of the differential suite, its predicates as written.
public struct AggregateCase: Sendable, CustomStringConvertible {
    public var base: AggregateRequest
    public var predicate: String?
    public var having: String?

    public init(_ entity: String, by groupBy: [String] = [], _ aggregates: [AggregateField], where format: String? = nil,
                having: String? = nil, sort: [SortKey] = [], limit: Int = 0, offset: Int = 0) {
        var request = AggregateRequest(entityName: entity, groupBy: groupBy, aggregates: aggregates)
        request.sortDescriptors = sort
        request.fetchLimit = limit
        request.fetchOffset = offset
        base = request
        predicate = format
        self.having = having
    }

    public var description: String {
        "\(base.entityName) by \(base.groupBy): \(base.aggregates.map(\.name))"
            + (predicate.map { " where \($0)" } ?? "") + (having.map { " having \($0)" } ?? "")
    }

    /// The request, its predicates parsed.
    public func request() throws -> AggregateRequest {
        var request = base
        request.predicate = try predicate.map { try ObjectPredicate(format: $0) }
        request.having = try having.map { try ObjectPredicate(format: $0) }
        return request
    }
}
