import Foundation
import Testing
import Trove
import TrovePostgres
import TroveTesting

/// A migration that only adds runs in place on a database: the same plan, objects and metadata
/// as the engine's migration of a store file seeded alike, with no row copied or rewritten; any
/// other change still takes the engine's copy.
@Suite(.enabled(if: PostgresServer.isConfigured, PostgresServer.skipMessage))
struct PostgresAdditionTests {
    /// What a version of ``PostgresMigrationTests/oldModel(nicknameRequired:)`` changes: only
    /// additions, or additions and one change that no longer only adds.
    enum Variant: CaseIterable {
        case additive, nicknameRenamed, labelRenamed
        case requiredEmail, emailWithDefault, nicknameRequired, ageWidened, photoRemoved, nicknameRenamedAndReused, nicknameRenamedAndRetyped
        case subEntity, uniqueNote, requiredVet
    }

    /// The old model with, on Person, an optional text and number, a one-way to-one and a
    /// many-to-many to a new entity; on Pet, a to-one to a new entity; and `variant`'s change.
    static func model(_ variant: Variant = .additive) throws -> Model {
        try Model {
            Entity("Person") {
                Attribute("name", .string, optional: false)
                switch variant {
                case .nicknameRenamed:
                    Attribute("alias", .string, renamedFrom: "nickname")
                case .nicknameRenamedAndReused:
                    Attribute("alias", .string, renamedFrom: "nickname")
                    Attribute("nickname", .string)
                case .nicknameRenamedAndRetyped:
                    Attribute("alias", .integer64, renamedFrom: "nickname")
                default:
                    Attribute("nickname", .string, optional: variant != .nicknameRequired)
                }
                Attribute("age", variant == .ageWidened ? .integer64 : .integer32)
                Attribute("score", .double)
                Attribute("born", .date)
                if variant != .photoRemoved { Attribute("photo", .binary) }
                Attribute("balance", .decimal)
                if variant == .emailWithDefault {
                    Attribute("email", .string, default: "none")
                } else {
                    Attribute("email", .string, optional: variant != .requiredEmail)
                }
                Attribute("rating", .double)
                Relationship("pets", to: "Pet", toMany: true, inverse: "owner", deleteRule: .cascade)
                Relationship("tags", to: "Tag", toMany: true, inverse: "people")
                Relationship("favourites", to: "Tag", toMany: true, ordered: true)
                Relationship("bestFriend", to: "Person")
                Relationship("clubs", to: "Club", toMany: true, inverse: "members")
            }
            Entity("Employee", parent: "Person") {
                Attribute("salary", .decimal)
            }
            if variant == .subEntity {
                Entity("Manager", parent: "Person") {
                    Attribute("reports", .integer32)
                }
            }
            Entity("Pet") {
                Attribute("name", .string)
                Relationship("owner", to: "Person", inverse: "pets")
                Relationship("vet", to: "Vet", inverse: "patients", optional: variant != .requiredVet)
            }
            Entity("Tag", uniqueBy: variant == .uniqueNote ? [["label"], ["note"]] : variant == .labelRenamed ? [["name"]] : [["label"]]) {
                if variant == .labelRenamed {
                    Attribute("name", .string, optional: false, renamedFrom: "label")
                } else {
                    Attribute("label", .string, optional: false)
                }
                Attribute("note", .string)
                Relationship("people", to: "Person", toMany: true, inverse: "tags")
            }
            Entity("Vet") {
                Attribute("name", .string, optional: false)
                Relationship("patients", to: "Pet", toMany: true, inverse: "vet")
            }
            Entity("Club", uniqueBy: [["title"]]) {
                Attribute("title", .string, optional: false)
                Relationship("members", to: "Person", toMany: true, inverse: "clubs")
            }
        }
    }

    @Test func onlyAdditionsAlterTheTablesInPlace() throws {
        let old = try PostgresMigrationTests.oldModel()
        let statements = try #require(PostgresStore.additionSQL(from: old, to: Self.model()))
        for expected in ["ALTER TABLE \"Person\" ADD COLUMN \"email\" text", "ALTER TABLE \"Person\" ADD COLUMN \"email~cd\" text COLLATE \"C\"",
                         "ALTER TABLE \"Person\" ADD COLUMN \"rating\" double precision", "ALTER TABLE \"Pet\" ADD COLUMN \"vet\" bigint",
                         "CREATE TABLE \"Vet\"", "CREATE TABLE \"Club\""] {
            #expect(statements.contains { $0.hasPrefix(expected) }, "\(expected) in \(statements)")
        }
        #expect(!statements.contains { $0.contains("\"Tag\"") && !$0.contains("REFERENCES") }, "Tag is left as it was: \(statements)")
        #expect(PostgresStore.additionSQL(from: old, to: old) == [], "no change, no statement")
        let renames = try #require(PostgresStore.additionSQL(from: old, to: Self.model(.nicknameRenamed)))
        for form in ["", "~c", "~d", "~cd", "~sort"] {
            #expect(renames.contains("ALTER TABLE \"Person\" RENAME COLUMN \"nickname\(form)\" TO \"alias\(form)\""), "\(renames)")
        }
        for variant in Variant.allCases where ![.additive, .nicknameRenamed, .labelRenamed].contains(variant) {
            #expect(PostgresStore.additionSQL(from: old, to: try Self.model(variant)) == nil, "\(variant) takes the engine's copy")
        }
    }

