public import TroveModel

/// The IDs a query selects, kept compactly: 8 bytes per object (10 in an entity hierarchy),
/// where an array of ``ObjectID`` takes about 48. Batched fetch results of millions of objects
/// hold one of these.
public struct ObjectIDList: RandomAccessCollection, Sendable {
    /// The entities the IDs name (one, unless the query's entity has sub-entities).
    private var entities: [Entity] = []
    /// An ID of each entity, whose `saved(as:)` makes the IDs.
    private var prototypes: [ObjectID] = []
    private var positions: [String: UInt16] = [:]
    private var keys: [Int64] = []
    /// Per ID, the index of its entity in `entities`; empty while there is only one entity.
    private var kinds: [UInt16] = []

    init() {}

    /// Adds the ID of the row with primary key `key` of `entity`.
    mutating func append(_ key: Int64, of entity: Entity) {
        if entities.count == 1, entities[0].name == entity.name {
            keys.append(key)
            return
        }
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

    /// The entity of the ID at `position`.
    public func entity(at position: Int) -> Entity {
        entities[kinds.isEmpty ? 0 : Int(kinds[position])]
    }
}
