import Foundation
import TroveModel

/// Reads top-level records straight from their JSON bytes into ``ImportNode``s, without
/// building each record as a ``JSONValue`` first: every member's key is matched against the
/// keys the entity reads, only those members' values are built, and the others are checked
/// and skipped. The rules and results are ``ImportParser``'s (it shares its coercing and
/// relationship code, and nested objects go through it); the JSON is checked as strictly, with
/// the same errors at the same offsets.
///
/// Used for entities whose remote keys are all single keys (no key paths such as `owner.name`)
/// and that have no before-record hook or key handler (both need the whole record first);
/// records of other entities are parsed whole and handed to the ``ImportParser``. Keeps
/// per-entity key tables that learn the order records list their keys in, so a key is
/// usually matched by one comparison: one scanner per thread. (Only that thread touches the
/// scanner's state, and matching keys is an import's hottest loop: its properties skip the
/// run-time exclusivity checks, which cost a tenth of the reading.)
final class RecordScanner {
    /// The keys one entity reads, and those seen that it does not.
    private final class KeyTable {
        struct Entry {
            let bytes: [UInt8]
            let name: String
            /// The attributes (by position) and relationships (by position after the
            /// attributes) reading this key, with the key's rank among each one's candidate keys.
            let targets: [(slot: Int, rank: Int)]
        }

        let mapping: EntityMapping
        /// Per relationship position: its mapping when it is to-one (its nested objects are
        /// read straight from their bytes too), else `nil`.
        let toOne: [EntityMapping.RelationshipMapping?]
        /// Per relationship position: the destination's table, once asked for (`.some(nil)`:
        /// the destination is read through the parser).
        @exclusivity(unchecked) var destinations: [KeyTable??]
        @exclusivity(unchecked) private(set) var entries: [Entry] = []
        /// The entry that followed each entry in the last record (`entries.count`: none yet);
        /// the last element is the one that came first.
        @exclusivity(unchecked) private var successor: [Int] = []
        /// Unknown keys are remembered up to this many, so that a record of random keys cannot
        /// grow the table without end.
        private static let unknownLimit = 64
        @exclusivity(unchecked) private var unknownCount = 0

        /// `nil` when some attribute or relationship reads a key path.
        init?(_ mapping: EntityMapping) {
            self.mapping = mapping
            var toOne = [EntityMapping.RelationshipMapping?](repeating: nil, count: mapping.entity.relationships.count)
            for relationship in mapping.relationships where !relationship.relationship.isToMany {
                toOne[relationship.index] = relationship
            }
            self.toOne = toOne
            destinations = Array(repeating: nil, count: toOne.count)
            var targets: [String: [(slot: Int, rank: Int)]] = [:]
            var order: [String] = []
            let paths = mapping.attributes.map { ($0.index, $0.keyPaths) }
                + mapping.relationships.map { (mapping.attributeNames.count + $0.index, $0.keyPaths) }
            for (slot, keyPaths) in paths {
                for (rank, keyPath) in keyPaths.enumerated() {
                    guard keyPath.count == 1 else { return nil }
                    if targets[keyPath[0]] == nil { order.append(keyPath[0]) }
                    targets[keyPath[0], default: []].append((slot, rank))
                }
            }
            for name in order { add(name, targets: targets[name] ?? []) }
        }

        private func add(_ name: String, targets: [(slot: Int, rank: Int)]) {
            entries.append(Entry(bytes: Array(name.utf8), name: name, targets: targets))
            successor = Array(repeating: entries.count, count: entries.count + 1)
        }

        /// The entry of `key`, looked for first where the last record had the key after
        /// `previous` (`entries.count` at a record's start); unknown keys are added while the
        /// table has room. `nil` for an unknown key the table has no room for.
        func entry(for key: UnsafeBufferPointer<UInt8>, after previous: Int) -> Int? {
            let guess = successor[previous]
            if guess < entries.count, matches(entries[guess].bytes, key) { return guess }
            for index in entries.indices where index != guess && matches(entries[index].bytes, key) {
                successor[previous] = index
                return index
            }
            guard unknownCount < Self.unknownLimit, let name = String(validating: key, as: UTF8.self) else { return nil }
            unknownCount += 1
            add(name, targets: [])
            successor[previous] = entries.count - 1
            return entries.count - 1
        }

