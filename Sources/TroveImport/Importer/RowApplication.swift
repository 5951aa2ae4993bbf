import TroveContext
import TroveModel
import TroveStore

/// Applies read records as rows, without managed objects: the batch's stored rows are read by
/// key (one query per entity), the records' values are set on copies of them or on new rows,
/// and what differs is written as one change set. The same rules as ``ImportApplication``, at
/// a fraction of its cost, for the records that need nothing only an object can give:
/// ``unsupportedReason(nodes:references:context:hooks:)`` says when a batch must go through objects.
struct RowApplication {
    /// A row as the batch leaves it: a stored row's copy, or a new one.
    private struct Draft {
        let id: ObjectID
        let mapping: EntityMapping
        var values: [AttributeValue]
        var toOne: [Int: Link]
        /// The row as stored; `nil` for a new row.
        let stored: RowSnapshot?
        /// A new row made for a reference, holding only its key (until a record describes it).
        var isStub: Bool
        /// The last record that touched the row, to blame it when the row breaks a rule; -1
        /// for a stored row no record described (found for a reference, or not at all).
        var record: Int
        /// Whether a nested object or a reference made or named the row: rows such records
        /// share are kept for the next batches (``RowCache``).
        var isShared = false
        /// Whether the stored row came from the ``RowCache`` (which then holds it already).
        var isCached = false

        /// Whether the row is stored and the batch left its values and links as they are.
        var isUnchanged: Bool {
            guard let stored else { return false }
            return values == stored.values && !toOne.contains { stored.toOne[$0.key] != $0.value }
        }
    }

    let context: ObjectContext
    /// The mapping of an entity (for its defaults and rules).
    let mapping: (Entity) throws -> EntityMapping
    private var drafts: [Draft] = []
    private var identity: [UniqueKey: Int] = [:]

    init(context: ObjectContext, mapping: @escaping (Entity) throws -> EntityMapping) {
        self.context = context
        self.mapping = mapping
    }

    // MARK: What rows can do

    /// What some plans ask of the way they are applied, in the order met: each entity they
    /// write (the first time), and the first thing about a node that only objects can do.
    /// Found on the thread that reads the plans, so that the importing thread checks a handful.
    enum Need {
        case entity(Entity)
        case objects(reason: String)
    }

    /// The needs of `plans` (see ``Need``): a to-many value, a key handler, or a nested object
    /// without a unique key (it updates whatever the owner links, which only the object knows).
    static func needs(of plans: [ParsedRecords.Plan]) -> [Need] {
        var needs: [Need] = []
        var mappings: [ObjectIdentifier] = []
        var destinations: Set<String> = []
        for plan in plans {
            for node in plan.nodes {
                let mapping = ObjectIdentifier(node.mapping)
                if !mappings.contains(mapping) {
                    mappings.append(mapping)
                    needs.append(.entity(node.mapping.entity))
                }
                guard !node.toMany.isEmpty || !node.handled.isEmpty || (node.key == nil && !node.path.isEmpty) else { continue }
                let name = node.mapping.entity.name
                let reason = if !node.toMany.isEmpty { "\(name) records set to-many relationships" }
                    else if !node.handled.isEmpty { "\(name) has key handlers" }
                    else { "nested \(name) objects have no unique key" }
                return needs + [.objects(reason: reason)]
            }
        }
        for plan in plans {
            for (_, destination) in plan.references where destinations.insert(destination.name).inserted {
                needs.append(.entity(destination))
            }
        }
        return needs
    }

    /// Why records must be applied as objects instead, or `nil` when rows do: a node needs it
    /// (see ``needs(of:)``), or an entity has an object hook (after-record, validator), is in
    /// a hierarchy, or has to-many links or relationships not kept as a foreign key in the row,
    /// which need the object graph's bookkeeping.
    static func unsupportedReason(_ needs: [Need], context: ObjectContext, hooks: ImportHooks) -> String? {
        var checked: Set<String> = []
        for need in needs {
            switch need {
            case .objects(let reason): return reason
            case .entity(let entity):
                guard checked.insert(entity.name).inserted else { continue }
                if let reason = reason(for: entity, context: context, hooks: hooks) { return reason }
            }
        }
        return nil
    }

