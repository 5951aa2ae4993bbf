import Foundation
import Testing
import Trove
import TroveTesting

/// Export → import, and the comparison of the stores it leaves: the support of the round-trip
/// tests.
enum ExportRoundTrip {
    /// The entities whose objects are exported one by one: the concrete ones, deepest in their
    /// hierarchies first.
    static func exportedEntities(of model: Model) -> [Entity] {
        func depth(_ entity: Entity) -> Int {
            var depth = 0
            var parent = entity.parent
            while let name = parent {
                depth += 1
                parent = model.entity(named: name)?.parent
            }
            return depth
        }
        return model.entities.filter { !$0.isAbstract }.sorted { depth($0) > depth($1) }
    }

    /// Each concrete entity's own objects (not its sub-entities') as exported records.
    static func export(_ container: Container, relationships: ExportOptions.Relationships) throws -> [(entity: String, records: Data)] {
        let exporter = Exporter(context: container.newBackgroundContext(), options: ExportOptions(relationships: relationships, batchSize: 3))
        return try exportedEntities(of: container.model).map { entity in
            (entity.name, try exporter.exportJSON(FetchRequest(entityName: entity.name, includesSubentities: false)))
        }
    }

    /// Imports exports into `container`, each into its entity.
    static func importAll(_ exports: [(entity: String, records: Data)], into container: Container) throws -> ImportReport {
        var total = ImportReport()
        for (entity, records) in exports {
            let report = try Importer(context: container.newBackgroundContext(), options: ImportOptions(batchSize: 4))
                .importJSON(records, into: entity)
            #expect(report.rejectedCount == 0, "\(entity): \(report.rejected.map(\.description))")
            total.merge(report)
        }
        return total
    }

    /// Copies `source` into the empty `target` through exports: first every object without its
    /// relationships — each then exists under its own entity before anything names it (an
    /// import makes an object a record names but does not describe under the relationship's
    /// destination entity, not knowing its sub-entity) — then with them, as keys.
    static func copy(_ source: Container, into target: Container) throws {
        _ = try importAll(try export(source, relationships: .none), into: target)
        _ = try importAll(try export(source, relationships: .keys), into: target)
    }

    /// Every object of the store as a line of text, sorted: its entity, its attributes' values
    /// (exactly: doubles and dates by their bits), and for each relationship the objects it
    /// reaches as their lines' keys (in order for ordered relationships that keep their order,
    /// sorted otherwise).
    static func contents(of container: Container) throws -> [String] {
        let context = container.newBackgroundContext()
        var lines: [String] = []
        for entity in container.model.entities where !entity.isAbstract {
            for object in try context.fetch(FetchRequest(entityName: entity.name, includesSubentities: false)) {
                var line = entity.name + " " + (try identity(of: object))
                for attribute in entity.attributes where attribute.isStored {
                    line += " \(attribute.name)=" + text(try object.value(forKey: attribute.name))
                }
                for relationship in entity.relationships {
                    if relationship.isToMany {
                        var targets = try object.relatedObjects(forKey: relationship.name).map(identity)
                        if !keepsOrder(relationship, of: entity, in: container.model) { targets.sort() }
                        line += " \(relationship.name)=[\(targets.joined(separator: ","))]"
                    } else {
                        line += " \(relationship.name)=" + (try object.relatedObject(forKey: relationship.name).map(identity) ?? "-")
                    }
                }
                lines.append(line)
            }
        }
        return lines.sorted()
    }

    /// Whether the store keeps the order of `relationship`: it is ordered, and of a many-to-many
    /// ordered on both sides, it is the side whose `Entity.relationship` (its declaring entity's
    /// name) sorts first — the join table holds one order (see Exporting.md).
    static func keepsOrder(_ relationship: Relationship, of entity: Entity, in model: Model) -> Bool {
        guard relationship.isOrdered else { return false }
        guard let inverseName = relationship.inverse,
              let inverse = model.entity(named: relationship.destination)?.relationship(named: inverseName),
              inverse.isToMany, inverse.isOrdered else { return true }
        var declaring = entity
        while let parent = declaring.parent.flatMap(model.entity(named:)), parent.relationship(named: relationship.name) != nil { declaring = parent }
        return "\(declaring.name).\(relationship.name)" <= "\(relationship.destination).\(inverseName)"
    }

    /// An object named by its first unique key's values (or all its attributes' when it has none).
    static func identity(of object: ManagedObject) throws -> String {
        let names = object.entity.uniqueBy.first ?? object.entity.attributes.filter(\.isStored).map(\.name)
        return "<" + (try names.map { text(try object.value(forKey: $0)) }.joined(separator: "|")) + ">"
    }

    /// A value as text that tells every two values apart.
    static func text(_ value: AttributeValue) -> String {
        switch value {
        case .double(let d): "double:\(d.bitPattern)"
        case .date(let d): "date:\(d.timeIntervalSinceReferenceDate.bitPattern)"
        case .binary(let data): "binary:\(data.base64EncodedString())"
        case .json(let json): "json:\(json.serialized())"
        case .decimal(let d): "decimal:\(d)"
        default: String(reflecting: value)
        }
    }
}
