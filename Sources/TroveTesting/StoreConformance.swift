import Foundation
public import Trove

/// The checks every ``PersistentStore`` must pass, whatever keeps its data: run each of
/// ``checks`` on a fresh ``Fixture`` of your store (the SQLite and PostgreSQL stores' tests do).
///
/// A check throws ``ConformanceFailure`` saying what differed. Where a store may refuse a
/// predicate or sort it cannot run (with `StoreError.Code.unsupportedFormat`, never a different
/// answer), the check lists what was refused in its ``Report``, for the caller to bound.
public enum StoreConformance {
    /// One empty place for a store: `open(model)` opens it, creating it at the first call, and
    /// every call gives a new store instance on the same data, as another process would.
    public struct Fixture: Sendable {
        public let open: @Sendable (Model) throws -> any PersistentStore

        public init(open: @escaping @Sendable (Model) throws -> any PersistentStore) {
            self.open = open
        }
    }

    /// What a check refused to run, as the store's own errors said.
    public struct Report: Sendable {
        public var refused: [String] = []
    }

    /// One check: a name, and the run on a fixture.
    public struct Check: Sendable, CustomStringConvertible {
        public let name: String
        let body: @Sendable (Fixture, inout Report) throws -> Void

        public var description: String { name }

        /// Runs the check on `fixture`.
        /// - Throws: ``ConformanceFailure`` where the store differs from what a store must do.
        @discardableResult
        public func run(_ fixture: Fixture) throws -> Report {
            var report = Report()
            try body(fixture, &report)
            return report
        }
    }

    /// Every check.
    public static let checks: [Check] = [
        Check(name: "schema: a store opens again with its model and refuses another", body: schema),
        Check(name: "every attribute type round-trips exactly, and nil", body: everyType),
        Check(name: "saves check versions; merge policies resolve conflicts", body: optimisticLocking),
        Check(name: "a duplicate unique key is refused, naming the object, and nothing is written", body: uniqueKeys),
        Check(name: "the differential predicates select what SQLite selects", body: differentialPredicates),
        Check(name: "sorts, limits and offsets give SQLite's sequences", body: sortsAndWindows),
        Check(name: "aggregate requests give SQLite's groups", body: aggregateRequests),
        Check(name: "relationships are read and prefetched as on SQLite", body: relationships),
        Check(name: "change tokens see every commit, another instance's included", body: changeTokens),
        Check(name: "rows found by key before writing, and read ahead, are the rows saved", body: rowsByKey),
        Check(name: "batch updates and deletes change what SQLite's change, versions and text forms included", body: batchWrites),
        Check(name: "batch deletes that cascade, deny and nullify change what SQLite's change", body: cascadingBatchDeletes),
        Check(name: "metadata is written in its save's transaction", body: metadata),
        Check(name: "a streamed import saves checkpoints with its chunks and resumes exactly", body: importCheckpoints),
    ]

    // MARK: Checks

    private static func schema(_ fixture: Fixture, _ report: inout Report) throws {
        let model = try SampleModels.photos()
        let context = try Container(store: fixture.open(model)).newBackgroundContext()
        let photo = try context.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try context.save()
        let again = try fixture.open(model)
        try expect(try again.count(of: "Photo") == 1, "a store opened again with its model does not hold the saved object")
        do {
            _ = try fixture.open(try SampleModels.everyType())
            throw ConformanceFailure("opening the store with another model succeeded; it must fail with modelMismatch")
        } catch let error as StoreError {
            try expect(error.code == .modelMismatch, "opening with another model failed with \(error.code), not modelMismatch")
        }
    }

    private static func everyType(_ fixture: Fixture, _ report: inout Report) throws {
        let model = try SampleModels.everyType()
        let context = try Container(store: fixture.open(model)).newBackgroundContext()
        let full = try context.insert("Thing")
        for (key, value) in SampleModels.everyTypeValues { try full.setValue(value, forKey: key) }
        let empty = try context.insert("Thing")
        try context.save()
        let fresh = try Container(store: fixture.open(model)).newBackgroundContext()
        let readFull = try fresh.object(with: full.objectID)
        for (key, value) in SampleModels.everyTypeValues {
            let read = try readFull.value(forKey: key)
            try expect(read == value, "\(key) was saved as \(value) and read back as \(read)")
        }
        let readEmpty = try fresh.object(with: empty.objectID)
        for key in SampleModels.everyTypeValues.keys {
            let read = try readEmpty.value(forKey: key)
            try expect(read == .null, "\(key) was saved as nil and read back as \(read)")
        }
    }

