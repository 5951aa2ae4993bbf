public import Foundation
public import TroveContext
public import TroveModel

/// Writes objects as the JSON records an ``Importer`` reads back as the same objects: the
/// import's mapping run backwards.
///
/// ```swift
/// let exporter = Exporter(context: context)
/// let data = try exporter.exportJSON(FetchRequest(entityName: "Photo"))
/// ```
/// Each attribute is written under its remote key (the first when there are several; else
/// its name in the model's `keyStyle`); a dotted remote key (`owner.name`) becomes nested
/// objects. Values take the form their coercion reads back unchanged (see ``AttributeCoercer``):
/// dates in the attribute's `dateFormat`, else ISO 8601 in UTC with milliseconds; decimals
/// exact; binary in base64; `json` as JSON. Transient and derived attributes are left out, as
/// the import ignores them; a value transformer is not undone.
///
/// Relationships follow ``ExportOptions/relationships``: nested records, the unique keys of
/// the related objects, or nothing. A relationship to an entity that has no unique key (and no
/// `referenceKey`) cannot be named by key, so the `keys` form leaves it out; `nested` writes
/// its objects whole, and importing such a record makes them again (the import cannot find
/// objects without a key).
///
/// Objects are read ``ExportOptions/batchSize`` at a time and written as they are read, so
/// memory stays flat however many there are.
public final class Exporter {
    /// The context the objects are read in.
    public let context: ObjectContext
    /// How records are written.
    public let options: ExportOptions
    private lazy var mappings = MappingCache(model: context.model, transformers: options.transformers)
    /// Each entity's attribute writers, by attribute position.
    private var writers: [String: [AttributeWriter]] = [:]

    /// An exporter reading objects in `context`.
    public init(context: ObjectContext, options: ExportOptions = ExportOptions()) {
        self.context = context
        self.options = options
    }

    /// The record of `object`, as ``export(_:format:to:)`` writes it.
    /// - Throws: ``ExportError`` for options out of range; the store's error if reading fails.
    public func record(of object: ManagedObject) throws -> JSONValue {
        try options.validate()
        return try record(of: object, level: 0, skipping: nil)
    }

    /// Writes the records of the objects `request` selects, in its order, as JSON text in
    /// pieces handed to `write` (a piece ends with a record, or closes the array).
    ///
    /// `.json` writes one array with a record per line; `.ndjson` a record per line. The
    /// request's batch size is ``ExportOptions/batchSize`` when it has none, and the
    /// relationships the records need are prefetched with each batch.
    /// - Returns: how many records were written.
    /// - Throws: ``ExportError`` for an unknown entity or options out of range (before
    ///   anything is written); the store's error if reading fails; what `write` throws.
    @discardableResult
    public func export(_ request: FetchRequest, format: ExportFormat, to write: (String) throws -> Void) throws -> Int {
        try options.validate()
        guard let entity = context.model.entity(named: request.entityName) else {
            throw ExportError(.unknownEntity, "cannot export '\(request.entityName)': the model has no such entity; entities: \(context.model.entities.map(\.name).joined(separator: ", "))")
        }
        var request = request
        if request.fetchBatchSize == 0 { request.fetchBatchSize = options.batchSize }
        if request.relationshipKeyPathsForPrefetching.isEmpty { request.relationshipKeyPathsForPrefetching = try prefetchPaths(for: entity) }
        var count = 0
        for object in try context.fetch(request) {
            let text = try record(of: object, level: 0, skipping: nil).serialized()
            switch format {
            case .json: try write((count == 0 ? "[\n" : ",\n") + text)
            case .ndjson: try write(text + "\n")
            }
            count += 1
        }
        if format == .json { try write(count == 0 ? "[]\n" : "\n]\n") }
        return count
    }

    /// The records of the objects `request` selects, as JSON text in one piece of memory;
    /// ``export(_:format:to:)`` streams them instead.
    /// - Throws: as ``export(_:format:to:)``.
    public func exportJSON(_ request: FetchRequest, format: ExportFormat = .json) throws -> Data {
        var data = Data()
        try export(request, format: format) { data.append(contentsOf: $0.utf8) }
        return data
    }

    // MARK: Records