    private static func reason(for entity: Entity, context: ObjectContext, hooks: ImportHooks) -> String? {
        if entity.parent != nil || !entity.subentityNames.isEmpty { return "\(entity.name) is in an entity hierarchy" }
        if hooks.after[entity.name] != nil { return "\(entity.name) has an after-record hook" }
        if context.hasValidators(for: entity) { return "\(entity.name) has validators" }
        for relationship in entity.relationships {
            let inverse = relationship.inverse.flatMap { context.model.entity(named: relationship.destination)?.relationship(named: $0) }
            if relationship.isToMany {
                // Links made from the other side change its count, which objects would check.
                if !relationship.isOptional || relationship.minCount != nil || relationship.maxCount != nil {
                    return "\(entity.name).\(relationship.name) has a count rule"
                }
            } else if let inverse, !inverse.isToMany || inverse.isOrdered {
                return "\(entity.name).\(relationship.name) is not kept in \(entity.name)'s row"
            }
        }
        return nil
    }

    // MARK: Find

    /// Reads the stored rows of every key of the batch — from `cache` when it holds them, else
    /// with one query per lookup.
    /// `readAhead` holds rows read ahead on another thread, which hold for every key but the
    /// `stale` ones (written since they were read).
    mutating func findExisting(_ lookups: [KeyLookup], cache: RowCache, readAhead: (rows: RowsReadAhead, stale: RowCache.WrittenKeys)?) throws {
        // Every key of the batch gets a row: found here, or made while applying.
        let keys = lookups.reduce(0) { $0 + $1.keys.count }
        identity.reserveCapacity(keys)
        drafts.reserveCapacity(keys)
        for lookup in lookups {
            let mapping = try mapping(lookup.entity)
            let (root, attributes) = (lookup.group.root, lookup.group.attributes)
            let ahead = readAhead?.rows.groups.first { $0.group == lookup.group }
            let stale = readAhead?.stale ?? RowCache.WrittenKeys()
            var missing: [[AttributeValue]] = []
            for key in lookup.keys {
                if let row = cache[key] {
                    addStored(row, key: key, mapping: mapping, cached: true)
                } else if !(ahead?.covers(key) ?? false) || stale.contains(key) {
                    missing.append(key.values)
                }
            }
            let rows = missing.isEmpty ? [] : try context.fetchRows(of: lookup.entity, attributes: attributes.map { lookup.entity.attributes[$0].name },
                                                                    keys: missing)
            for row in rows {
                addStored(row, key: UniqueKey(root: root, attributes: attributes, values: attributes.map { row.values[$0] }), mapping: mapping, cached: false)
            }
            for row in ahead?.rows ?? [] {
                let key = UniqueKey(root: root, attributes: attributes, values: attributes.map { row.values[$0] })
                guard identity[key] == nil, !stale.contains(key) else { continue }
                addStored(row, key: key, mapping: mapping, cached: false)
            }
        }
    }

    /// A stored row's copy, for the records to change, found under `key`.
    private mutating func addStored(_ row: RowSnapshot, key: UniqueKey, mapping: EntityMapping, cached: Bool) {
        identity[key] = drafts.count
        drafts.append(Draft(id: row.objectID, mapping: mapping, values: row.values, toOne: row.toOne,
                            stored: row, isStub: false, record: -1, isCached: cached))
    }

    // MARK: Apply

    /// Applies one top-level record's node tree (its values fit their attributes already:
    /// the parser checked them).
    mutating func apply(_ node: ImportNode, record: Int) throws {
        _ = try draft(for: node, record: record, shared: false)
    }