    private static func optimisticLocking(_ fixture: Fixture, _ report: inout Report) throws {
        let model = try SampleModels.photos()
        let first = try Container(store: fixture.open(model)).newBackgroundContext()
        let photo = try first.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try photo.setValue("one", forKey: "title")
        try first.save()
        let second = try Container(store: fixture.open(model)).newBackgroundContext()
        let copy = try second.object(with: photo.objectID)
        _ = try copy.value(forKey: "title")
        try photo.setValue("first's", forKey: "title")
        try first.save()
        try copy.setValue("second's", forKey: "title")
        do {
            try second.save()
            throw ConformanceFailure("a save over a row another store instance changed succeeded; it must fail with ConflictError")
        } catch is ConflictError {}
        try expect(try Container(store: fixture.open(model)).newBackgroundContext().object(with: photo.objectID).value(forKey: "title") == .string("first's"),
                   "a save that failed with a conflict changed the store")
        second.mergePolicy = .objectWins
        try second.save()
        let read = try Container(store: fixture.open(model)).newBackgroundContext().object(with: photo.objectID).value(forKey: "title")
        try expect(read == .string("second's"), "objectWins saved \(read), not the context's value")
    }

    private static func uniqueKeys(_ fixture: Fixture, _ report: inout Report) throws {
        let store = try fixture.open(try SampleModels.photos())
        let context = try Container(store: store).newBackgroundContext()
        for id in ["same", "same", "other"] {
            try context.insert("Photo").setValue(id, forKey: "id")
        }
        let before = try store.changeToken()
        do {
            try context.save()
            throw ConformanceFailure("a save of two photos with the same unique id succeeded")
        } catch let error as StoreError {
            try expect(error.code == .constraintViolation && error.message.contains("Photo"),
                       "a duplicate unique key failed with \(error.code) \"\(error.message)\", not a constraintViolation naming the Photo")
        }
        try expect(try store.count(of: "Photo") == 0, "a save refused for a duplicate key wrote photos")
        try expect(try !store.hasChanged(since: before), "a save refused for a duplicate key moved the change token")
    }

    private static func differentialPredicates(_ fixture: Fixture, _ report: inout Report) throws {
        let (reference, context) = try differentialStores(fixture)
        for test in DifferentialPredicates.all {
            var request = FetchRequest(entityName: test.entity, predicate: try test.predicate())
            request.includesPendingChanges = false
            let expected = try labels(reference.context.fetch(request))
            do {
                let selected = try labels(context.fetch(request))
                try expect(selected == expected, "\(test.entity) where \(test.format) selected \(selected), SQLite \(expected)")
                let count = try context.count(for: request)
                try expect(count == expected.count, "count of \(test.entity) where \(test.format) is \(count), SQLite's \(expected.count)")
            } catch let error as StoreError where error.code == .unsupportedFormat {
                report.refused.append(test.format)
            }
        }
    }

    private static func sortsAndWindows(_ fixture: Fixture, _ report: inout Report) throws {
        let (reference, context) = try differentialStores(fixture)
        for test in DifferentialPredicates.sorts {
            for (limit, offset) in [(0, 0), (3, 0), (5, 4), (4, 100)] {
                var request = FetchRequest(entityName: test.entity, sortDescriptors: try SortKey.parse(test.sort))
                request.fetchLimit = limit
                request.fetchOffset = offset
                request.includesPendingChanges = false
                let expected = try labels(reference.context.fetch(request))
                do {
                    let sorted = try labels(context.fetch(request))
                    try expect(sorted == expected, "\(test.entity) by \(test.sort), limit \(limit) offset \(offset): \(sorted), SQLite \(expected)")
                } catch let error as StoreError where error.code == .unsupportedFormat {
                    report.refused.append(test.sort)
                }
            }
        }
    }

    private static func aggregateRequests(_ fixture: Fixture, _ report: inout Report) throws {
        let (reference, context) = try differentialStores(fixture)
        for test in DifferentialPredicates.aggregateRequests {
            let request = try test.request()
            let expected = try reference.context.fetchAggregates(request)
            do {
                let groups = try context.fetchAggregates(request)
                try expect(groups.count == expected.count && zip(groups, expected).allSatisfy(sameGroup),
                           "\(test): \(groups), SQLite \(expected)")
            } catch let error as StoreError where error.code == .unsupportedFormat {
                report.refused.append(test.description)
            }
        }
    }

