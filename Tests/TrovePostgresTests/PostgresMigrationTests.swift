import Foundation
import Testing
import Trove
import TrovePostgres
import TroveTesting

/// Migrating a database: the same plan and the same objects, keys included, as migrating a store
/// file seeded alike; the database as it was when the migration cannot run; and the stores
/// other processes opened with the old model refused their next write.
@Suite(.enabled(if: PostgresServer.isConfigured, PostgresServer.skipMessage))
struct PostgresMigrationTests {
    /// People (and employees, a sub-entity: a table with `_entity`), their pets, and tags
    /// (many-to-many, and an ordered favourites list: join tables).
    /// With `nicknameRequired`, a version that cannot be migrated to: most people have none.
    static func oldModel(nicknameRequired: Bool = false) throws -> Model {
        try Model {
            Entity("Person") {
                Attribute("name", .string, optional: false)
                Attribute("nickname", .string, optional: !nicknameRequired)
                Attribute("age", .integer32)
                Attribute("score", .double)
                Attribute("born", .date)
                Attribute("photo", .binary)
                Attribute("balance", .decimal)
                Relationship("pets", to: "Pet", toMany: true, inverse: "owner", deleteRule: .cascade)
                Relationship("tags", to: "Tag", toMany: true, inverse: "people")
                Relationship("favourites", to: "Tag", toMany: true, ordered: true)
            }
            Entity("Employee", parent: "Person") {
                Attribute("salary", .decimal)
            }
            Entity("Pet") {
                Attribute("name", .string)
                Relationship("owner", to: "Person", inverse: "pets")
            }
            Entity("Tag", uniqueBy: [["label"]]) {
                Attribute("label", .string, optional: false)
                Attribute("note", .string)
                Relationship("people", to: "Person", toMany: true, inverse: "tags")
            }
        }
    }

    /// The next version: an attribute added, one renamed, one widened, one removed, one required
    /// with a default (some rows are nil), and `Pet` renamed `Animal`; with `extra`, a version
    /// after it (one more attribute).
    static func newModel(extra: Bool = false) throws -> Model {
        try Model {
            Entity("Person") {
                Attribute("name", .string, optional: false)
                Attribute("alias", .string, renamedFrom: "nickname")
                Attribute("age", .integer64)
                Attribute("score", .double)
                Attribute("born", .date)
                Attribute("balance", .decimal)
                Attribute("email", .string)
                Attribute("level", .integer16, optional: false, default: 3)
                Relationship("pets", to: "Animal", toMany: true, inverse: "owner", deleteRule: .cascade)
                Relationship("tags", to: "Tag", toMany: true, inverse: "people")
                Relationship("favourites", to: "Tag", toMany: true, ordered: true)
            }
            Entity("Employee", parent: "Person") {
                Attribute("salary", .decimal)
            }
            Entity("Animal", renamedFrom: "Pet") {
                Attribute("name", .string)
                Relationship("owner", to: "Person", inverse: "pets")
            }
            Entity("Tag", uniqueBy: [["label"]]) {
                Attribute("label", .string, optional: false)
                Attribute("note", .string, optional: false, default: "none")
                if extra { Attribute("extra", .string) }
                Relationship("people", to: "Person", toMany: true, inverse: "tags")
            }
        }
    }

