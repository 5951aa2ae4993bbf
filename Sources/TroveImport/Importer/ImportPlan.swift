import TroveModel
import TrovePredicate

/// One object a record describes, read and coerced but not yet applied: what to find or
/// create, the values to set and the relationships to link.
final class ImportNode {
    let mapping: EntityMapping
    /// The JSON path of this object within its top-level record ("" for the record itself).
    let path: String
    /// The record this object was read from.
    let source: RecordSource
    // Filled by the thread that reads the record, then only read: no run-time exclusivity checks.
    @exclusivity(unchecked) var values: [(index: Int, value: AttributeValue)] = []
    /// The values of a new object made from this node: the defaults, with ``values`` set. Made
    /// on the reading thread, so that the importing thread takes it as it is.
    @exclusivity(unchecked) var newObjectValues: [AttributeValue] = []
    @exclusivity(unchecked) var coercions: [CoercionKind] = []
    @exclusivity(unchecked) var key: UniqueKey?
    @exclusivity(unchecked) var toOne: [(index: Int, target: ImportTarget?)] = []
    @exclusivity(unchecked) var toMany: [(index: Int, targets: [ImportTarget])] = []
    @exclusivity(unchecked) var handled: [(handler: ImportHooks.KeyHandler, value: JSONValue)] = []
    @exclusivity(unchecked) var unknownKeys: [String] = []

    init(mapping: EntityMapping, path: String, source: RecordSource) {
        self.mapping = mapping
        self.path = path
        self.source = source
    }

    /// The record this object was read from.
    var record: JSONValue {
        get throws(ImportError) { try source.value }
    }

    /// Adds this node and every node nested in it to `nodes`, and the references (scalar keys)
    /// of all their relationships to `references`: one walk, no arrays in between.
    func collect(into nodes: inout [ImportNode], references: inout [(key: UniqueKey, destination: Entity)]) {
        nodes.append(self)
        func visit(_ target: ImportTarget) {
            switch target {
            case .node(let nested): nested.collect(into: &nodes, references: &references)
            case .reference(let key, let destination): references.append((key, destination))
            }
        }
        for (_, target) in toOne {
            if let target { visit(target) }
        }
        for (_, targets) in toMany {
            for target in targets { visit(target) }
        }
    }
}

/// A record as read: its value, or its JSON text when it was read straight from its bytes
/// (``RecordScanner``), parsed again only when asked for (to report or hand it to a hook).
enum RecordSource {
    case value(JSONValue)
    /// The top-level record's text (one copy, shared by the objects nested in it), and the
    /// range of this object's.
    case text([UInt8], Range<Int>)

    /// The record's value.
    /// - Throws: ``ImportError`` `.invalidJSON` if its text, checked when it was read, no
    ///   longer parses (never expected: the text is not changed in between).
    var value: JSONValue {
        get throws(ImportError) {
            switch self {
            case .value(let value): return value
            case .text(let bytes, let range):
                do {
                    return try bytes.withUnsafeBufferPointer { try JSONValue(parsing: UnsafeBufferPointer(rebasing: $0[range])) }
                } catch {
                    throw ImportError(.invalidJSON, "a record read at bytes \(range.lowerBound)..<\(range.upperBound) of its chunk could not be parsed again: \(error)")
                }
            }
        }
    }
}

/// What a relationship value in a record points at.
enum ImportTarget {
    /// A nested object, imported into the destination entity.
    case node(ImportNode)
    /// A scalar naming a destination object by its key.
    case reference(UniqueKey, destination: Entity)
}

/// The values of a uniqueness constraint: objects with equal keys are the same object.
struct UniqueKey: Hashable {
    /// The root of the entity's hierarchy (a key is unique across it).
    let root: String
    /// The attributes' positions.
    let attributes: [Int]
    let values: [AttributeValue]
    /// The values' hash, computed once: a key is made on the thread that reads records and
    /// looked up several times on the one that writes them.
    let valuesHash: Int

    init(root: String, attributes: [Int], values: [AttributeValue]) {
        self.root = root
        self.attributes = attributes
        self.values = values
        valuesHash = values.hashValue
    }

    /// Keys of one constraint of one hierarchy: looked up together, in one query.
    struct Group: Hashable, Comparable {
        let root: String
        let attributes: [Int]