    /// Equal groups, doubles within a rounding of their sums' order.
    private static func sameGroup(_ a: [String: AttributeValue], _ b: [String: AttributeValue]) -> Bool {
        a.keys == b.keys && a.allSatisfy { key, value in
            guard case .double(let x) = value, case .double(let y)? = b[key] else { return value == b[key] }
            return x == y || abs(x - y) <= 1e-9 * max(abs(x), abs(y))
        }
    }

    private static func relationships(_ fixture: Fixture, _ report: inout Report) throws {
        let (reference, context) = try differentialStores(fixture)
        let paths = [("Photographer", "photos", "id"), ("Photographer", "mentor", "id"), ("Photographer", "students", "id"),
                     ("Photo", "tags", "uniqueId"), ("Photo", "whoTook", "uniqueId"), ("Photo", "detail", "uniqueId"),
                     ("Tag", "photos", "name"), ("Tag", "things", "name"), ("Thing", "photo", "label"), ("Thing", "tag", "label")]
        for (entity, key, sort) in paths {
            for prefetching in [false, true] {
                var request = FetchRequest(entityName: entity, sortDescriptors: try SortKey.parse(sort))
                request.relationshipKeyPathsForPrefetching = prefetching ? [key] : []
                // Labels of related objects, not object IDs, so that stores may number rows their own way.
                let expected = try reference.context.fetch(request).map { try relatedLabels($0, key) }
                let read = try context.fetch(request).map { try relatedLabels($0, key) }
                try expect(read == expected, "\(entity).\(key)\(prefetching ? " prefetched" : "") read \(read), SQLite \(expected)")
            }
        }
    }

    private static func changeTokens(_ fixture: Fixture, _ report: inout Report) throws {
        let model = try SampleModels.photos()
        let store = try fixture.open(model)
        let other = try fixture.open(model)
        let context = try Container(store: store).newBackgroundContext()
        let photo = try context.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try context.save()
        try context.refreshIfStoreChanged()
        let start = try store.changeToken()
        try expect(try !store.hasChanged(since: start), "a store says it changed with no commit since its token")
        let otherContext = try Container(store: other).newBackgroundContext()
        try otherContext.object(with: photo.objectID).setValue("renamed", forKey: "title")
        try otherContext.save()
        try expect(try store.hasChanged(since: start), "a commit through another instance of the store does not change the token")
        try expect(try context.refreshIfStoreChanged(), "a context does not learn of another instance's save")
        let title = try photo.value(forKey: "title")
        try expect(title == .string("renamed"), "after refreshing, an object reads \(title), not the other instance's value")
        try photo.setValue("own", forKey: "title")
        let beforeOwn = try store.changeToken()
        try context.save()
        try expect(try store.hasChanged(since: beforeOwn), "the store's own save does not change the token")
        try expect(try !context.refreshIfStoreChanged(), "a context takes its own save for another's")
    }

    private static func rowsByKey(_ fixture: Fixture, _ report: inout Report) throws {
        let store = try fixture.open(try SampleModels.photos())
        let context = try Container(store: store).newBackgroundContext()
        for index in 0..<1_200 {
            let photo = try context.insert("Photo")
            try photo.setValue("p\(index)", forKey: "id")
            try photo.setValue("Café \(index % 7)", forKey: "title")
        }
        try context.save()
        guard let photo = store.model.entity(named: "Photo") else { throw ConformanceFailure("the photos model has no Photo") }
        // More keys than one statement takes, some of them missing; then pairs, some not matching.
        let ids = (0..<1_100).map { [AttributeValue.string("p\($0 * 7 % 1_200)")] } + (0..<100).map { [.string("missing \($0)")] }
        let pairs = (0..<600).map { [AttributeValue.string("p\($0)"), .string("Café \($0 % 7 == 3 ? 4 : $0 % 7)")] }
        for (attributes, keys, expected) in [(["id"], ids, 1_100), (["id", "title"], pairs, (0..<600).filter { $0 % 7 != 3 }.count)] {
            let found = try store.fetchBeforeWriting(photo, attributes: attributes, keys: keys)
            try expect(found.count == expected && Set(found.map(\.objectID)).count == expected,
                       "finding photos by \(attributes) before writing gave \(found.count) rows, not \(expected)")
            let saved = try context.fetch("Photo").map(\.objectID)
            try expect(Set(found.map(\.objectID)).isSubset(of: Set(saved)), "finding photos by \(attributes) gave rows that were not saved")
            guard let bulk = store as? any BulkWritingStore else { continue }
            let ahead = try bulk.fetchAhead(photo, attributes: attributes, keys: keys)
            try expect(Set(ahead) == Set(found), "reading photos by \(attributes) ahead gave other rows than finding them before writing")
        }
        // Once rows were read ahead, the change token still sees the store's own saves.
        let before = try store.changeToken()
        try context.insert("Photo").setValue("after", forKey: "id")
        try context.save()
        try expect(try store.hasChanged(since: before), "after reading ahead, a save does not change the token")
    }

