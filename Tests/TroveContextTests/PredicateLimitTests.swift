import Foundation
import Testing
import Trove
import TroveTesting

/// Predicates at ``PredicateLimits``, in the shapes that nest deepest in SQL, run on a store;
/// one step past a limit is refused before any SQL runs.
@Suite struct PredicateLimitTests {
    let dir: TemporaryDirectory
    let context: ObjectContext

    init() throws {
        let model = try Model {
            Entity("Photographer") {
                Attribute("name", .string)
                Relationship("photos", to: "Photo", toMany: true, inverse: "whoTook")
            }
            Entity("Photo") {
                Attribute("title", .string)
                Attribute("views", .integer64)
                Relationship("whoTook", to: "Photographer", inverse: "photos")
                Relationship("tags", to: "Tag", toMany: true, inverse: "photos")
            }
            Entity("Tag") {
                Attribute("name", .string)
                Relationship("photos", to: "Photo", toMany: true, inverse: "tags")
            }
        }
        dir = try TemporaryDirectory()
        context = try Container(model: model, url: dir.file("limits.trove")).newBackgroundContext()
        let ann = try context.insert("Photographer")
        try ann.setValue("Ann Ödegaard", forKey: "name")
        let tag = try context.insert("Tag")
        try tag.setValue("Straße", forKey: "name")
        let photo = try context.insert("Photo")
        try photo.setValue("Café", forKey: "title")
        try photo.setValue(7, forKey: "views")
        try photo.setRelatedObject(ann, forKey: "whoTook")
        try photo.setRelatedObjects([tag], forKey: "tags")
        try context.save()
    }

    func count(_ format: String, _ arguments: [any PredicateArgument] = []) throws -> Int {
        try context.count(for: FetchRequest(entityName: "Photo", predicate: ObjectPredicate(format: format, arguments: arguments)))
    }

    /// A comparison that costs SQL depth: a join, a function, folding.
    static func term(_ index: Int) -> String {
        switch index % 3 {
        case 0: "whoTook.name CONTAINS[cd] 'odeg\(index)'"
        case 1: "ANY tags.name ==[c] 'STRASSE\(index)'"
        default: "title MATCHES[cd] 'cafe\(index)'"
        }
    }

    /// `PredicateLimits.maximumDepth` groups, each first in its parent's chain (the deepest place
    /// in SQLite's left-deep tree), holding together `maximumTerms` comparisons.
    static func deepest(terms: Int) -> String {
        let depth = PredicateLimits.maximumDepth
        let innermost = (depth..<terms).map(term).joined(separator: " OR ")
        return (0..<depth).reversed().reduce(innermost) { inner, level in
            "(" + inner + (level % 2 == 0 ? " OR " : " AND ") + term(level) + ")"
        }
    }

    /// `SUBQUERY(tags, $v1, SUBQUERY($v1.photos, $v2, …).@count > 0).@count > 0`, `depth` deep.
    static func nestedSubqueries(_ depth: Int) -> String {
        var inner = depth % 2 == 0 ? "$v\(depth).views = 8" : "$v\(depth).name ==[c] 'x'"
        for level in stride(from: depth, through: 1, by: -1) {
            let collection = level == 1 ? "tags" : level % 2 == 0 ? "$v\(level - 1).photos" : "$v\(level - 1).tags"
            inner = "SUBQUERY(\(collection), $v\(level), \(inner)).@count > 0"
        }
        return inner
    }

    @Test func theDeepestPredicateRuns() throws {
        #expect(try count(Self.deepest(terms: PredicateLimits.maximumTerms)) == 0)
    }

    @Test func predicatesAtTheLimitsRun() throws {
        let chain = (0..<PredicateLimits.maximumTerms - 1).map(Self.term).joined(separator: " OR ") + " OR views = 7"
        #expect(try count(chain) == 1)
        let notChain = String(repeating: "NOT (", count: PredicateLimits.maximumDepth - 1) + "NOT views = 8"
            + String(repeating: ")", count: PredicateLimits.maximumDepth - 1)
        #expect(try count(notChain) == (PredicateLimits.maximumDepth % 2 == 0 ? 0 : 1))
        let values = (0..<PredicateLimits.maximumValues - 1).map { Int64($0) + 100 }
        #expect(try count("views IN %@ OR views = 7", [values]) == 1)
    }

    @Test func nestedSubqueriesAtTheLimitRun() throws {
        #expect(try count(Self.nestedSubqueries(PredicateLimits.maximumDepth / PredicateLimits.subqueryDepth)) == 0)
    }

    @Test func sortKeysAtTheLimitRun() throws {
        let sort = (0..<PredicateLimits.maximumSortKeys).map { SortKey($0 % 2 == 0 ? "title" : "whoTook.name", comparison: .caseInsensitive) }
        #expect(try context.fetch(FetchRequest(entityName: "Photo", sortDescriptors: sort)).count == 1)
    }

    @Test func onePastALimitIsRefusedBeforeAnySQLRuns() throws {
        let terms = #expect(throws: ObjectPredicateError.self) { try count(Self.deepest(terms: PredicateLimits.maximumTerms + 1)) }
        #expect(terms?.code == .tooLarge)
        #expect(terms?.message == "the predicate has more than 500 comparisons; use IN {…} for many values of one key, or split the request")
        let values = (0...PredicateLimits.maximumValues).map { Int64($0) }
        let tooMany = #expect(throws: ObjectPredicateError.self) { try count("views IN %@", [values]) }
        #expect(tooMany?.message == "the predicate has more than 20000 values; split the request")
        let sort = Array(repeating: SortKey("title"), count: PredicateLimits.maximumSortKeys + 1)
        let keys = #expect(throws: ObjectPredicateError.self) { try context.fetch(FetchRequest(entityName: "Photo", sortDescriptors: sort)) }
        #expect(keys?.message == "the sort list has 33 keys, more than the 32 allowed; sort by fewer keys")
        // Built in code, deeper than the parser allows: refused by the check, not a stack overflow.
        var node = ObjectPredicate.Node.comparison(.init(.keyPath(.init(["views"])), .equal, .value(.integer(7))))
        for _ in 0..<1_000 { node = .not(node) }
        let deep = #expect(throws: ObjectPredicateError.self) {
            try context.count(for: FetchRequest(entityName: "Photo", predicate: ObjectPredicate(root: node, format: nil)))
        }
        #expect(deep?.message == "the predicate nests deeper than 24 levels of NOT, AND/OR groups and SUBQUERY (which counts 4); write it with less nesting")
        let subqueries = Self.nestedSubqueries(PredicateLimits.maximumDepth / PredicateLimits.subqueryDepth + 1)
        #expect(throws: ObjectPredicateError.self) { try count(subqueries) }
    }
}
