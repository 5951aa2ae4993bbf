import Foundation
import Testing
import Trove
import TrovePostgres
import TroveStore
import TroveTesting

@Suite(.enabled(if: PostgresServer.isConfigured, PostgresServer.skipMessage))
struct PostgresStoreTests {
    /// A value of every attribute type, chosen to catch lossy storage (dates compare exactly:
    /// a `timestamptz` column would have rounded this one's to microseconds).
    static let values = SampleModels.everyTypeValues.merging(["dateValue": .date(Date(timeIntervalSinceReferenceDate: 333_333_333.123_456_789))]) { $1 }

    @Test func everyTypeRoundTripsExactlyThroughAFreshStore() throws {
        let database = try TemporaryDatabase()
        let model = try SampleModels.everyType()
        let id: ObjectID
        do {
            let context = try Container(store: PostgresStore(location: database.location, model: model)).newBackgroundContext()
            let thing = try context.insert("Thing")
            for (key, value) in Self.values { try thing.setValue(value, forKey: key) }
            try context.save()
            id = thing.objectID
        }
        // Opened again without a model: the one kept in the database.
        let store = try PostgresStore(location: database.location)
        #expect(store.model.versionHash == model.versionHash)
        let thing = try Container(store: store).newBackgroundContext().object(with: id)
        for (key, value) in Self.values {
            #expect(try thing.value(forKey: key) == value, "\(key)")
        }
    }

    /// Equality with a value — a unique key, a to-one's object — uses the column's index, as
    /// on SQLite: PostgreSQL's indexes do not serve `IS NOT DISTINCT FROM`, which such a
    /// comparison compiled to at first, so a fetch by unique key scanned the table.
    @Test func equalityWithAValueUsesAnIndex() throws {
        let database = try TemporaryDatabase()
        let model = try SampleModels.photos()
        let store = try PostgresStore(location: database.location, model: model)
        let ann = ObjectID(entity: try #require(model.entity(named: "Photographer")), primaryKey: 1)
        let predicates = [try ObjectPredicate(format: "id == %@", "p1"), try ObjectPredicate(format: "whoTook == %@", ann),
                          try ObjectPredicate(format: "id ==[c] %@", "P1")]
        for predicate in predicates {
            var compiler = QueryCompiler(schema: StoreSchema(model: model), model: model, dialect: .postgres)
            let sql = try compiler.select({ _ in "\"t\".\"_pk\"" }, for: StoreQuery(FetchRequest(entityName: "Photo", predicate: predicate), model: model))
            let plan = try store.run("explaining \(sql)") {
                try store.query("SET enable_seqscan = off")
                defer { _ = try? store.query("RESET enable_seqscan") }  // The test's own connection setting; the plan is what is checked.
                return try store.query("EXPLAIN " + sql, compiler.arguments).rows.map { try $0.decode(String.self) }.joined(separator: "\n")
            }
            // An index condition: the index finds the rows, rather than being read whole.
            if predicate.description.contains("[c]") {
                #expect(!plan.contains("Index Cond"), "no index on a text form: the check below sees when none serves\n\(plan)")
            } else {
                #expect(plan.contains("Index Cond"), "\(predicate): \(sql)\n\(plan)")
            }
        }
    }

    @Test func extremeDecimalsRoundTrip() throws {
        let database = try TemporaryDatabase()
        let context = try Container(store: PostgresStore(location: database.location, model: SampleModels.everyType())).newBackgroundContext()
        let texts = ["0", "-0.000001", "1e100", "-123456789012345678901234567890123456.78", "0.1", "1000000", "-9.99e-100"]
        var things: [(ManagedObject, Decimal)] = []
        for text in texts {
            let decimal = try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
            let thing = try context.insert("Thing")
            try thing.setValue(AttributeValue.decimal(decimal), forKey: "decimalValue")
            things.append((thing, decimal))
        }
        try context.save()
        let fresh = try Container(store: PostgresStore(location: database.location)).newBackgroundContext()
        for (thing, decimal) in things {
            #expect(try fresh.object(with: thing.objectID).value(forKey: "decimalValue") == .decimal(decimal), "\(decimal)")
        }
    }

    @Test func nilRoundTripsForEveryType() throws {
        let database = try TemporaryDatabase()
        let context = try Container(store: PostgresStore(location: database.location, model: SampleModels.everyType())).newBackgroundContext()
        let thing = try context.insert("Thing")
        try context.save()
        let fresh = try Container(store: PostgresStore(location: database.location)).newBackgroundContext()
        let again = try fresh.object(with: thing.objectID)
        for type in AttributeType.allCases {
            #expect(try again.value(forKey: type.rawValue + "Value") == .null)
        }
    }

    @Test func textWithNULIsRefusedAndNothingIsWritten() throws {
        let database = try TemporaryDatabase()
        let store = try PostgresStore(location: database.location, model: SampleModels.everyType())
        let context = try Container(store: store).newBackgroundContext()
        let thing = try context.insert("Thing")
        try thing.setValue(AttributeValue.string("a\u{0}b"), forKey: "stringValue")
        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.code == .constraintViolation)
        #expect(error.message.contains("NUL"))
        #expect(error.message.contains("its stringValue"))  // The column at fault, and the object.
        #expect(error.message.contains("\(thing.objectID)"))
        #expect(try store.count(of: "Thing") == 0)

        // A batch update setting such text says so too (not a repeated key), and writes nothing.
        try thing.setValue(AttributeValue.string("fine"), forKey: "stringValue")
        try context.save()
        let token = try store.changeToken()
        let update = BatchUpdateRequest(entityName: "Thing", values: ["stringValue": .string("a\u{0}b")])
        let batch = try #require(throws: StoreError.self) { try context.execute(update) }
        #expect(batch.code == .constraintViolation)
        #expect(batch.message.contains("NUL") && !batch.message.contains("unique key"), "\(batch.message)")
        #expect(try store.changeToken() == token)
        #expect(try Container(store: store).newBackgroundContext().fetch("Thing", where: "stringValue == 'fine'").count == 1)
    }