    private static func batchWrites(_ fixture: Fixture, _ report: inout Report) throws {
        let directory = try TemporaryDirectory()
        let model = try SampleModels.photos()
        let contexts = [try Container(store: SQLiteStore(url: directory.file("reference.trove"), model: model)).newBackgroundContext(),
                        try Container(store: fixture.open(model)).newBackgroundContext()]
        for context in contexts {
            let owners = try ["a", "b", "c"].map { id in
                let owner = try context.insert("Photographer")
                try owner.setValue(id, forKey: "id")
                return owner
            }
            for index in 0..<30 {
                let photo = try context.insert("Photo")
                try photo.setValue("p\(index)", forKey: "id")
                try photo.setValue("Photo \(index)", forKey: "title")
                try photo.setValue(Int64(index), forKey: "views")
                _ = try photo.setRelatedObject(owners[index % 3], forKey: "whoTook")
            }
            try context.save()
        }
        func update(_ format: String, _ values: [String: AttributeValue]) throws -> BatchUpdateRequest {
            BatchUpdateRequest(entityName: "Photo", predicate: try ObjectPredicate(format: format), values: values)
        }
        // Each step on both stores, then what it matched and what the photos hold, compared.
        func step(_ name: String, _ body: (ObjectContext) throws -> [ObjectID]) throws {
            var seen: [String] = []
            for context in contexts {
                let photos = try context.fetch("Photo", where: "views >= 0")
                let label = Dictionary(uniqueKeysWithValues: zip(photos.map(\.objectID), try labels(photos)))
                let matched = try body(context).map { label[$0] ?? "\($0)" }.sorted()
                context.reset()
                let reader = try Container(store: context.store).newBackgroundContext()
                // Each row's id, title and views (the first, second and fourth attributes) and version.
                let rows = try context.store.rows(for: reader.fetch("Photo", where: "views >= 0").map(\.objectID)).map { row in
                    "\(row.values[0]) \(row.values[1]) \(row.values[3]) v\(row.version)"
                }.sorted()
                let found = try labels(reader.fetch("Photo", where: "title ==[cd] %@", "POPULAR E")).sorted()
                seen.append("matched \(matched), [cd] found \(found), rows \(rows)")
            }
            try expect(seen[0] == seen[1], "\(name): SQLite \(seen[0]), this store \(seen[1])")
        }
        try step("a batch update through a relationship") { context in
            try context.execute(update("views > 10 AND whoTook.id == 'a'", ["title": .string("Popular É")])).objectIDs
        }
        try step("a batch update leaving rows that hold the value") { context in
            try context.execute(update("views < 5", ["views": .integer(2)])).objectIDs
        }
        try step("a batch update selecting by MATCHES[c]") { context in
            try context.execute(update("title MATCHES[c] 'photo 2\\\\d'", ["views": .integer(99)])).objectIDs
        }
        try step("a batch delete") { context in
            try context.execute(BatchDeleteRequest(entityName: "Photo", where: "views >= 25 OR title BEGINSWITH[c] 'photo 1'")).objectIDs
        }
        try step("a batch delete selecting by MATCHES[cd]") { context in
            try context.execute(BatchDeleteRequest(entityName: "Photo", where: "title MATCHES[cd] 'PHOTO \\\\d*3'")).objectIDs
        }
        let store = contexts[1].store
        let before = try store.changeToken()
        do {
            try contexts[1].execute(update("views == 2", ["id": .string("same")]))
            throw ConformanceFailure("a batch update giving two photos the same unique id succeeded")
        } catch let error as StoreError {
            try expect(error.code == .constraintViolation && error.message.contains("unique key"),
                       "a batch update repeating a unique key failed with \(error.code) \"\(error.message)\", not a constraintViolation naming the key")
        }
        try expect(try !store.hasChanged(since: before), "a batch update refused for a duplicate key moved the change token")
        try step("nothing, after the refused update") { _ in [] }
    }

