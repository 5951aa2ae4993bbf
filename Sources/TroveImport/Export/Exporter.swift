public import Foundation
public import TroveContext
public import TroveModel
public import TrovePredicate

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
    /// Each entity's record shapes, by what they depend on (`nil`: its key paths overlap).
    private var shapes: [ShapeKey: RecordShape?] = [:]

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

    /// Writes the records of the objects `request` selects, in its order, as UTF-8 JSON text in
    /// pieces handed to `output` (each about 64 KiB, ending with a record or the array's end).
    ///
    /// `.json` writes one array with a record per line; `.ndjson` a record per line. The
    /// request's batch size is ``ExportOptions/batchSize`` when it has none, and the
    /// relationships the records need are prefetched with each batch. A piece is handed over
    /// only for the call: `output` copies what it keeps.
    /// - Returns: how many records were written.
    /// - Throws: ``ExportError`` for an unknown entity or options out of range (before
    ///   anything is written); the store's error if reading fails; what `output` throws.
    @discardableResult
    public func export(_ request: FetchRequest, format: ExportFormat, to output: ([UInt8]) throws -> Void) throws -> Int {
        try options.validate()
        guard let entity = context.model.entity(named: request.entityName) else {
            throw ExportError(.unknownEntity, "cannot export '\(request.entityName)': the model has no such entity; entities: \(context.model.entities.map(\.name).joined(separator: ", "))")
        }
        var request = request
        if request.fetchBatchSize == 0 { request.fetchBatchSize = options.batchSize }
        if request.relationshipKeyPathsForPrefetching.isEmpty { request.relationshipKeyPathsForPrefetching = try prefetchPaths(for: entity) }
        var out = JSONBytes(capacity: Self.pieceSize + Self.pieceSize / 4)
        var count = 0
        for object in try context.fetch(request) {
            if format == .json { out.append(raw: (count == 0 ? "[\n" : ",\n").utf8) }
            try write(object, level: 0, skipping: nil, to: &out)
            if format == .ndjson { out.append(ascii: "\n") }
            count += 1
            if out.bytes.count >= Self.pieceSize {
                try output(out.bytes)
                out.bytes.removeAll(keepingCapacity: true)
            }
        }
        if format == .json { out.append(raw: (count == 0 ? "[]\n" : "\n]\n").utf8) }
        if !out.bytes.isEmpty { try output(out.bytes) }
        return count
    }

    /// The size a piece of ``export(_:format:to:)``'s text reaches before it is handed over.
    static let pieceSize = 1 << 16

    /// The records of the objects `request` selects, as JSON text in one piece of memory;
    /// ``export(_:format:to:)`` streams them instead.
    /// - Throws: as ``export(_:format:to:)``.
    public func exportJSON(_ request: FetchRequest, format: ExportFormat = .json) throws -> Data {
        var data = Data()
        try export(request, format: format) { data.append(contentsOf: $0) }
        return data
    }

    // MARK: Writing records

    /// Appends the record of `object` at nesting `level` without the relationship `skipped`:
    /// the text of ``record(of:level:skipping:)``'s value, written from the entity's
    /// ``RecordShape`` (or from that value, for an entity whose key paths overlap).
    private func write(_ object: ManagedObject, level: Int, skipping skipped: String?, to out: inout JSONBytes) throws {
        let nests = options.relationships == .nested && level < options.depth
        guard let shape = try shape(of: object.entity, skipping: skipped) else {
            out.append(try record(of: object, level: level, skipping: skipped))
            return
        }
        out.append(ascii: "{")
        _ = try write(shape.members, of: object, writers: writers(for: object.entity), nests: nests, level: level, to: &out)
        out.append(ascii: "}")
    }

    /// Appends `members` of `object`'s record, separated by commas; returns how many were
    /// written (a relationship or a key path's object may be left out).
    private func write(_ members: [RecordShape.Member], of object: ManagedObject, writers: [AttributeWriter],
                       nests: Bool, level: Int, to out: inout JSONBytes) throws -> Int {
        var written = 0
        for member in members {
            let start = out.bytes.count
            if written > 0 { out.append(ascii: ",") }
            out.append(raw: member.key)
            let wrote: Bool
            switch member.content {
            case .attribute(let index, let name):
                writers[index].write(try object.value(forKey: name), to: &out)
                wrote = true
            case .relationship(let relationship):
                wrote = try write(relationship, of: object, nested: nests, level: level, to: &out)
            case .object(let inner):
                out.append(ascii: "{")
                wrote = try write(inner, of: object, writers: writers, nests: nests, level: level, to: &out) > 0
                out.append(ascii: "}")
            }
            if wrote { written += 1 } else { out.bytes.removeSubrange(start...) }
        }
        return written
    }

    /// Appends a relationship's value, as ``value(of:in:nested:level:)`` makes it; returns
    /// `false` (what it appended to be taken back) where that gives `nil`.
    private func write(_ relationship: EntityMapping.RelationshipMapping, of object: ManagedObject, nested: Bool,
                       level: Int, to out: inout JSONBytes) throws -> Bool {
        let name = relationship.relationship.name
        guard nested || relationship.referenceKey != nil || !relationship.destination.uniqueBy.isEmpty else { return false }
        let item = { (target: ManagedObject, out: inout JSONBytes) throws -> Bool in
            if nested {
                try self.write(target, level: level + 1, skipping: relationship.relationship.inverse, to: &out)
                return true
            }
            return try self.writeKey(of: target, through: relationship, to: &out)
        }
        guard relationship.relationship.isToMany else {
            guard let target = try object.relatedObject(forKey: name) else {
                out.append(raw: "null".utf8)
                return true
            }
            return try item(target, &out)
        }
        out.append(ascii: "[")
        for (index, target) in try object.relatedObjects(forKey: name).enumerated() {
            if index > 0 { out.append(ascii: ",") }
            guard try item(target, &out) else { return false }
        }
        out.append(ascii: "]")
        return true
    }

    /// Appends how the import names `target` through `relationship`, as ``key(of:through:)``
    /// makes it; returns `false` where that gives `nil`.
    private func writeKey(of target: ManagedObject, through relationship: EntityMapping.RelationshipMapping, to out: inout JSONBytes) throws -> Bool {
        guard let reference = relationship.referenceKey else {
            guard let key = try key(of: target, through: relationship) else { return false }
            out.append(key)
            return true
        }
        let value = try target.value(forKey: relationship.destination.attributes[reference.index].name)
        guard !value.isNull else { return false }
        writers(for: relationship.destination)[reference.index].write(value, to: &out)
        return true
    }

    /// The shape of `entity`'s records without the relationship `skipped`, made once; `nil`
    /// when its key paths overlap.
    private func shape(of entity: Entity, skipping skipped: String?) throws -> RecordShape? {
        let key = ShapeKey(entity: entity.name, skipped: skipped)
        if let shape = shapes[key] { return shape }
        let shape = RecordShape(try mappings.mapping(for: entity), withRelationships: options.relationships != .none, skipping: skipped)
        shapes[key] = shape
        return shape
    }

    /// What a record's shape depends on.
    private struct ShapeKey: Hashable {
        let entity: String
        let skipped: String?
    }

    // MARK: Records as values

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