    /// The same objects, saved in the same order, in either store; one pet deleted after, so
    /// that its key must never be given again.
    static func seed(_ store: any PersistentStore) throws {
        let context = try Container(store: store).newBackgroundContext()
        var tags: [ManagedObject] = []
        for (label, note) in [("Café", "accented"), ("cafe", nil), ("ÉTÉ", nil)] as [(String, String?)] {
            let tag = try context.insert("Tag")
            try tag.setValue(AttributeValue.string(label), forKey: "label")
            if let note { try tag.setValue(AttributeValue.string(note), forKey: "note") }
            tags.append(tag)
        }
        for n in 0..<12 {
            let person = try context.insert(n % 3 == 0 ? "Employee" : "Person")
            try person.setValue(AttributeValue.string("Person \(n) Ünïcode"), forKey: "name")
            if n % 2 == 0 { try person.setValue(AttributeValue.string("nick \(n)"), forKey: "nickname") }
            try person.setValue(AttributeValue.integer(Int64(n * 1000 - 5000)), forKey: "age")
            try person.setValue(AttributeValue.double(Double(n) / 7), forKey: "score")
            try person.setValue(AttributeValue.date(Date(timeIntervalSinceReferenceDate: 333_333_333.123_456_789 + Double(n))), forKey: "born")
            try person.setValue(AttributeValue.binary(Data([0, UInt8(n), 255])), forKey: "photo")
            try person.setValue(AttributeValue.decimal(Decimal(string: "12345678901234567890.12345\(n)") ?? 0), forKey: "balance")
            if n % 3 == 0 { try person.setValue(AttributeValue.decimal(Decimal(n) * 1000), forKey: "salary") }
            for p in 0..<(n % 3) {
                let pet = try context.insert("Pet")
                try pet.setValue(AttributeValue.string("pet \(n).\(p)"), forKey: "name")
                _ = try pet.setRelatedObject(person, forKey: "owner")
            }
            try person.setRelatedObjects([tags[n % 3], tags[(n + 1) % 3]], forKey: "tags")
            try person.setRelatedObjects([tags[(n + 2) % 3], tags[n % 3]], forKey: "favourites")
        }
        try context.save()
        // The last pet inserted: the one of the highest key.
        let last = try context.fetch(FetchRequest(entityName: "Pet", predicate: try ObjectPredicate(format: "name == 'pet 11.1'")))
        try context.delete(try #require(last.first))
        try context.save()
        _ = try store.save(ChangeSet(metadata: ["app.syncedUpTo": "42"]))
    }

    /// A database and a store file (`store.trove` in the folder) of the old model, seeded alike.
    static func seededAlike() throws -> (TemporaryDatabase, TemporaryDirectory) {
        let database = try TemporaryDatabase()
        let dir = try TemporaryDirectory()
        try seed(SQLiteStore(url: dir.file("store.trove"), model: oldModel()))
        try seed(PostgresStore(location: database.location, model: oldModel()))
        return (database, dir)
    }

    @Test func aDatabaseMigratesAsAStoreFileDoes() throws {
        let (database, dir) = try Self.seededAlike()
        let file = dir.file("store.trove")
        let (old, new) = (try Self.oldModel(), try Self.newModel())
        #expect(try StoreIntegrity.objects(in: PostgresStore(location: database.location)) == StoreIntegrity.objects(in: SQLiteStore(url: file)), "seeded alike")
        let counterBefore = try Self.counter(PostgresStore(location: database.location))

        let filePlan = try SQLiteStore.migrationPlan(forStoreAt: file, to: new)
        let databasePlan = try PostgresStore.migrationPlan(at: database.location, to: new)
        #expect(databasePlan.steps.map(\.description) == filePlan.steps.map(\.description))
        #expect(databasePlan.rowsRewritten == filePlan.rowsRewritten && databasePlan.rowsRewritten > 0)
        #expect(databasePlan.blockers.isEmpty)

        let fileOutcome = try SQLiteStore.migrate(storeAt: file, to: new, keepingBackup: false)
        let outcome = try PostgresStore.migrate(at: database.location, to: new)
        #expect(outcome.migration.steps.map(\.description) == fileOutcome.migration.steps.map(\.description))
        #expect(outcome.backupSchema == "trove_backup_" + old.versionHash.prefix(16).lowercased())
        #expect(outcome.backupURL == nil)

        let migrated = try PostgresStore(location: database.location)
        #expect(migrated.model.versionHash == new.versionHash, "the database keeps the new model")
        let fileStore = try SQLiteStore(url: file)
        let snapshot = try StoreIntegrity.objects(in: migrated)
        #expect(snapshot == (try StoreIntegrity.objects(in: fileStore)))
        #expect(snapshot.count == 3 + 12 + 11)
        #expect(snapshot.contains { $0.contains("alias=\"nick 4\"") && $0.contains("level=3") && $0.contains("born=date(333333337.12345") }, "\(snapshot)")
        #expect(try migrated.metadata()["app.syncedUpTo"] == "42")
        #expect(try migrated.metadata()["trove.formatVersion"] == "2")
        #expect(try Self.counter(migrated) == counterBefore + 1, "the change counter goes on, raised once")

        // Text attributes keep their forms for [cd] and sorts; keys go on where they were.
        let context = try Container(store: migrated).newBackgroundContext()
        let fileContext = try Container(store: fileStore).newBackgroundContext()
        for format in ["label ==[cd] 'cafe'", "label BEGINSWITH[c] 'é'", "ANY people.alias ==[c] 'NICK 4'"] {
            let request = FetchRequest(entityName: "Tag", predicate: try ObjectPredicate(format: format))
            #expect(try context.count(for: request) == fileContext.count(for: request), "\(format)")
        }
        let sorted = FetchRequest(entityName: "Person", sortDescriptors: try SortKey.parse("alias:localized,name"))
        #expect(try context.fetchObjectIDs(sorted) == fileContext.fetchObjectIDs(sorted))
        for c in [context, fileContext] {
            let animal = try c.insert("Animal")
            try animal.setValue("new", forKey: "name")
            try c.save()
        }
        let newest = FetchRequest(entityName: "Animal", predicate: try ObjectPredicate(format: "name == 'new'"))
        #expect(try context.fetchObjectIDs(newest).map { "\($0)" } == fileContext.fetchObjectIDs(newest).map { "\($0)" },
                "the deleted pet's key is not given again")

        // The old tables, as they were, in the backup schema.
        let backup = try #require(outcome.backupSchema)
        let kept = try migrated.query("SELECT (SELECT value FROM \"\(backup)\"._trove_metadata WHERE key = 'trove.modelHash'), (SELECT count(*) FROM \"\(backup)\".\"Pet\")")
        let (hash, pets) = try #require(try kept.rows.first?.decode((String, Int64).self))
        #expect(hash == old.versionHash && pets == 11)
    }

