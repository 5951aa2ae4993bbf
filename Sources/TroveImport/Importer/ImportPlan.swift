import TroveModel

/// One object a record describes, read and coerced but not yet applied: what to find or
/// create, the values to set and the relationships to link.
final class ImportNode {
    let mapping: EntityMapping
    /// The JSON path of this object within its top-level record ("" for the record itself).
    let path: String
    let record: JSONValue
    var values: [(index: Int, value: AttributeValue)] = []
    var coercions: [CoercionKind] = []
    var key: UniqueKey?
    var toOne: [(index: Int, target: ImportTarget?)] = []
    var toMany: [(index: Int, targets: [ImportTarget])] = []
    var handled: [(handler: ImportHooks.KeyHandler, value: JSONValue)] = []
    var unknownKeys: [String] = []

    init(mapping: EntityMapping, path: String, record: JSONValue) {
        self.mapping = mapping
        self.path = path
        self.record = record
    }

    /// This node and every node nested in it.
    var allNodes: [ImportNode] {
        var nodes = [self]
        for target in toOne.compactMap(\.target) + toMany.flatMap(\.targets) {
            if case .node(let nested) = target { nodes += nested.allNodes }
        }
        return nodes
    }

    /// Every reference (scalar key) in this node and the nodes nested in it.
    var allReferences: [(key: UniqueKey, destination: Entity)] {
        allNodes.flatMap { node in
            (node.toOne.compactMap(\.target) + node.toMany.flatMap(\.targets)).compactMap { target in
                if case .reference(let key, let destination) = target { return (key, destination) }
                return nil
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