    private mutating func draft(for node: ImportNode, record: Int, shared: Bool) throws -> Int {
        let index: Int
        if let key = node.key, let found = identity[key] {
            index = found
            drafts[index].isStub = false
            // Only what differs is written: a row whose values stay as stored keeps sharing them
            // (no copy of its values, and `isUnchanged` sees one array).
            for (position, value) in node.values where drafts[index].values[position] != value {
                drafts[index].values[position] = value
            }
        } else {
            index = newDraft(node.mapping, values: node.newObjectValues, record: record)
            if let key = node.key { identity[key] = index }
        }
        drafts[index].record = record
        if shared { drafts[index].isShared = true }
        for (position, target) in node.toOne {
            let link: Link
            switch target {
            case .node(let nested)?: link = .object(drafts[try draft(for: nested, record: record, shared: true)].id)
            case .reference(let key, let destination)?: link = .object(drafts[try stub(key, destination, record: record)].id)
            case nil: link = .empty
            }
            drafts[index].toOne[position] = link
        }
        return index
    }

    /// The row a reference names: found, made by this batch, or a new stub holding its key.
    private mutating func stub(_ key: UniqueKey, _ destination: Entity, record: Int) throws -> Int {
        if let found = identity[key] {
            drafts[found].isShared = true
            return found
        }
        let mapping = try mapping(destination)
        var values = mapping.defaults
        for (position, value) in zip(key.attributes, key.values) { values[position] = value }
        let index = newDraft(mapping, values: values, record: record)
        drafts[index].isStub = true
        drafts[index].isShared = true
        identity[key] = index
        return index
    }

    private mutating func newDraft(_ mapping: EntityMapping, values: [AttributeValue], record: Int) -> Int {
        drafts.append(Draft(id: .temporary(entity: mapping.entity), mapping: mapping, values: values,
                            toOne: [:], stored: nil, isStub: false, record: record))
        return drafts.count - 1
    }

    // MARK: Check and save

    /// Every model rule the new and changed rows break, as a save of objects would find them.
    func validate() -> [ValidationError.Failure] {
        var failures: [ValidationError.Failure] = []
        for draft in drafts {
            guard !draft.isUnchanged else { continue }
            let mapping = draft.mapping
            for position in mapping.checkedAttributes {
                failures += ObjectContext.check(draft.values[position], of: mapping.entity.attributes[position], in: draft.id)
            }
            // A required to-one is checked on a new row, and on a stored row whose link changed.
            for position in mapping.requiredToOne where draft.toOne[position]?.objectID == nil
                && (draft.stored == nil || draft.stored?.toOne[position] != draft.toOne[position]) {
                let name = mapping.entity.relationships[position].name
                failures.append(ValidationError.Failure(objectID: draft.id, key: name, rule: .required, message: "\(name) is required but nil"))
            }
        }
        return failures
    }

    /// The last record that touched a row, and the row's key.
    func touched(_ id: ObjectID) -> (record: Int, key: UniqueKey?)? {
        guard let index = drafts.firstIndex(where: { $0.id == id }), drafts[index].record >= 0 else { return nil }
        return (drafts[index].record, identity.first { $0.value == index }?.key)
    }

    /// Writes what differs from the store, with `metadata`, in one transaction through the
    /// context (which announces it as its save), counts what the batch did per entity, and keeps
    /// the shared rows as stored now in `cache`.
    /// - Throws: ``ConflictError`` when a row changed since it was read; the store's errors.
    func save(metadata: [String: String?], cache: inout RowCache) throws -> [String: ImportReport.EntityCounts] {
        let save = prepareSave(metadata: metadata)
        let result = try context.saveRows(save.rows, announcing: save.changes)
        cache.noteSave(before: result.changeTokenBefore, after: result.changeTokenAfter, written: writtenKeys(save))
        cache.keep(savedRows(save, permanentIDs: result.permanentIDs, versions: result.versions, cache: cache),
                   after: result.changeTokenAfter)
        return save.counts
    }