    /// The store's change counter.
    static func counter(_ store: PostgresStore) throws -> Int64 {
        try store.query("SELECT counter FROM _trove_changes").rows.first?.decode(Int64.self) ?? -1
    }

    /// A plan with code: the same rows on a database as on a file, the new tag's key included;
    /// and a stage that throws leaves the database as it was.
    @Test func customStagesRunOnADatabaseAsOnAFile() throws {
        let (database, dir) = try Self.seededAlike()
        let file = dir.file("store.trove")
        let (old, new) = (try Self.oldModel(), try Self.newModel())
        let plan = try ModelMigrationPlan([.custom(from: old, to: new, didMigrate: { context in
            try context.forEachRow(of: "Person") { person in
                guard case .string(let name) = person["name"] else { return }
                try context.update("Person", person.key, ["email": .string(name.lowercased().replacingOccurrences(of: " ", with: ".") + "@example.com")])
            }
            let tag = try context.insert("Tag", ["label": "staged", "note": "made by a stage"])
            try context.link("Person", 1, "tags", to: tag)
        })])
        let fileOutcome = try SQLiteStore.migrate(storeAt: file, using: plan)
        let outcome = try PostgresStore.migrate(at: database.location, using: plan, keepingBackup: false)
        #expect(outcome.stages.map(\.description) == fileOutcome.stages.map(\.description))
        let snapshot = try StoreIntegrity.objects(in: PostgresStore(location: database.location))
        #expect(snapshot == (try StoreIntegrity.objects(in: SQLiteStore(url: file))))
        #expect(snapshot.contains { $0.hasPrefix("Tag/4 label=\"staged\"") && $0.contains("people=[\"Employee/1\"]") }, "\(snapshot)")
        #expect(snapshot.contains { $0.contains("email=\"person.3.ünïcode@example.com\"") })

        struct Refused: Error {}
        let failing = try ModelMigrationPlan([.custom(from: new, to: Self.newModel(extra: true), didMigrate: { _ in throw Refused() })])
        #expect(throws: Refused.self) { try PostgresStore.migrate(at: database.location, using: failing) }
        #expect(try StoreIntegrity.objects(in: PostgresStore(location: database.location)) == snapshot, "the stage's error left the database as it was")
    }

    @Test func aBlockedMigrationLeavesTheDatabaseAsItWas() throws {
        let database = try TemporaryDatabase()
        let old = try Self.oldModel()
        try Self.seed(PostgresStore(location: database.location, model: old))
        let before = try StoreIntegrity.objects(in: PostgresStore(location: database.location))
        let blocked = try Self.oldModel(nicknameRequired: true)
        let plan = try PostgresStore.migrationPlan(at: database.location, to: blocked)
        #expect(plan.blockers.count == 1)
        #expect(plan.blockers.first?.description.hasPrefix("entities[0].attributes[1]: optional → required, 6 rows are nil") == true, "\(plan)")
        let error = #expect(throws: StoreError.self) { try PostgresStore.migrate(at: database.location, to: blocked) }
        #expect(error?.code == .migrationBlocked)
        #expect(error?.message.contains(database.location.description) == true, "the database is named, not the scratch file: \(error?.message ?? "")")
        #expect(error?.message.contains("trove-scratch") == false)
        let store = try PostgresStore(location: database.location)
        #expect(store.model.versionHash == old.versionHash)
        #expect(try StoreIntegrity.objects(in: store) == before)
        #expect(try store.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'trove_%'").rows.isEmpty, "no backup schema")
    }

    @Test func aStoreOpenedWithTheOldModelIsRefusedItsNextSave() throws {
        let database = try TemporaryDatabase()
        let (old, new) = (try Self.oldModel(), try Self.newModel())
        try Self.seed(PostgresStore(location: database.location, model: old))
        let stale = try Container(store: PostgresStore(location: database.location, model: old)).newBackgroundContext()
        let tag = try stale.insert("Tag")
        try tag.setValue("late", forKey: "label")

        try PostgresStore.migrate(at: database.location, to: new, keepingBackup: false)
        let error = #expect(throws: StoreError.self) { try stale.save() }
        #expect(error?.code == .modelMismatch)
        #expect(error?.message.contains("was migrated to model \(new.versionHash)") == true, "\(error?.message ?? "")")
        let store = try PostgresStore(location: database.location)
        #expect(try store.count(of: "Tag") == 3, "nothing of the stale save landed")
        #expect(try store.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'trove_%'").rows.isEmpty,
                "no backup schema without keepingBackup")
        let fresh = try Container(store: store).newBackgroundContext()
        let animal = try fresh.insert("Animal")
        try animal.setValue("new", forKey: "name")
        try fresh.save()
        #expect(try store.count(of: "Animal") == 12, "a store opened with the new model saves")
    }
}
