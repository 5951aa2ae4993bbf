import Foundation
public import Testing
import Trove
import TroveTesting

extension PredicateCase: CustomTestStringConvertible {
    var testDescription: String {
        "\(entity) where \(format)" + (arguments.isEmpty ? "" : " \(arguments.map { Self.describe($0) })")
            + (variables.isEmpty ? "" : " with \(variables.keys.sorted())")
    }

    private static func describe(_ argument: PredicateArgumentValue) -> String {
        let text = "\(argument)"
        return text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}

/// A store holding a data set, read from a fresh context so that nothing is pending: the SQL
/// side is `context.fetch`, the in-memory side is `CheckedPredicate.evaluate` over every object.
struct DifferentialStore {
    let directory: TemporaryDirectory
    let container: Container
    let context: ObjectContext

    /// The store of ``DifferentialDataSet``, its objects instances of `classes`.
    init(classes: [any EntityClass.Type] = []) throws {
        directory = try TemporaryDirectory()
        container = try DifferentialDataSet.makeContainer(at: directory.file("differential.trove"), classes: classes)
        context = container.newBackgroundContext()
    }

    /// An empty store of `model`; `fill` inserts into a context that is then saved.
    init(model: Model, fill: (ObjectContext) throws -> Void) throws {
        directory = try TemporaryDirectory()
        container = try Container(model: model, url: directory.file("differential.trove"))
        let writer = container.newBackgroundContext()
        try fill(writer)
        try writer.save()
        context = container.newBackgroundContext()
    }

    var model: Model { container.model }

    /// What the SQL statement selects, in its order.
    func sqlObjects(_ request: FetchRequest) throws -> [ManagedObject] {
        var request = request
        request.includesPendingChanges = false
        return Array(try context.fetch(request))
    }

    /// Every object of `entity`, in primary-key order.
    func allObjects(_ entity: String) throws -> [ManagedObject] {
        try sqlObjects(FetchRequest(entityName: entity))
    }

    /// What the in-memory evaluator selects, in primary-key order.
    func memoryObjects(_ entity: String, _ predicate: ObjectPredicate) throws -> [ManagedObject] {
        let checked = try predicate.checked(for: try #require(model.entity(named: entity)), in: model)
        return try allObjects(entity).filter { try checked.evaluate(with: $0) }
    }

    /// The objects in memory, sorted by `descriptors` with the primary key breaking ties.
    func memorySorted(_ objects: [ManagedObject], by descriptors: [SortKey], entity: String) throws -> [ManagedObject] {
        let entity = try #require(model.entity(named: entity))
        let checked = try descriptors.map { try $0.checked(for: entity, in: model) }
        return objects.sorted { a, b in
            switch checked.compare(a, b) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: (a.objectID.primaryKey ?? 0) < (b.objectID.primaryKey ?? 0)
            }
        }
    }

    /// A readable name for each object: its first attribute (id, uniqueId, name, label).
    func labels(_ objects: [ManagedObject]) -> [String] {
        objects.map { object in
            let value = (try? object.value(forKey: object.entity.attributes[0].name)) ?? .null
            return value.text.map { $0.count > 40 ? String($0.prefix(40)) + "…" : $0 } ?? "\(object.objectID)"
        }
    }

    /// Runs `predicate` both ways and checks they agree; returns the SQL result.
    @discardableResult
    func expectSameResults(_ entity: String, _ predicate: ObjectPredicate, expected: Int?,
                           sourceLocation: SourceLocation = #_sourceLocation) throws -> [ManagedObject] {
        let sql = try sqlObjects(FetchRequest(entityName: entity, predicate: predicate))
        let memory = try memoryObjects(entity, predicate)
        #expect(labels(sql) == labels(memory), "SQL and in-memory evaluation disagree", sourceLocation: sourceLocation)
        #expect(sql.map(\.objectID) == memory.map(\.objectID), sourceLocation: sourceLocation)
        if let expected {
            #expect(sql.count == expected, "SQL selects \(labels(sql))", sourceLocation: sourceLocation)
            #expect(memory.count == expected, "in memory selects \(labels(memory))", sourceLocation: sourceLocation)
        }
        let counted = try context.count(for: FetchRequest(entityName: entity, predicate: predicate))
        #expect(counted == sql.count, "count(for:) agrees with fetch", sourceLocation: sourceLocation)
        return sql
    }
}