    /// What a save of the batch writes and announces, and what it counts.
    struct PreparedSave {
        var rows: ChangeSet
        var changes: ObjectChanges
        var counts: [String: ImportReport.EntityCounts]
        /// Which drafts the save writes (inserts or changes), by position.
        var written: [Bool]
    }

    /// The rows that differ from the store, with `metadata`, what the save changes (as the
    /// context announces it), and the counts per entity.
    func prepareSave(metadata: [String: String?]) -> PreparedSave {
        var rows = ChangeSet(metadata: metadata)
        rows.inserts.reserveCapacity(drafts.count)
        var changes = ObjectChanges()
        // Counted per mapping (one per entity; a batch has a few: found by a linear search,
        // cheaper than hashing), named at the end.
        var tallies: [(mapping: ObjectIdentifier, name: String, counts: ImportReport.EntityCounts)] = []
        func count(_ mapping: EntityMapping, _ add: (inout ImportReport.EntityCounts) -> Void) {
            let id = ObjectIdentifier(mapping)
            if let at = tallies.firstIndex(where: { $0.mapping == id }) {
                add(&tallies[at].counts)
            } else {
                var counts = ImportReport.EntityCounts()
                add(&counts)
                tallies.append((id, mapping.entity.name, counts))
            }
        }
        // The names of what changed, by entity and changed positions: a batch's updates have a
        // few shapes, each named once (hashing the names for every row cost more than the rest).
        var keySets: [(mapping: ObjectIdentifier, attributes: [Int], links: [Int], keys: Set<String>)] = []
        func changedKeys(_ mapping: EntityMapping, _ attributes: [Int], _ links: [Int]) -> Set<String> {
            let id = ObjectIdentifier(mapping)
            if let known = keySets.first(where: { $0.mapping == id && $0.attributes == attributes && $0.links == links }) { return known.keys }
            var keys = Set<String>(minimumCapacity: attributes.count + links.count)
            for position in attributes { keys.insert(mapping.attributeNames[position]) }
            for position in links { keys.insert(mapping.relationshipNames[position]) }
            if keySets.count < 16 { keySets.append((id, attributes, links, keys)) }
            return keys
        }
        /// Stored objects on the to-many side of links that changed (their relationship changed
        /// too), by the relationship of the link (a batch links through a few: found by a linear
        /// search), named once per batch, not once per link.
        var relinked: [(mapping: ObjectIdentifier, position: Int, inverse: String, ids: Set<ObjectID>)] = []
        func relink(_ link: Link?, _ position: Int, of mapping: EntityMapping) {
            guard let id = link?.objectID, id.primaryKey != nil, let inverse = mapping.inverseNames[position] else { return }
            let side = ObjectIdentifier(mapping)
            if let at = relinked.firstIndex(where: { $0.mapping == side && $0.position == position }) {
                relinked[at].ids.insert(id)
            } else {
                relinked.append((side, position, inverse, [id]))
            }
        }
        // Which drafts the save writes (inserts or changes), by position.
        var written = [Bool](repeating: false, count: drafts.count)
        for (index, draft) in drafts.enumerated() {
            let mapping = draft.mapping
            guard let stored = draft.stored else {
                written[index] = true
                // In position order (a row's one link, the usual case, needs no sorting).
                let links = draft.toOne.count < 2 ? draft.toOne.map { RelationshipChange.toOne($0.key, $0.value) }
                    : draft.toOne.sorted { $0.key < $1.key }.map { .toOne($0.key, $0.value) }
                rows.inserts.append(ChangeSet.Insert(objectID: draft.id, values: draft.values, relationships: links))
                for (position, link) in draft.toOne { relink(link, position, of: mapping) }
                if draft.isStub { count(mapping) { $0.stubs += 1 } } else { count(mapping) { $0.inserted += 1 } }
                continue
            }
            // What differs from the stored row.
            let changed = draft.values.indices.filter { draft.values[$0] != stored.values[$0] }
            var changedLinks: [(position: Int, link: Link)] = []
            for (position, link) in draft.toOne where stored.toOne[position] != link { changedLinks.append((position, link)) }
            guard !changed.isEmpty || !changedLinks.isEmpty else {
                // Counted when a record described it, not when one only referred to it.
                if draft.record >= 0 { count(mapping) { $0.unchanged += 1 } }
                continue
            }
            var values = [Int: AttributeValue](minimumCapacity: changed.count)
            for position in changed { values[position] = draft.values[position] }
            changedLinks.sort { $0.position < $1.position }
            var links: [RelationshipChange] = []
            for (position, link) in changedLinks {
                links.append(.toOne(position, link))
                relink(stored.toOne[position], position, of: mapping)
                relink(link, position, of: mapping)
            }
            written[index] = true
            rows.updates.append(ChangeSet.Update(objectID: draft.id, expectedVersion: stored.version, changes: values, relationships: links))
            changes.updated.insert(draft.id)
            changes.changedKeys[draft.id] = changedKeys(mapping, changed, changedLinks.map(\.position))
            count(mapping) { $0.updated += 1 }
        }
        for (_, _, inverse, ids) in relinked {
            changes.updated.formUnion(ids)
            // Most relinked objects changed nothing else: they share one set naming the inverse.
            let named: Set<String> = [inverse]
            for id in ids {
                if let keys = changes.changedKeys[id] {
                    if !keys.contains(inverse) { changes.changedKeys[id]?.insert(inverse) }
                } else {
                    changes.changedKeys[id] = named
                }
            }
        }
        var counts: [String: ImportReport.EntityCounts] = [:]
        for (_, name, tally) in tallies { counts[name, default: .init()].add(tally) }
        return PreparedSave(rows: rows, changes: changes, counts: counts, written: written)
    }