    @Test(arguments: [Variant.additive, .nicknameRenamed, .labelRenamed])
    func anAdditionMigratesInPlaceAsAFileMigrates(_ variant: Variant) throws {
        let (database, dir) = try PostgresMigrationTests.seededAlike()
        let file = dir.file("store.trove")
        let new = try Self.model(variant)
        let store = try PostgresStore(location: database.location)
        let counterBefore = try PostgresMigrationTests.counter(store)
        let rowsBefore = try Self.rowVersions(store)

        let filePlan = try SQLiteStore.migrationPlan(forStoreAt: file, to: new)
        let databasePlan = try PostgresStore.migrationPlan(at: database.location, to: new)
        #expect(databasePlan.steps.map(\.description) == filePlan.steps.map(\.description))
        #expect(databasePlan.steps.count >= 6 && databasePlan.blockers.isEmpty && databasePlan.rowsRewritten == 0, "\(databasePlan)")

        let fileOutcome = try SQLiteStore.migrate(storeAt: file, to: new, keepingBackup: false)
        let outcome = try PostgresStore.migrate(at: database.location, to: new)
        #expect(outcome.migration.steps.map(\.description) == fileOutcome.migration.steps.map(\.description))
        #expect(outcome.backupSchema == nil, "nothing stored changed, so nothing is kept")

        let migrated = try PostgresStore(location: database.location)
        let fileStore = try SQLiteStore(url: file)
        #expect(migrated.model.versionHash == new.versionHash)
        #expect(try StoreIntegrity.objects(in: migrated) == (try StoreIntegrity.objects(in: fileStore)))
        #expect((try Self.rowVersions(migrated)) == rowsBefore, "no row was copied or rewritten")
        #expect(try PostgresMigrationTests.counter(migrated) == counterBefore + 1)
        let uniqueKey = try migrated.query("SELECT indexdef FROM pg_indexes WHERE indexname = '_unique_Tag_0'").rows.first?.decode(String.self)
        #expect(uniqueKey?.hasSuffix(variant == .labelRenamed ? "(name)" : "(label)") == true, "\(uniqueKey ?? "no unique index")")
        let (metadata, fileMetadata) = (try migrated.metadata(), try fileStore.metadata())
        for key in ["trove.modelHash", "trove.model", "app.syncedUpTo"] {
            #expect(metadata[key] != nil && metadata[key] == fileMetadata[key], "\(key)")
        }
        // The history's entries, but for the time of day each migration ran.
        let entries = { (metadata: [String: String]) in
            try SQLiteStore.history(in: metadata).map { "\($0.version) \($0.steps ?? -1) \($0.rowsRewritten ?? -1)" }
        }
        #expect(try entries(metadata).count == 2 && entries(metadata) == entries(fileMetadata))

        // The new attributes, relationships and entities work as the file's do, text forms included.
        for target in [migrated, fileStore] as [any PersistentStore] {
            let context = try Container(store: target).newBackgroundContext()
            let people = try context.fetch(FetchRequest(entityName: "Person", sortDescriptors: try SortKey.parse("name")))
            let vet = try context.insert("Vet")
            try vet.setValue("Dr Ünal", forKey: "name")
            let club = try context.insert("Club")
            try club.setValue("Chess", forKey: "title")
            for (n, person) in people.enumerated() {
                try person.setValue("Person.\(n)@Exämple.org", forKey: "email")
                try person.setRelatedObject(people[(n + 1) % people.count], forKey: "bestFriend")
                if n % 2 == 0 { try person.addRelatedObject(club, forKey: "clubs") }
                for pet in try person.relatedObjects(forKey: "pets") { try pet.setRelatedObject(vet, forKey: "vet") }
            }
            try context.save()
        }
        #expect(try StoreIntegrity.objects(in: migrated) == (try StoreIntegrity.objects(in: fileStore)))
        let context = try Container(store: migrated).newBackgroundContext()
        let fileContext = try Container(store: fileStore).newBackgroundContext()
        let nickname = variant == .nicknameRenamed ? "alias" : "nickname"
        for (entity, format) in [("Person", "\(nickname) BEGINSWITH[c] 'NICK 1'"), ("Person", "email ENDSWITH[cd] 'EXAMPLE.ORG'"), ("Pet", "vet.name BEGINSWITH[d] 'Dr Un'"),
                                 ("Person", "ANY clubs.title ==[c] 'CHESS'"), ("Person", "bestFriend.email CONTAINS[c] 'person.3@'")] {
            let request = FetchRequest(entityName: entity, predicate: try ObjectPredicate(format: format))
            let (count, fileCount) = (try context.count(for: request), try fileContext.count(for: request))
            #expect(count > 0 && count == fileCount, "\(format)")
        }
    }

    /// Each row's key, version and transaction id (`xmin`) of the old tables: a copied or
    /// rewritten row has a new `xmin`.
    static func rowVersions(_ store: PostgresStore) throws -> [String] {
        try ["Person", "Pet", "Tag"].flatMap { table in
            try store.query("SELECT _pk, _version, xmin::text FROM \"\(table)\" ORDER BY _pk").rows.map { row in
                let (key, version, xmin) = try row.decode((Int64, Int64, String).self)
                return "\(table)/\(key) v\(version) x\(xmin)"
            }
        }
    }
}
