import TroveModel

/// The members of an entity's exported records, worked out once: each key escaped and in the
/// order ``JSONValue/serialized(pretty:)`` writes it (by the key's bytes), a dotted key path
/// as nested members. The exporter writes a record by walking it, with no `JSONValue` made.
struct RecordShape {
    /// What a member holds.
    enum Content {
        /// The attribute at this index of the entity, and its name.
        case attribute(Int, name: String)
        /// A relationship, as ``ExportOptions/Relationships`` says; left out when it cannot be
        /// written (see ``Exporter``).
        case relationship(EntityMapping.RelationshipMapping)
        /// An object of members (a key path's inner level); left out when none of them is written.
        case object([Member])
    }

    /// A member: its key as JSON text with the colon (`"title":`), and what it holds.
    struct Member {
        let key: [UInt8]
        let content: Content
    }

    /// The top level's members.
    let members: [Member]

    /// The shape of the records `mapping` gives, with its attributes and (when `withRelationships`)
    /// its relationships but `skipped`; `nil` when two members' key paths overlap (one is the other
    /// or leads into it), which only the exporter's `JSONObject` building resolves as the import sees it.
    init?(_ mapping: EntityMapping, withRelationships: Bool, skipping skipped: String?) {
        var entries: [(path: ArraySlice<[UInt8]>, content: Content)] = []
        for attribute in mapping.attributes {
            guard let keyPath = attribute.keyPaths.first else { continue }
            entries.append((keyPath.map { Array($0.utf8) }[...], .attribute(attribute.index, name: attribute.attribute.name)))
        }
        if withRelationships {
            for relationship in mapping.relationships where relationship.relationship.name != skipped {
                guard let keyPath = relationship.keyPaths.first else { continue }
                entries.append((keyPath.map { Array($0.utf8) }[...], .relationship(relationship)))
            }
        }
        for (index, entry) in entries.enumerated() {
            for other in entries[(index + 1)...] where entry.path.starts(with: other.path) || other.path.starts(with: entry.path) {
                return nil
            }
        }
        members = Self.members(of: entries)
    }

    /// The members of `entries` (whose paths do not overlap), grouped by their first key, in
    /// the order of its bytes.
    private static func members(of entries: [(path: ArraySlice<[UInt8]>, content: Content)]) -> [Member] {
        var groups: [[UInt8]: [(path: ArraySlice<[UInt8]>, content: Content)]] = [:]
        for entry in entries {
            guard let first = entry.path.first else { continue }
            groups[first, default: []].append((entry.path.dropFirst(), entry.content))
        }
        return groups.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { key, inner in
            var text = JSONBytes()
            text.append(string: String(decoding: key, as: UTF8.self))
            text.append(ascii: ":")
            // Paths do not overlap: a group is one path ending here, or paths that all go on.
            if inner.count == 1, inner[0].path.isEmpty { return Member(key: text.bytes, content: inner[0].content) }
            return Member(key: text.bytes, content: .object(members(of: inner)))
        }
    }
}