        var start: Int { successor.count - 1 }

        private func matches(_ bytes: [UInt8], _ key: UnsafeBufferPointer<UInt8>) -> Bool {
            guard bytes.count == key.count else { return false }
            guard let keyStart = key.baseAddress else { return true }
            return bytes.withUnsafeBufferPointer { $0.baseAddress.map { memcmp($0, keyStart, key.count) == 0 } ?? false }
        }
    }

    let parser: ImportParser
    /// The entity of the records read.
    let entity: Entity
    /// By entity name; `nil` for an entity read through the ``ImportParser``.
    @exclusivity(unchecked) private var tables: [String: KeyTable?] = [:]
    /// The table asked for last, by entity name: records of one entity follow each other.
    @exclusivity(unchecked) private var lastTable: (entity: String, table: KeyTable?)?
    /// Per nesting depth, per object: the value found for each slot, and the rank of its key.
    @exclusivity(unchecked) private var found: [[(value: ImportParser.Found, rank: Int)?]] = []
    /// Per nesting depth, the unknown keys of the object being read (kept, so that reading a
    /// record allocates none).
    @exclusivity(unchecked) private var unknown: [[String]] = []

    /// A scanner of `entity` records. The entity is held here, not passed to each read: a
    /// closure capturing it copied it (retaining each of its parts) at every call level.
    init(parser: ImportParser, entity: Entity) {
        self.parser = parser
        self.entity = entity
    }

