import Foundation
import GRDB
import Testing
@testable import TroveStore
import TroveModel
import TroveTesting

/// Custom migration stages (issue 19, item 2): a plan of three versions, code that splits a name
/// and turns a string into a relationship, a store several versions behind, and failures that
/// leave the store as it was.
@Suite struct MigrationStageTests {
    /// The city of v2 and v3.
    static let city = Entity("City", uniqueBy: [["name"]]) {
        Attribute("name", .string, optional: false)
        Relationship("people", to: "Person", toMany: true, inverse: "home")
    }
    /// v1: a person with a `name` and a `city` string.
    static let v1 = try! Model(entities: [
        Entity("Person", uniqueBy: [["id"]]) {
            Attribute("id", .string, optional: false)
            Attribute("name", .string)
            Attribute("city", .string)
        },
    ])
    /// v2: `first`, `last` and a `home` relationship to a new `City`, next to what v1 had.
    static let v2 = try! Model(entities: [
        Entity("Person", uniqueBy: [["id"]]) {
            Attribute("id", .string, optional: false)
            Attribute("name", .string)
            Attribute("city", .string)
            Attribute("first", .string)
            Attribute("last", .string)
            Relationship("home", to: "City", inverse: "people")
        },
        city,
    ])
    /// v3: `name` and `city` gone.
    static let v3 = try! Model(entities: [
        Entity("Person", uniqueBy: [["id"]]) {
            Attribute("id", .string, optional: false)
            Attribute("first", .string)
            Attribute("last", .string)
            Relationship("home", to: "City", inverse: "people")
        },
        city,
    ])

    /// v1 → v2 splits `name` and makes a `City` of each `city`; v2 → v3 drops the old attributes.
    static func plan(failing: Bool = false, failingBefore: Bool = false) throws -> ModelMigrationPlan {
        try ModelMigrationPlan([
            .custom(from: v1, to: v2, willMigrate: { context in
                if failingBefore { throw StoreError(.constraintViolation, "a test stage refused before the change") }
                #expect(context.model.entity(named: "City") == nil)
            }, didMigrate: { context in
                var cities: [String: Int64] = [:]
                try context.forEachRow(of: "Person") { person in
                    if case .string(let name) = person["name"] {
                        let parts = name.split(separator: " ", maxSplits: 1).map { AttributeValue.string(String($0)) }
                        try context.update("Person", person.key, ["first": parts.first ?? .null, "last": parts.dropFirst().first ?? .null])
                    }
                    guard case .string(let city) = person["city"] else { return }
                    let key = try cities[city] ?? context.insert("City", ["name": .string(city)])
                    cities[city] = key
                    try context.link("Person", person.key, "home", to: key)
                }
                if failing { throw StoreError(.constraintViolation, "a test stage refused after the change") }
            }),
            .lightweight(from: v2, to: v3),
        ])
    }

    static let people: [[String: AttributeValue]] = [
        ["id": "p1", "name": "Ann Lee", "city": "Oslo"],
        ["id": "p2", "name": "Bo", "city": "Lima"],
        ["id": "p3", "name": nil, "city": "Oslo"],
        ["id": "p4", "name": "Cy de la Cruz", "city": nil],
    ]

    func v1Store() throws -> MigrationFixture {
        let fixture = try MigrationFixture(Self.v1)
        for person in Self.people { try fixture.insert("Person", person, model: Self.v1) }
        return fixture
    }

    func open(_ fixture: MigrationFixture, _ plan: ModelMigrationPlan, progress: MigrationProgress.Handler? = nil) throws -> SQLiteStore {
        try SQLiteStore(url: fixture.url, model: plan.models.last ?? Self.v3,
                        options: .init(migration: .staged(plan, keepingBackup: false), migrationProgress: progress))
    }