    private static func metadata(_ fixture: Fixture, _ report: inout Report) throws {
        let store = try fixture.open(try SampleModels.photos())
        let context = try Container(store: store).newBackgroundContext()
        context.setStoreMetadata("kept", forKey: "app.first")
        try context.save()
        try expect(try store.metadata()["app.first"] == "kept", "metadata saved alone was not written")
        for id in ["same", "same"] { try context.insert("Photo").setValue(id, forKey: "id") }
        context.setStoreMetadata("lost", forKey: "app.first")
        context.setStoreMetadata("lost", forKey: "app.second")
        do {
            try context.save()
            throw ConformanceFailure("a save of two photos with the same unique id succeeded")
        } catch is StoreError {}
        let after = try store.metadata()
        try expect(after["app.first"] == "kept" && after["app.second"] == nil, "a failed save wrote its metadata: \(after)")
        context.rollback()
        context.setStoreMetadata(nil, forKey: "app.first")
        try context.save()
        try expect(try store.metadata()["app.first"] == nil, "a nil metadata value did not remove the key")
    }

    private static func importCheckpoints(_ fixture: Fixture, _ report: inout Report) throws {
        let store = try fixture.open(try SampleModels.flickr())
        let context = try Container(store: store).newBackgroundContext()
        let directory = try TemporaryDirectory()
        let url = directory.file("photos.ndjson")
        let records = (1...95).map { #"{"id": "\#($0)", "title": "t\#($0)", "views": \#($0 * 3), "owner": {"nsid": "o\#($0 % 7)"}}"# }
        try Data((records.joined(separator: "\n") + "\n").utf8).write(to: url)
        let importer = Importer(context: context, options: ImportOptions(batchSize: 10))
        var chunks = 0
        do {
            _ = try importer.importStream(.file(url), into: "Photo", format: .ndjson, isCancelled: {
                chunks += 1
                return chunks == 3
            })
            throw ConformanceFailure("an import cancelled after two chunks finished")
        } catch let error as ImportError where error.code == .cancelled {}
        let kept = try store.count(of: "Photo")
        try expect(kept == 30, "a cancelled import left \(kept) photos, not its two chunks' 30")
        let saved = try ImportCheckpoint.all(in: store).first { $0.entity == "Photo" }
        try expect(saved?.records == 30, "the checkpoint says \(String(describing: saved?.records)) records, not 30")
        let resumed = try Importer(context: context, options: ImportOptions(batchSize: 10)).importStream(.file(url), into: "Photo", format: .ndjson)
        try expect(resumed.resumedAt?.records == 30 && resumed.recordsRead == 65, "the import resumed at \(String(describing: resumed.resumedAt)) and read \(resumed.recordsRead)")
        let (photos, owners) = (try store.count(of: "Photo"), try store.count(of: "Owner"))
        try expect(photos == 95 && owners == 7, "after resuming the store holds \(photos) photos and \(owners) owners, not 95 and 7")
        try expect(try ImportCheckpoint.all(in: store).isEmpty, "the last chunk left its checkpoint")
    }

    // MARK: Helpers

    /// The differential data set in an SQLite store (the reference) and in the fixture's store.
    private static func differentialStores(_ fixture: Fixture) throws
        -> (reference: (context: ObjectContext, directory: TemporaryDirectory), context: ObjectContext) {
        let directory = try TemporaryDirectory()
        let reference = try DifferentialDataSet.makeContainer(at: directory.file("reference.trove")).newBackgroundContext()
        let container = try Container(store: fixture.open(DifferentialDataSet.model()))
        try DifferentialDataSet.populate(container.newBackgroundContext())
        return ((reference, directory), container.newBackgroundContext())
    }

    /// Each object's first attribute (its id, name or label), in order.
    private static func labels(_ objects: some Sequence<ManagedObject>) throws -> [String] {
        try objects.map { object in
            let value = try object.value(forKey: object.entity.attributes[0].name)
            return value.text ?? "\(value)"
        }
    }

    /// An object's label and the labels of what `key` relates it to (in order where the
    /// relationship is ordered, sorted otherwise).
    private static func relatedLabels(_ object: ManagedObject, _ key: String) throws -> String {
        guard let relationship = object.entity.relationship(named: key), relationship.isToMany else {
            return "\(try labels([object])) → \(try labels(object.relatedObject(forKey: key).map { [$0] } ?? []))"
        }
        let related = try labels(object.relatedObjects(forKey: key))
        return "\(try labels([object])) → \(relationship.isOrdered ? related : related.sorted())"
    }

    static func expect(_ condition: @autoclosure () throws -> Bool, _ message: @autoclosure () -> String) throws {
        guard try condition() else { throw ConformanceFailure(message()) }
    }
}

/// How a store differs from what ``StoreConformance`` requires.
public struct ConformanceFailure: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