        static func < (a: Group, b: Group) -> Bool {
            a.root != b.root ? a.root < b.root : a.attributes.lexicographicallyPrecedes(b.attributes)
        }
    }

    static func == (a: UniqueKey, b: UniqueKey) -> Bool {
        a.valuesHash == b.valuesHash && a.values == b.values && a.attributes == b.attributes && a.root == b.root
    }

    // The values alone are enough to spread keys (the root and attributes are mostly the same ones).
    func hash(into hasher: inout Hasher) {
        hasher.combine(valuesHash)
    }
}

/// One query of a batch's find-or-create: the keys of one constraint of one hierarchy.
struct KeyLookup {
    let group: UniqueKey.Group
    /// The entity the keys were read for (its attribute positions are the keys' positions).
    let entity: Entity
    let keys: Set<UniqueKey>

    /// Selects the objects that hold any of the keys (for a find that registers objects; rows
    /// are found by their keys alone).
    var predicate: ObjectPredicate { Self.predicate(matching: keys, of: entity) }

    /// The lookups of some plans' objects and references, in a stable order (so that batches
    /// lock rows in the same order).
    static func lookups(_ plans: [ParsedRecords.Plan]) -> [KeyLookup] {
        // A batch has a few groups: found by a linear search, cheaper than hashing each key's group.
        var groups: [(group: UniqueKey.Group, entity: Entity, keys: Set<UniqueKey>)] = []
        func add(_ key: UniqueKey, _ entity: @autoclosure () -> Entity) {
            if let at = groups.firstIndex(where: { $0.group.root == key.root && $0.group.attributes == key.attributes }) {
                groups[at].keys.insert(key)
            } else {
                // Sized for a key a record: a set that grows rehashes every key it holds.
                var keys = Set<UniqueKey>(minimumCapacity: plans.count)
                keys.insert(key)
                groups.append((UniqueKey.Group(root: key.root, attributes: key.attributes), entity(), keys))
            }
        }
        for plan in plans {
            for node in plan.nodes {
                if let key = node.key { add(key, node.mapping.entity) }
            }
            for (key, destination) in plan.references { add(key, destination) }
        }
        return groups.sorted { $0.group < $1.group }.map { found in
            KeyLookup(group: found.group, entity: found.entity, keys: found.keys)
        }
    }

    /// A predicate selecting the objects that hold any of `keys` (all of one group); the
    /// attributes are named as in `entity`. Built as a tree: a format string of a thousand
    /// arguments would cost more to parse than the query costs to run.
    private static func predicate(matching keys: Set<UniqueKey>, of entity: Entity) -> ObjectPredicate {
        guard let sample = keys.first else { return ObjectPredicate(root: .constant(false), format: nil) }
        let names = sample.attributes.map { ObjectPredicate.KeyPath([entity.attributes[$0].name]) }
        if names.count == 1 {
            let values = keys.map { ObjectPredicate.Expression.value($0.values[0]) }
            return ObjectPredicate(root: .comparison(.init(.keyPath(names[0]), .in, .list(values))), format: nil)
        }
        let matches = keys.map { key in
            ObjectPredicate.Node.and(zip(names, key.values).map { name, value in
                .comparison(.init(.keyPath(name), .equal, .value(value)))
            })
        }
        return ObjectPredicate(root: .or(matches), format: nil)
    }
}

/// Why a record is rejected, found while reading it.
struct Rejection: Error {
    let path: String
    let excerpt: String
    let expected: String
    let reason: String

    init(path: String, value: JSONValue?, expected: String, reason: String) {
        self.path = path
        self.excerpt = value.map { Rejection.excerpt(of: $0) } ?? ""
        self.expected = expected
        self.reason = reason
    }

    /// The start of a value as compact JSON, at most 80 characters.
    static func excerpt(of value: JSONValue) -> String {
        let text = value.serialized()
        return text.count > 80 ? String(text.prefix(77)) + "…" : text
    }

    func rejected(index: Int, record: JSONValue) -> RejectedRecord {
        RejectedRecord(index: index, path: path, excerpt: excerpt, expected: expected, reason: reason, record: record.serialized())
    }
}