    @Test func aStoreTwoVersionsBehindRunsEveryStageAndEndsWithEveryNewValue() throws {
        let fixture = try v1Store()
        let store = try open(fixture, try Self.plan())
        #expect(try fixture.objects("Person", model: Self.v3) == [
            ["id": "p1", "first": "Ann", "last": "Lee"], ["id": "p2", "first": "Bo", "last": nil],
            ["id": "p3", "first": nil, "last": nil], ["id": "p4", "first": "Cy", "last": "de la Cruz"],
        ])
        #expect(try fixture.objects("City", model: Self.v3) == [["name": "Oslo"], ["name": "Lima"]])
        #expect(try fixture.related("home", of: "Person", pk: 1, model: Self.v3) == [1])
        #expect(try fixture.related("home", of: "Person", pk: 2, model: Self.v3) == [2])
        #expect(try fixture.related("people", of: "City", pk: 1, model: Self.v3) == [1, 3])
        #expect(try fixture.related("home", of: "Person", pk: 4, model: Self.v3) == [])
        let history = try store.modelHistory()
        #expect(history.map(\.version) == [Self.v1.versionHash, Self.v2.versionHash, Self.v3.versionHash])
        #expect(try StoreIntegrity.problems(ofStoreAt: fixture.url) == [])
        let fresh = try MigrationFixture(Self.v3)
        #expect(try MigrationFixture.shape(of: fixture.url) == MigrationFixture.shape(of: fresh.url))
    }

    /// `SQLiteStore.migrate(storeAt:using:)`, the plan run without opening the store, does what
    /// opening with the plan does, says what ran, and then has nothing to do.
    @Test func migratingWithAPlanDoesWhatOpeningWithItDoes() throws {
        let opened = try v1Store()
        _ = try open(opened, try Self.plan())
        let migrated = try v1Store()
        let outcome = try SQLiteStore.migrate(storeAt: migrated.url, using: try Self.plan())
        #expect(outcome.stages.count == 2)
        #expect(outcome.stages.map(\.toVersion) == [Self.v2.versionHash, Self.v3.versionHash])
        #expect(outcome.backupURL.map { FileManager.default.fileExists(atPath: $0.path) } == true)
        for entity in ["Person", "City"] {
            #expect(try migrated.objects(entity, model: Self.v3) == opened.objects(entity, model: Self.v3))
        }
        #expect(try SQLiteStore(url: migrated.url).modelHistory().map(\.version) == [Self.v1.versionHash, Self.v2.versionHash, Self.v3.versionHash])
        let again = try SQLiteStore.migrate(storeAt: migrated.url, using: try Self.plan(), keepingBackup: false)
        #expect(again.migration.steps.isEmpty && again.backupURL == nil)
    }

    @Test func aStoreOneVersionBehindRunsOnlyTheLastStage() throws {
        let fixture = try MigrationFixture(Self.v2)
        try fixture.insert("Person", ["id": "p1", "name": "Ann Lee", "first": "Ann"], model: Self.v2)
        let store = try open(fixture, try Self.plan())
        #expect(try fixture.objects("Person", model: Self.v3) == [["id": "p1", "first": "Ann", "last": nil]])
        #expect(try store.modelHistory().map(\.version) == [Self.v2.versionHash, Self.v3.versionHash])
        // Opened again: nothing to do.
        #expect(try open(fixture, try Self.plan()).modelHistory().count == 2)
    }

    @Test(arguments: [false, true])
    func aStageThatThrowsLeavesTheStoreExactlyAsItWas(before: Bool) throws {
        let fixture = try v1Store()
        let before = before
        let snapshot = try fixture.snapshot()
        #expect {
            _ = try open(fixture, try Self.plan(failing: !before, failingBefore: before))
        } throws: { error in
            (error as? StoreError)?.message.contains("a test stage refused") == true
        }
        #expect(try fixture.snapshot() == snapshot)
        #expect(try fixture.objects("Person", model: Self.v1).count == 4, "the store still opens with the old model")
    }

    @Test func aWriteThatBreaksTheNewModelEndsTheMigrationWithNothingChanged() throws {
        let fixture = try v1Store()
        let snapshot = try fixture.snapshot()
        let cases: [(MigrationStage.Body, String)] = [
            ({ try $0.insert("City", [:]) }, "City.name is required"),
            ({ try $0.update("Person", 1, ["first": 3]) }, "Person.first: expected a value of type string"),
            ({ try $0.update("Person", 99, ["first": "x"]) }, "no Person row with key 99"),
            ({ try $0.update("Person", 1, ["nickname": "x"]) }, "Person has no stored attribute 'nickname'"),
            ({ try $0.link("Person", 1, "home", to: 42) }, "no City row with key 42"),
            ({ try $0.forEachRow(of: "Town") { _ in } }, "has no entity 'Town'"),
        ]
        for (body, message) in cases {
            let plan = try ModelMigrationPlan([.custom(from: Self.v1, to: Self.v2, didMigrate: body)])
            #expect(performing: { _ = try open(fixture, plan) }, throws: { error in
                String(describing: error).contains(message)
            })
            #expect(try fixture.snapshot() == snapshot, "after \(message)")
        }
    }

    @Test func aStoreWhoseModelThePlanDoesNotListIsRefused() throws {
        let other = try Model(entities: [Entity("Other") { Attribute("x", .string) }])
        let fixture = try MigrationFixture(other)
        #expect(performing: { _ = try open(fixture, try Self.plan()) }, throws: { error in
            (error as? StoreError)?.code == .modelMismatch && "\(error)".contains("does not list")
        })
        #expect(performing: { _ = try ModelMigrationPlan([.lightweight(from: Self.v1, to: Self.v2), .lightweight(from: Self.v1, to: Self.v3)]) },
                throws: { "\($0)".contains("stage 2 of the migration plan starts from model") })
        #expect(performing: { _ = try ModelMigrationPlan([]) }, throws: { "\($0)".contains("at least one stage") })
        // The plan must end with the model the store is opened with.
        let v1Store = try v1Store()
        #expect(performing: {
            _ = try SQLiteStore(url: v1Store.url, model: Self.v2, options: .init(migration: .staged(try Self.plan(), keepingBackup: false)))
        }, throws: { "\($0)".contains("the migration plan ends with model") })
    }

    @Test func progressCountsEveryRowOfEachTableAndEndsFinished() throws {
        let fixture = try v1Store()
        // 45,000 more people: a rebuilt table is copied in three statements.
        let queue = try DatabaseQueue(path: fixture.url.path)
        try queue.write { db in
            try db.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 45000)
                INSERT INTO Person (id, name) SELECT 'x' || i, 'X ' || i FROM n
                """)
        }
        try queue.close()
        let reports = Locked<[MigrationProgress]>([])
        _ = try open(fixture, try ModelMigrationPlan([.lightweight(from: Self.v1, to: Self.v3)])) { progress in
            reports.withLock { $0.append(progress) }
        }
        let all = reports.withLock { $0 }
        let last = try #require(all.last)
        #expect(last.isFinished && last.fractionCompleted == 1)
        #expect(last.totalRows == 45_004 && last.rowsWritten == 45_004)
        #expect(all.filter { $0.table == "Person" }.map(\.tableRowsWritten) == [20_000, 40_000, 45_004, 45_004])
        #expect(all.map(\.rowsWritten) == all.map(\.rowsWritten).sorted(), "rows only grow")
    }
}
