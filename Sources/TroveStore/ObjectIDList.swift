public import TroveModel

/// The IDs a query selects, kept compactly: batched fetch results of millions of objects hold
/// one of these.
///
/// Keys that follow one another (a fetch in primary-key order of a table with few deletions)
/// take 16 bytes per run, whatever its length; otherwise each key takes 8 bytes (plus 2 per ID
/// in an entity hierarchy), where an array of ``ObjectID`` takes 24.
public struct ObjectIDList: RandomAccessCollection, Sendable {
    /// The entities the IDs name (one, unless the query's entity has sub-entities).
    private var entities: [Entity] = []
    /// An ID of each entity, whose `saved(as:)` makes the IDs.
    private var prototypes: [ObjectID] = []
    private var positions: [String: UInt16] = [:]
    private var keys = KeyList()
    /// Per ID, the index of its entity in `entities`; empty while there is only one entity.
    private var kinds: [UInt16] = []

    /// An empty list of IDs of `entity` (and, through ``append(_:of:)``, of others).
    public init(entity: Entity) {
        entities = [entity]
        prototypes = [ObjectID(entity: entity, primaryKey: 0)]
        positions = [entity.name: 0]
    }

    /// Adds the ID of the row with primary key `key` of the list's first entity.
    public mutating func append(_ key: Int64) {
        keys.append(key)
        if !kinds.isEmpty { kinds.append(0) }
    }

    /// Adds the ID of the row with primary key `key` of `entity`.
    public mutating func append(_ key: Int64, of entity: Entity) {
        let position: UInt16
        if let known = positions[entity.name] {
            position = known
        } else {
            position = UInt16(entities.count)
            positions[entity.name] = position
            entities.append(entity)
            prototypes.append(ObjectID(entity: entity, primaryKey: 0))
            if position == 1 { kinds = Array(repeating: 0, count: keys.count) }
        }
        keys.append(key)
        if entities.count > 1 { kinds.append(position) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }

    public subscript(position: Int) -> ObjectID {
        prototypes[kinds.isEmpty ? 0 : Int(kinds[position])].saved(as: keys[position])
    }

    /// The IDs at `positions`, in order (cheaper than one subscript per ID).
    package func ids(in positions: Range<Int>) -> [ObjectID] {
        var ids: [ObjectID] = []
        ids.reserveCapacity(positions.count)
        keys.forEach(in: positions) { position, key in
            ids.append(prototypes[kinds.isEmpty ? 0 : Int(kinds[position])].saved(as: key))
        }
        return ids
    }

    /// Every ID, in order (cheaper than one subscript per ID).
    package var allIDs: [ObjectID] { ids(in: 0..<count) }

    /// The entity of the ID at `position`.
    public func entity(at position: Int) -> Entity {
        entities[kinds.isEmpty ? 0 : Int(kinds[position])]
    }
}

/// Primary keys in the order appended: as runs of consecutive keys while there are fewer runs
/// than half the keys, then as the keys themselves.
struct KeyList: Sendable {
    /// The position of each run's first key, and that key (while runs are kept).
    private var runStarts: [Int] = []
    private var runKeys: [Int64] = []
    /// Every key, once runs are no longer smaller.
    private var plain: [Int64] = []
    private var keepsRuns = true
    private(set) var count = 0

    /// Below this many keys, runs are kept whatever their length.
    private static let smallest = 64

    public mutating func append(_ key: Int64) {
        defer { count += 1 }
        guard keepsRuns else {
            plain.append(key)
            return
        }
        if let start = runStarts.last, let first = runKeys.last {
            let (next, overflow) = first.addingReportingOverflow(Int64(count - start))
            if !overflow, key == next { return }
        }
        runStarts.append(count)
        runKeys.append(key)
        if count >= Self.smallest, runStarts.count * 2 > count {
            // As many runs as half the keys: the keys themselves take less room.
            var keys: [Int64] = []
            keys.reserveCapacity(count + 1)
            for run in runStarts.indices.dropLast() {
                for offset in 0..<(runStarts[run + 1] - runStarts[run]) { keys.append(runKeys[run] + Int64(offset)) }
            }
            keys.append(key)
            plain = keys
            runStarts = []
            runKeys = []
            keepsRuns = false
        }
    }

    subscript(position: Int) -> Int64 {
        guard keepsRuns else { return plain[position] }
        let run = self.run(holding: position)
        return runKeys[run] + Int64(position - runStarts[run])
    }

    /// Calls `body` with each position of `positions` and its key, in order.
    func forEach(in positions: Range<Int>, _ body: (Int, Int64) -> Void) {
        guard keepsRuns else {
            for position in positions { body(position, plain[position]) }
            return
        }
        guard !positions.isEmpty else { return }
        var run = self.run(holding: positions.lowerBound)
        for position in positions {
            if run + 1 < runStarts.count, runStarts[run + 1] == position { run += 1 }
            body(position, runKeys[run] + Int64(position - runStarts[run]))
        }
    }

    /// The index of the run holding `position`: the last run starting at or before it.
    private func run(holding position: Int) -> Int {
        precondition(position >= 0 && position < count, "position \(position) is outside 0..<\(count)")
        var low = 0
        var high = runStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if runStarts[middle] <= position { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