    @Test func openingWithAnotherModelOrAForeignDatabaseFails() throws {
        let database = try TemporaryDatabase()
        _ = try PostgresStore(location: database.location, model: SampleModels.everyType())
        let mismatch = try #require(throws: StoreError.self) { try PostgresStore(location: database.location, model: SampleModels.photos()) }
        #expect(mismatch.code == .modelMismatch)

        let foreign = try TemporaryDatabase()
        let plain = try PostgresStore(location: foreign.location, model: SampleModels.photos())
        _ = plain
        let other = try TemporaryDatabase()
        try PostgresStore.administer("SELECT 1", on: other.location)
        let missing = try #require(throws: StoreError.self) { try PostgresStore(location: other.location) }
        #expect(missing.code == .notFound)
    }

    @Test func unreachableServerGivesATypedErrorWithoutThePassword() throws {
        let location = try PostgresLocation("postgres://someone:secret@127.0.0.1:1/nowhere")
        let error = try #require(throws: StoreError.self) { try PostgresStore(location: location, model: SampleModels.photos()) }
        #expect(error.code == .unreachable)
        #expect(!error.message.contains("secret"))
        #expect(!location.description.contains("secret"))
    }

    @Test func savesCheckVersionsAcrossStores() throws {
        let database = try TemporaryDatabase()
        let model = try SampleModels.photos()
        let first = try Container(store: PostgresStore(location: database.location, model: model)).newBackgroundContext()
        let photo = try first.insert("Photo")
        try photo.setValue(AttributeValue.string("p1"), forKey: "id")
        try photo.setValue(AttributeValue.string("one"), forKey: "title")
        try first.save()

        let secondStore = try PostgresStore(location: database.location, model: model)
        let second = try Container(store: secondStore).newBackgroundContext()
        let token = try secondStore.changeToken()
        let same = try second.object(with: photo.objectID)
        try same.setValue(AttributeValue.string("two"), forKey: "title")
        try second.save()
        #expect(try secondStore.hasChanged(since: token))

        try photo.setValue(AttributeValue.string("three"), forKey: "title")
        #expect(throws: (any Error).self) { try first.save() }
        let stored = try #require(try secondStore.row(for: photo.objectID))
        #expect(stored.version == 2)
        #expect(stored.values.contains(.string("two")))
    }

