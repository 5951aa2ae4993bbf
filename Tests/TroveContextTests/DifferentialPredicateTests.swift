import Foundation
import Testing
import Trove
import TroveTesting

/// Every predicate runs through SQL (`context.fetch`) and in memory (`CheckedPredicate.evaluate`)
/// over ``DifferentialDataSet``; both must select the same objects, and as many as counted by
/// hand from the data set's tables (the counts catch both evaluators being wrong alike).
@Suite struct DifferentialPredicateTests {
    // MARK: Operators


    @Test(arguments: DifferentialPredicates.operators) func comparisonOperators(_ test: PredicateCase) throws {
        try check(test)
    }

    // MARK: Logic and nil


    @Test(arguments: DifferentialPredicates.logic) func logicAndNil(_ test: PredicateCase) throws {
        try check(test)
    }

    // MARK: Strings


    @Test(arguments: DifferentialPredicates.strings) func stringOperators(_ test: PredicateCase) throws {
        try check(test)
    }

    // MARK: Dates


    @Test(arguments: DifferentialPredicates.dates) func dateComparisons(_ test: PredicateCase) throws {
        try check(test)
    }

    // MARK: Every attribute type


    @Test(arguments: DifferentialPredicates.everyType) func everyAttributeType(_ test: PredicateCase) throws {
        try check(test)
    }

    // MARK: Key against key, key paths through to-one


    @Test(arguments: DifferentialPredicates.keyPaths) func keysAndToOnePaths(_ test: PredicateCase) throws {
        try check(test)
    }

    // MARK: To-many: ANY, ALL, NONE


    @Test(arguments: DifferentialPredicates.quantifiers) func toManyQuantifiers(_ test: PredicateCase) throws {
        try check(test)
    }

    // MARK: Aggregates and SUBQUERY


    @Test(arguments: DifferentialPredicates.aggregates) func aggregatesAndSubqueries(_ test: PredicateCase) throws {
        try check(test)
    }

    // MARK: Running

    private func check(_ test: PredicateCase) throws {
        let store = try DifferentialStore()
        try store.expectSameResults(test.entity, test.predicate(), expected: test.expected)
    }

    /// The number of cases above, so that the suite cannot shrink unnoticed.
    @Test func atLeast150Predicates() {
        #expect(DifferentialPredicates.all.count >= 150)
    }
}
