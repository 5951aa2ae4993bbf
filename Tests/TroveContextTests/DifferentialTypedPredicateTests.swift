import Foundation
import Testing
import Trove
import TroveTesting

private typealias Photographer = Differential.Photographer
private typealias Photo = Differential.Photo
private typealias Tag = Differential.Tag
private typealias Thing = Differential.Thing

/// A typed predicate and the format string it stands for.
struct TypedPredicateCase: Sendable, CustomTestStringConvertible {
    var entity: String
    var format: String
    var arguments: [PredicateArgumentValue]
    /// The number of objects selected, counted by hand from ``DifferentialDataSet``'s tables.
    var count: Int
    /// Whether the translation is the very tree the format gives (else: the same objects).
    var sameTree: Bool
    var translate: @Sendable () throws -> ObjectPredicate
    var testDescription: String { "#Predicate<\(entity)> as \(format)" }
}

private func typed<T: EntityClass>(_ predicate: Predicate<T>, as format: String, _ arguments: any PredicateArgument..., count: Int,
                                   sameTree: Bool = true) -> TypedPredicateCase {
    TypedPredicateCase(entity: T.entityName, format: format, arguments: arguments.map(\.predicateArgumentValue), count: count,
                       sameTree: sameTree) { try ObjectPredicate(predicate) }
}

/// Foundation's `#Predicate` over the differential data set: the translation selects, through
/// SQL and in memory alike, what the format string selects, as many as counted by hand (and,
/// where the constructs match one for one, is the same tree).
@Suite struct DifferentialTypedPredicateTests {
    static let grace = "Grace Hopper"
    static let some: [String] = ["p1", "p3", "p99"]
    static let counts: [Int64] = [7, 42]