    @Test func aDuplicateUniqueKeyNamesTheObjectAndWritesNothing() throws {
        let database = try TemporaryDatabase()
        let store = try PostgresStore(location: database.location, model: SampleModels.photos())
        let context = try Container(store: store).newBackgroundContext()
        for _ in 0..<2 {
            let photo = try context.insert("Photo")
            try photo.setValue(AttributeValue.string("same"), forKey: "id")
        }
        let other = try context.insert("Photo")
        try other.setValue(AttributeValue.string("other"), forKey: "id")
        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.code == .constraintViolation)
        #expect(error.message.contains("Photo"))
        #expect(try store.count(of: "Photo") == 0)
        #expect(try store.changeToken() == store.changeToken())
    }

    /// A save of many new rows (one multi-row INSERT of arrays): every row is stored, its text
    /// forms too; a bad row deep inside (text with NUL, a duplicate key) names its object, and
    /// nothing of the save is written.
    @Test(arguments: [nil, "NUL", "duplicate"])
    func aSaveOfManyNewRows(fault: String?) throws {
        let database = try TemporaryDatabase()
        let store = try PostgresStore(location: database.location, model: SampleModels.photos())
        let context = try Container(store: store).newBackgroundContext()
        var photos: [ManagedObject] = []
        for index in 0..<1_000 {
            let photo = try context.insert("Photo")
            try photo.setValue("p\(index)", forKey: "id")
            try photo.setValue("Café n° \(index)", forKey: "title")
            photos.append(photo)
        }
        let bad = photos[777]
        switch fault {
        case "NUL": try bad.setValue("a\u{0}b", forKey: "title")
        case "duplicate": try bad.setValue("p1", forKey: "id")
        default: break
        }
        guard fault != nil else {
            try context.save()
            #expect(try store.count(of: "Photo") == 1_000)
            let reader = try Container(store: store).newBackgroundContext()
            let found = try reader.fetch("Photo", where: "title ==[cd] %@", "CAFE N° 999")
            #expect(try found.map { try $0.value(forKey: "id", as: String.self) } == ["p999"])
            return
        }
        let token = try store.changeToken()
        let error = try #require(throws: StoreError.self) { try context.save() }
        #expect(error.code == .constraintViolation)
        #expect(error.message.contains("\(bad.objectID)"), "\(error.message)")
        #expect(try store.count(of: "Photo") == 0)
        #expect(try store.changeToken() == token)
    }

    /// Batch updates and deletes run in SQL, a delete that cascades too: no object is loaded.
    /// (What they change is compared with SQLite's in the conformance suite.)
    @Test func batchRequestsRunInSQL() throws {
        let database = try TemporaryDatabase()
        let store = try PostgresStore(location: database.location, model: SampleModels.photos())
        let context = try Container(store: store).newBackgroundContext()
        for (id, views) in [("a", 1), ("b", 5), ("c", 9)] {
            let photographer = try context.insert("Photographer")
            try photographer.setValue(id, forKey: "id")
            let photo = try context.insert("Photo")
            try photo.setValue("photo-\(id)", forKey: "id")
            try photo.setValue(Int64(views), forKey: "views")
            _ = try photo.setRelatedObject(photographer, forKey: "whoTook")
        }
        try context.save()
        let updated = try context.execute(BatchUpdateRequest(entityName: "Photo", predicate: ObjectPredicate(format: "views > 3"),
                                                             values: ["title": .string("popular")]))
        #expect(!updated.usedObjects)
        #expect(updated.count == 2)
        #expect(try context.count(for: FetchRequest(entityName: "Photo", predicate: ObjectPredicate(format: "title == 'popular'"))) == 2)
        let deleted = try context.execute(BatchDeleteRequest(entityName: "Photo", where: "views == 9"))
        #expect(!deleted.usedObjects)
        #expect(deleted.objectIDs.count == 1)
        #expect(try store.count(of: "Photo") == 2)
        // Photographer.photos cascades: deleting two photographers deletes their photos.
        let cascading = try context.execute(BatchDeleteRequest(entityName: "Photographer", where: "id != %@", "a"))
        #expect(!cascading.usedObjects)
        #expect(cascading.objectIDs.count == 2 && cascading.cascadedObjectIDs.count == 1, "b's photo (c's was deleted above)")
        #expect(try store.count(of: "Photographer") == 1)
        #expect(try store.count(of: "Photo") == 1)
    }
}