    /// The record of `object` at nesting `level` (0 for a top-level record), without the
    /// relationship named `skipped` (the way back to the record it is nested in, which says it).
    private func record(of object: ManagedObject, level: Int, skipping skipped: String?) throws -> JSONValue {
        let entity = object.entity
        let mapping = try mappings.mapping(for: entity)
        let writers = self.writers(for: entity)
        var members = JSONObject()
        for attribute in mapping.attributes {
            guard let keyPath = attribute.keyPaths.first else { continue }
            Self.put(writers[attribute.index].json(try object.value(forKey: attribute.attribute.name)), at: keyPath[...], into: &members)
        }
        guard options.relationships != .none else { return .object(members) }
        let nests = options.relationships == .nested && level < options.depth
        for relationship in mapping.relationships where relationship.relationship.name != skipped {
            guard let keyPath = relationship.keyPaths.first,
                  let value = try self.value(of: relationship, in: object, nested: nests, level: level) else { continue }
            Self.put(value, at: keyPath[...], into: &members)
        }
        return .object(members)
    }

    /// A relationship's value: its objects as nested records or as keys; `nil` when its
    /// destination has no key, or a related object lacks its key's values (the relationship
    /// is then left out whole, so that an import does not unlink the objects it could not name).
    private func value(of relationship: EntityMapping.RelationshipMapping, in object: ManagedObject, nested: Bool, level: Int) throws -> JSONValue? {
        let name = relationship.relationship.name
        guard nested || relationship.referenceKey != nil || !relationship.destination.uniqueBy.isEmpty else { return nil }
        let item: (ManagedObject) throws -> JSONValue? = { target in
            nested ? try self.record(of: target, level: level + 1, skipping: relationship.relationship.inverse)
                : try self.key(of: target, through: relationship)
        }
        guard relationship.relationship.isToMany else {
            guard let target = try object.relatedObject(forKey: name) else { return .null }
            return try item(target)
        }
        var items: [JSONValue] = []
        for target in try object.relatedObjects(forKey: name) {
            guard let value = try item(target) else { return nil }
            items.append(value)
        }
        return .array(items)
    }

    /// How the import names `target` through `relationship`: the value of its reference key,
    /// or an object holding the first of its unique keys it has every value of; `nil` when it
    /// has neither.
    private func key(of target: ManagedObject, through relationship: EntityMapping.RelationshipMapping) throws -> JSONValue? {
        let destination = relationship.destination
        let writers = self.writers(for: destination)
        if let reference = relationship.referenceKey {
            let value = try target.value(forKey: destination.attributes[reference.index].name)
            return value.isNull ? nil : writers[reference.index].json(value)
        }
        let mapping = try mappings.mapping(for: destination)
        constraints: for constraint in mapping.uniqueKeys {
            var members = JSONObject()
            for position in constraint {
                let value = try target.value(forKey: destination.attributes[position].name)
                guard !value.isNull, let keyPath = mapping.attributes.first(where: { $0.index == position })?.keyPaths.first else { continue constraints }
                Self.put(writers[position].json(value), at: keyPath[...], into: &members)
            }
            return .object(members)
        }
        return nil
    }

    /// The writers of an entity's attributes, made once.
    private func writers(for entity: Entity) -> [AttributeWriter] {
        if let writers = writers[entity.name] { return writers }
        let made = entity.attributes.map(AttributeWriter.init)
        writers[entity.name] = made
        return made
    }

    /// Sets `value` at a key path in `object`, making the nested objects on the way.
    private static func put(_ value: JSONValue, at keyPath: ArraySlice<String>, into object: inout JSONObject) {
        guard let first = keyPath.first else { return }
        guard keyPath.count > 1 else {
            object[first] = value
            return
        }
        var inner = object[first]?.objectValue ?? JSONObject()
        put(value, at: keyPath.dropFirst(), into: &inner)
        object[first] = .object(inner)
    }

    /// The relationships a batch's records read: those of the exported entity and, when
    /// nested, those of the objects one level down (but the way back, which they leave out).
    private func prefetchPaths(for entity: Entity) throws -> [String] {
        guard options.relationships != .none else { return [] }
        let mapping = try mappings.mapping(for: entity)
        var paths = mapping.relationships.map(\.relationship.name)
        if options.relationships == .nested {
            for relationship in mapping.relationships {
                paths += relationship.destination.relationships.filter { $0.name != relationship.relationship.inverse }
                    .map { "\(relationship.relationship.name).\($0.name)" }
            }
        }
        return paths
    }
}
