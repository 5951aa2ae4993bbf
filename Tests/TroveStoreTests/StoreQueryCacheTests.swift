import Foundation
import Testing
@testable import TroveStore
import TroveModel
import TrovePredicate
import TroveTesting

/// The cache of checked queries must give exactly what checking gives: the same checked query,
/// or the same error, for every request.
@Suite struct StoreQueryCacheTests {
    let model: Model
    let keys: [String]

    init() throws {
        model = try SampleModels.everyType()
        keys = AttributeType.allCases.map { $0.rawValue + "Value" }
    }

    /// A deterministic generator (xorshift), so that a failure repeats.
    struct Random {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
        mutating func pick<T>(_ items: [T]) -> T { items[next(items.count)] }
    }

    /// Constants of every kind, with strings that coerce to some types and not to others, and
    /// patterns that are and are not regular expressions.
    static let constants: [AttributeValue] = [
        .null, .string("abc"), .string("2011-07-23T22:30:40Z"), .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
        .string("https://example.com/a"), .string("x"), .string("(unclosed"), .string("a.*b"), .string("12"),
        .integer(0), .integer(70_000), .integer(-3), .double(1.5), .double(2), .decimal(Decimal(string: "1.25") ?? 0),
        .boolean(true), .date(Date(timeIntervalSinceReferenceDate: 100)),
        .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))), .character("q"),
    ]

    func comparison(_ random: inout Random) -> (format: String, arguments: Int, isList: [Bool]) {
        let key = random.pick(keys)
        switch random.next(6) {
        case 0: return ("\(key) \(random.pick(["==", "!=", "<", ">=", "CONTAINS[c]", "BEGINSWITH", "LIKE", "MATCHES"])) %@", 1, [false])
        case 1: return ("%@ \(random.pick(["==", "<"])) \(key)", 1, [false])
        case 2: return ("\(key) IN %@", 1, [true])
        case 3: return ("\(key) BETWEEN %@", 1, [true])
        case 4: return ("\(key) == nil", 0, [])
        default: return ("\(key) > %@ AND \(random.pick(keys)) != %@", 2, [false, false])
        }
    }

    @Test func aCachedQueryIsWhatCheckingGivesForRandomRequests() throws {
        var random = Random(state: 0x9E37_79B9_7F4A_7C15)
        // A few formats, run many times with constants of varying kinds and values.
        let formats = (0..<40).map { _ in
            let parts = (0..<(1 + random.next(2))).map { _ in comparison(&random) }
            let joined = parts.map(\.format).joined(separator: random.pick([" AND ", " OR "]))
            return (format: random.next(4) == 0 ? "NOT (\(joined))" : joined, isList: parts.flatMap(\.isList))
        }
        let cache = StoreQueryCache()
        var successes = 0, failures = 0
        for trial in 0..<5000 {
            let (format, isList) = random.pick(formats)
            var arguments: [any PredicateArgument] = []
            for list in isList {
                if list {
                    arguments.append((0..<(1 + random.next(3))).map { _ in random.pick(Self.constants) })
                } else {
                    arguments.append(random.pick(Self.constants))
                }
            }
            var request = FetchRequest(entityName: "Thing", predicate: try ObjectPredicate(format: format, arguments: arguments),
                                       sortDescriptors: random.next(2) == 0 ? [SortKey("integer64Value", ascending: false)] : [])
            request.fetchLimit = random.next(3)
            request.fetchOffset = random.next(2)
            let expected = Result { try StoreQuery(request, model: model) }
            let cached = Result { try cache.query(for: request, model: model) }
            switch (expected, cached) {
            case (.success(let a), .success(let b)):
                #expect(a.predicate == b.predicate && a.sortDescriptors == b.sortDescriptors && a.limit == b.limit
                        && a.offset == b.offset && a.entity.name == b.entity.name, "trial \(trial): \(format) \(arguments)")
                successes += 1
            case (.failure(let a), .failure(let b)):
                #expect("\(a)" == "\(b)", "trial \(trial): \(format) \(arguments)")
                failures += 1
            default:
                Issue.record("trial \(trial): \(format) \(arguments): checking gave \(expected), the cache \(cached)")
            }
        }
        #expect(cache.hits > 400, "requests that repeat a shape are answered from the cache (\(cache.hits) were)")
        #expect(successes > 300 && failures > 300, "both outcomes are exercised (\(successes) checked, \(failures) refused)")
    }

    @Test func aConstantThatDoesNotCoerceGivesCheckingsError() throws {
        let cache = StoreQueryCache()
        func request(_ value: String) throws -> FetchRequest {
            FetchRequest(entityName: "Thing", predicate: try ObjectPredicate(format: "dateValue > %@", value))
        }
        _ = try cache.query(for: request("2011-07-23T22:30:40Z"), model: model)
        #expect(throws: ObjectPredicateError.self) { try cache.query(for: request("yesterday"), model: model) }
        let checked = try cache.query(for: request("2012-01-01T00:00:00Z"), model: model)
        #expect(checked.predicate?.root == (try StoreQuery(request("2012-01-01T00:00:00Z"), model: model)).predicate?.root)
    }

    @Test func anInvalidPatternForMatchesIsRefusedFromTheCacheToo() throws {
        let cache = StoreQueryCache()
        func request(_ pattern: String) throws -> FetchRequest {
            FetchRequest(entityName: "Thing", predicate: try ObjectPredicate(format: "stringValue MATCHES %@", pattern))
        }
        _ = try cache.query(for: request("a.*"), model: model)
        #expect(throws: ObjectPredicateError.self) { try cache.query(for: request("(unclosed"), model: model) }
    }
}