    /// The keys of the rows `save` writes (inserted or changed), for rows read ahead of it.
    func writtenKeys(_ save: PreparedSave) -> some Sequence<UniqueKey> {
        identity.lazy.filter { save.written[$0.value] }.map(\.key)
    }

    /// The rows `cache` keeps of `save`, as it leaves them with `permanentIDs` and `versions`:
    /// those of shared objects; a top-level record's row only when the cache holds it already
    /// (met as a reference earlier), which must not go stale. A row from the cache that the
    /// batch left as it was is there already.
    func savedRows(_ save: PreparedSave, permanentIDs: [ObjectID: ObjectID], versions: [ObjectID: Int64],
                   cache: RowCache) -> [(UniqueKey, RowSnapshot)] {
        // Drafts read in place: a copy would retain each of their parts.
        identity.compactMap { key, index -> (UniqueKey, RowSnapshot)? in
            guard drafts[index].isShared || cache[key] != nil, !(drafts[index].isCached && drafts[index].isUnchanged) else { return nil }
            return savedRow(drafts[index], permanentIDs: permanentIDs, versions: versions).map { (key, $0) }
        }
    }

    /// A draft's row as the save left it in the store (as a fetch would read it), or `nil` when
    /// the save's result does not say (then the row is not kept).
    private func savedRow(_ draft: Draft, permanentIDs: [ObjectID: ObjectID], versions: [ObjectID: Int64]) -> RowSnapshot? {
        var toOne = draft.stored?.toOne ?? Dictionary(uniqueKeysWithValues: draft.mapping.toOnePositions.map { ($0, Link.empty) })
        for (position, link) in draft.toOne {
            guard case .object(let target) = link, target.isTemporary else {
                toOne[position] = link
                continue
            }
            guard let saved = permanentIDs[target] else { return nil }
            toOne[position] = .object(saved)
        }
        if let stored = draft.stored {
            if draft.isUnchanged { return stored }
            guard let version = versions[draft.id] else { return nil }
            return RowSnapshot(objectID: draft.id, version: version, values: draft.values, toOne: toOne)
        }
        guard let id = permanentIDs[draft.id] else { return nil }
        return RowSnapshot(objectID: id, version: 1, values: draft.values, toOne: toOne)
    }
}