    static let cases: [TypedPredicateCase] = {
        let grace = Self.grace, some = Self.some, counts = Self.counts, oneOne = Decimal(11) / 10
        let epoch = DifferentialDataSet.unixEpoch
        return [
            // Comparisons: views p1 10, p2 0, p3 -5, p4 max, p5 min, p6 100, p7 7, p8 7, p9 42, p10 3, p11 10, p12 nil, p13 10
            typed(#Predicate<Photo> { $0.views == 10 }, as: "views == 10", count: 3),
            typed(#Predicate<Photo> { $0.views != 10 }, as: "views != 10", count: 10),
            typed(#Predicate<Photo> { ($0.views ?? 0) > 10 }, as: "views > 10", count: 3, sameTree: false),
            typed(#Predicate<Photo> { ($0.views ?? 0) < 7 }, as: "views < 7 OR views == nil", count: 5, sameTree: false),
            typed(#Predicate<Photo> { $0.views.flatMap { $0 <= 7 } ?? false }, as: "views <= 7", count: 6, sameTree: false),
            typed(#Predicate<Photo> { $0.views.flatMap { $0 >= 10 } == true }, as: "views >= 10", count: 6, sameTree: false),
            typed(#Predicate<Photo> { $0.views.flatMap { $0 >= 10 } == false }, as: "views < 10", count: 6, sameTree: false),
            typed(#Predicate<Photo> { $0.views.flatMap { $0 >= 10 } == nil }, as: "views == nil", count: 1, sameTree: false),
            typed(#Predicate<Photo> { $0.rating.flatMap { $0 > 0.3 } ?? false }, as: "rating > 0.3", count: 7, sameTree: false),
            typed(#Predicate<Photo> { ($0.views ?? 0) == -5 }, as: "views == -5", count: 1, sameTree: false),
            typed(#Predicate<Photo> { ($0.views ?? 0) == 2 * 5 }, as: "views == 10", count: 3, sameTree: false),
            typed(#Predicate<Photo> { $0.uniqueId > "p5" }, as: "uniqueId > 'p5'", count: 4),
            typed(#Predicate<Photographer> { $0.id == "ada" }, as: "id == 'ada'", count: 1),
            typed(#Predicate<Photographer> { $0.born == epoch }, as: "born == %@", epoch, count: 1),
            // Logic.
            typed(#Predicate<Photo> { $0.views == 10 || $0.views == 7 }, as: "views == 10 OR views == 7", count: 5),
            typed(#Predicate<Photo> { $0.views == 10 && $0.rating == 4 }, as: "views == 10 AND rating == 4", count: 2, sameTree: false),
            typed(#Predicate<Photo> { $0.views == 10 && $0.rating == 4 && $0.title != nil },
                  as: "views == 10 AND rating == 4 AND title != nil", count: 2, sameTree: false),
            typed(#Predicate<Photo> { $0.views == 10 && $0.uniqueId != "p1" && $0.title != nil },
                  as: "views == 10 AND uniqueId != 'p1' AND title != nil", count: 2),
            typed(#Predicate<Photo> { !($0.views == 10) }, as: "NOT views == 10", count: 10),
            typed(#Predicate<Photo> { _ in true }, as: "TRUEPREDICATE", count: 13),
            typed(#Predicate<Thing> { $0.booleanValue == true }, as: "booleanValue == TRUE", count: 2),
            typed(#Predicate<Thing> { $0.booleanValue ?? false }, as: "booleanValue == TRUE", count: 2, sameTree: false),
            // Nil and optional chains.
            typed(#Predicate<Photo> { $0.title == nil }, as: "title == nil", count: 1),
            typed(#Predicate<Photo> { $0.title != nil }, as: "title != nil", count: 12),
            typed(#Predicate<Photo> { $0.whoTook == nil }, as: "whoTook == nil", count: 1),
            typed(#Predicate<Photo> { $0.whoTook?.name == "Ada Lovelace" }, as: "whoTook.name == 'Ada Lovelace'", count: 2),
            typed(#Predicate<Photo> { $0.whoTook?.name == grace }, as: "whoTook.name == %@", grace, count: 3),
            typed(#Predicate<Photo> { $0.whoTook?.mentor?.name == "Ada Lovelace" }, as: "whoTook.mentor.name == 'Ada Lovelace'", count: 4),
            typed(#Predicate<Photo> { $0.whoTook?.mentor == nil }, as: "whoTook.mentor == nil", count: 8),
            typed(#Predicate<Photo> { $0.detail?.decimalValue == oneOne }, as: "detail.decimalValue == 1.1", count: 2,
                  sameTree: false),
            typed(#Predicate<Thing> { $0.photo?.whoTook?.name?.starts(with: "Ada") == true }, as: "photo.whoTook.name BEGINSWITH 'Ada'",
                  count: 2, sameTree: false),
            // Strings.
            typed(#Predicate<Photo> { $0.title?.contains("Sun") == true }, as: "title CONTAINS 'Sun'", count: 2, sameTree: false),
            typed(#Predicate<Photo> { $0.title?.starts(with: "Sun") ?? false }, as: "title BEGINSWITH 'Sun'", count: 2, sameTree: false),
            typed(#Predicate<Photo> { !($0.title?.contains("Sun") ?? true) }, as: "NOT title CONTAINS 'Sun' AND title != nil", count: 10,
                  sameTree: false),
            typed(#Predicate<Photo> { $0.uniqueId.contains("1") }, as: "uniqueId CONTAINS '1'", count: 5),
            typed(#Predicate<Photo> { $0.uniqueId.starts(with: "p1") }, as: "uniqueId BEGINSWITH 'p1'", count: 5),
            typed(#Predicate<Photo> { ($0.title ?? "").contains("Caf") }, as: "title CONTAINS 'Caf'", count: 1, sameTree: false),
            typed(#Predicate<Photo> { ($0.title ?? "untitled") == "untitled" }, as: "title == nil", count: 1, sameTree: false),
            // IN and ranges.
            typed(#Predicate<Photo> { some.contains($0.uniqueId) }, as: "uniqueId IN %@", some, count: 2),
            typed(#Predicate<Photo> { counts.contains($0.views ?? -1) }, as: "views IN {7, 42}", count: 3, sameTree: false),
            typed(#Predicate<Photo> { (1...10).contains($0.views ?? 0) }, as: "views BETWEEN {1, 10}", count: 6, sameTree: false),
            typed(#Predicate<Photo> { (0..<10).contains($0.views ?? -1) }, as: "views >= 0 AND views < 10", count: 4, sameTree: false),
            // To-many relationships.
            typed(#Predicate<Photo> { $0.tags.contains(where: { $0.name == "sky" }) }, as: "ANY tags.name == 'sky'", count: 4,
                  sameTree: false),
            typed(#Predicate<Photo> { $0.tags.isEmpty }, as: "tags.@count == 0", count: 5),
            typed(#Predicate<Photo> { $0.tags.count > 2 }, as: "tags.@count > 2", count: 1),
            typed(#Predicate<Photo> { !$0.tags.isEmpty && $0.tags.allSatisfy { $0.name == "nature" } }, as: "ALL tags.name == 'nature' AND tags.@count > 0",
                  count: 1, sameTree: false),
            typed(#Predicate<Photographer> { $0.photos.contains(where: { ($0.views ?? 0) > 50 }) }, as: "ANY photos.views > 50", count: 1,
                  sameTree: false),
            typed(#Predicate<Photographer> { $0.photos.allSatisfy { ($0.views ?? 0) > 5 } }, as: "ALL photos.views > 5", count: 10,
                  sameTree: false),
            typed(#Predicate<Photographer> { $0.photos.filter { $0.title?.contains("Sun") == true }.count >= 1 },
                  as: "ANY photos.title CONTAINS 'Sun'", count: 2, sameTree: false),
            typed(#Predicate<Photographer> { $0.photos.contains(where: { $0.tags.contains(where: { $0.name == "city" }) }) },
                  as: "SUBQUERY(photos, $p, ANY $p.tags.name == 'city').@count > 0", count: 3, sameTree: false),
            typed(#Predicate<Photographer> { $0.students.count == 2 }, as: "students.@count == 2", count: 2),
            typed(#Predicate<Tag> { $0.photos.filter { $0.whoTook?.name == "Ada Lovelace" }.isEmpty },
                  as: "NONE photos.whoTook.name == 'Ada Lovelace'", count: 5, sameTree: false),
        ]
    }()

    @Test(arguments: cases) func typedPredicates(_ test: TypedPredicateCase) throws {
        let store = try DifferentialStore(classes: Differential.classes)
        let typed = try test.translate()
        let format = try ObjectPredicate(format: test.format, arguments: test.arguments)
        if test.sameTree { #expect(typed == format, "\(typed) is \(format)") }
        let selected = try store.expectSameResults(test.entity, typed, expected: test.count)
        let byFormat = try store.sqlObjects(FetchRequest(entityName: test.entity, predicate: format))
        #expect(store.labels(selected) == store.labels(byFormat), "\(typed) selects as \(format) does")
    }

    /// The number of cases above, so that the suite cannot shrink unnoticed.
    @Test func atLeast50TypedPredicates() {
        #expect(Self.cases.count >= 50)
    }
}
