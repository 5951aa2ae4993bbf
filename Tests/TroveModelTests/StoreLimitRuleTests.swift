import Foundation
import Testing
import TroveModel

/// Limits of SQLite that a model would reach only when its store is created: found by model
/// validation instead, with the limit and the path in the model file.
@Suite struct StoreLimitRuleTests {
    private func attributes(_ count: Int, prefix: String = "a") -> [Attribute] {
        (0..<count).map { Attribute("\(prefix)\($0)", .string) }
    }

    @Test func anEntityOfMoreColumnsThanSQLiteAllowsIsRefused() {
        let issues = modelIssues([Entity("Small"), Entity("Wide", attributes: attributes(3_000))])
        #expect(issues.map(\.description) == [
            "entities[1]: entity 'Wide' need 3002 columns in their table (3000 stored attributes, 0 to-one"
                + " relationships, 2 of Trove's own), more than the 2000 SQLite allows; move attributes into a related entity",
        ])
    }

    @Test func theLimitCountsTroveColumnsToOnesAndTheWholeHierarchy() {
        // 2 own columns + 1997 attributes + 1 to-one = 2000: fits.
        let fits = Entity("Wide", attributes: attributes(1_997), relationships: [Relationship("other", to: "Wide")])
        #expect(modelIssues([fits]).filter { $0.severity == .error }.isEmpty)
        // One sub-entity adds `_entity` and its attribute: 2002.
        let issues = modelIssues([fits, Entity("Sub", parent: "Wide", attributes: [Attribute("extra", .string)])])
        #expect(issues.map(\.description) == [
            "entities[0]: entity 'Wide' and its 1 sub-entities need 2002 columns in their table (1998 stored attributes,"
                + " 1 to-one relationships, 3 of Trove's own), more than the 2000 SQLite allows; move attributes into a related entity",
        ])
    }

    @Test func transientAttributesAndToManyRelationshipsTakeNoColumn() {
        let entity = Entity("Wide", attributes: attributes(1_998) + [Attribute("scratch", .string, transient: true)],
                            relationships: [Relationship("others", to: "Wide", toMany: true)])
        #expect(modelIssues([entity]).filter { $0.severity == .error }.isEmpty)
    }

    @Test(arguments: ["sqlite_x", "SQLITE_stat1", "Sqlite_master"])
    func entityNamesSQLiteReservesAreRefused(name: String) {
        let issues = fileIssues(#"{ "entities": [ { "name": "Photo" }, { "name": "\#(name)" } ] }"#)
        #expect(issues.map(\.description) == [
            "entities[1].name: entity name '\(name)' starts with 'sqlite_', which SQLite reserves for its own tables"
                + " (ignoring case); rename the entity",
        ])
    }

    @Test func aNameThatOnlyContainsSqliteIsFine() {
        #expect(fileIssues(#"{ "entities": [ { "name": "mysqlite_x" }, { "name": "sqlite" } ] }"#).isEmpty)
    }
}