    /// Reads the record in `bytes` (one JSON value, nothing around it) as an ``entity``.
    /// - Throws: the ``JSONParseError`` of invalid JSON (offsets relative to `bytes`); what
    ///   is wrong with a valid record is in the result.
    func read(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> ReadRecord {
        var json = JSONParser(bytes: bytes)
        json.skipWhitespace()
        guard json.peek() == UInt8(ascii: "{"), let table = table(for: entity) else {
            let value = try JSONValue(parsing: bytes)
            return ReadRecord(value, as: entity, parser: parser)
        }
        // Read from a copy that the record's objects keep as their text (one copy a record).
        let text = Array(bytes)
        return try text.withUnsafeBufferPointer { bytes throws(JSONParseError) in
            var json = JSONParser(bytes: bytes)
            json.skipWhitespace()
            let (outcome, source) = try object(&json, text: text, table: table, path: "", depth: 0)
            try json.finishDocument()
            return ReadRecord(outcome: outcome.map { $0 }, source: source)
        }
    }

    /// Reads the object at `json` (at its `{`) with `table`, at `depth` objects below the
    /// record: its node, or why the record is rejected, and its text (a range of `text`, the
    /// record's text that `json` reads). To-one relationships
    /// whose destination has a table of its own read their nested objects the same way.
    private func object(_ json: inout JSONParser, text: [UInt8], table: KeyTable, path: String,
                        depth: Int) throws(JSONParseError) -> (Result<ImportNode, any Error>, RecordSource) {
        let start = json.position
        let mapping = table.mapping
        // A slot per attribute position (transient and derived ones stay empty), then per relationship.
        let attributeCount = mapping.attributeNames.count
        let slots = attributeCount + mapping.relationshipNames.count
        while found.count <= depth {
            found.append([])
            unknown.append([])
        }
        if found[depth].count != slots { found[depth] = Array(repeating: nil, count: slots) }
        for slot in 0..<slots { found[depth][slot] = nil }
        unknown[depth].removeAll(keepingCapacity: true)
        if try json.openObject() {
            var previous = table.start
            repeat {
                let index: Int?
                switch try json.memberKey() {
                case .raw(let key):
                    index = table.entry(for: key, after: previous)
                    // Raw keys are ASCII: always a string.
                    if index == nil { unknown[depth].append(String(decoding: key, as: UTF8.self)) }
                case .decoded(let name):
                    var name = name
                    index = name.withUTF8 { table.entry(for: $0, after: previous) }
                    if index == nil { unknown[depth].append(name) }
                }
                guard let index else {
                    try json.skipValue()
                    continue
                }
                previous = index
                // The entry's targets alone: copying the entry would retain each of its parts.
                let targets = table.entries[index].targets
                // A nested object of a to-one relationship, the key's only reader, is read
                // straight from its bytes when its entity can be.
                if targets.count == 1, json.peek() == UInt8(ascii: "{"), case let (slot, rank) = targets[0],
                   slot >= attributeCount, let relationship = table.toOne[slot - attributeCount],
                   found[depth][slot].map({ rank <= $0.rank }) ?? true, let nested = destination(of: relationship, in: table) {
                    let at = ImportParser.join(path, relationship.keyPaths[rank][0])
                    let (outcome, _) = try object(&json, text: text, table: nested, path: at, depth: depth + 1)
                    found[depth][slot] = (.object(outcome), rank)
                    continue
                }
                // The first candidate key present wins; of one key given twice, the last value.
                var value: JSONValue?
                for (slot, rank) in targets where found[depth][slot].map({ rank <= $0.rank }) ?? true {
                    if value == nil { value = try json.parseValue() }
                    found[depth][slot] = value.map { (.json($0), rank) }
                }
                if value == nil {
                    if targets.isEmpty { unknown[depth].append(table.entries[index].name) }
                    try json.skipValue()
                }
            } while try json.closeMember()
        }

        let source = RecordSource.text(text, start..<json.position)
        let node = ImportNode(mapping: mapping, path: path, source: source)
        node.unknownKeys = Self.once(unknown[depth])
        let values = found[depth]
        do {
            // Every key path is one key (the table's condition).
            try parser.fill(node, path: path,
                            attribute: { attribute in
                                guard let (found, rank) = values[attribute.index], case .json(let value) = found else { return nil }
                                return (value, attribute.keyPaths[rank][0])
                            },
                            relationship: { relationship in
                                values[attributeCount + relationship.index].map { ($0.value, relationship.keyPaths[$0.rank][0]) }
                            })
            return (.success(node), source)
        } catch {
            return (.failure(error), source)
        }
    }

    /// The table of a to-one relationship's destination, or `nil` when its objects are read
    /// through the parser.
    private func destination(of relationship: EntityMapping.RelationshipMapping, in table: KeyTable) -> KeyTable? {
        if let known = table.destinations[relationship.index] { return known }
        let nested = self.table(for: relationship.destination)
        table.destinations[relationship.index] = .some(nested)
        return nested
    }

    /// `keys` without repeats (a key given twice is one unknown key, as in a parsed record).
    private static func once(_ keys: [String]) -> [String] {
        var unique: [String] = []
        unique.reserveCapacity(keys.count)
        if keys.count <= 8 {
            for key in keys where !unique.contains(key) { unique.append(key) }
            return unique
        }
        var seen = Set<String>(minimumCapacity: keys.count)
        for key in keys where seen.insert(key).inserted { unique.append(key) }
        return unique
    }

    /// The key table of an entity read straight from bytes, or `nil` when it is read through
    /// the parser.
    private func table(for entity: Entity) -> KeyTable? {
        if let (name, table) = lastTable, name == entity.name { return table }
        if let table = tables[entity.name] {
            lastTable = (entity.name, table)
            return table
        }
        var table: KeyTable?
        let hooks = parser.hooks
        if hooks.before[entity.name] == nil, hooks.keyHandlers[entity.name]?.isEmpty ?? true,
           let mapping = try? parser.mapping(entity) {
            table = KeyTable(mapping)
        }
        tables[entity.name] = table
        lastTable = (entity.name, table)
        return table
    }
}

/// One record as read: its node (`nil` when a before-record hook skipped it) or why it could
/// not be read, and the record itself, for reports.
struct ReadRecord {
    let outcome: Result<ImportNode?, any Error>
    let source: RecordSource

    init(outcome: Result<ImportNode?, any Error>, source: RecordSource) {
        self.outcome = outcome
        self.source = source
    }

    /// Reads a parsed record with `parser`.
    init(_ record: JSONValue, as entity: Entity, parser: ImportParser) {
        source = .value(record)
        outcome = Result { try parser.parse(record, as: entity, path: "") }
    }
}
