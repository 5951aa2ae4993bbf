import TroveModel

/// The objects inserted in a context since its last save, in the order they were inserted; it
/// owns their ``ManagedObject/isInserted`` flag.
///
/// They are kept out of the context's registry (a dictionary by ID): an insert hashes nothing,
/// and a save moves each object into the registry once, under its permanent ID. They are found
/// by temporary ID with a binary search: temporary IDs are numbered in the order they are made,
/// so the order of insertion is the order of their numbers.
///
/// An object that stops being inserted (deleted, its insert undone or folded, its row gone)
/// stays in the order, skipped, until the next save or until skipped objects are the majority.
struct InsertedObjects {
    /// Every object inserted since the last save with its temporary number, by number; some
    /// are no longer inserted.
    private var order: [(number: UInt64, object: ManagedObject)] = []
    /// How many of them are still inserted.
    private(set) var count = 0

    /// Whether no object is inserted.
    var isEmpty: Bool { count == 0 }

    /// The inserted objects, in insertion order.
    var values: [ManagedObject] {
        var objects: [ManagedObject] = []
        objects.reserveCapacity(count)
        for entry in order where entry.object.isInserted { objects.append(entry.object) }
        return objects
    }

    /// Every object of the order, inserted or not: what a reset detaches.
    var everyObject: [ManagedObject] { order.map(\.object) }

    /// Marks `object` (of a temporary ID) inserted: just made, or put back by redo.
    mutating func add(_ object: ManagedObject) {
        guard !object.isInserted, let number = object.objectID.temporaryNumber else { return }
        object.isInserted = true
        count += 1
        if let last = order.last, last.number >= number {
            // Put back by redo: at its place, where it may be still.
            let at = position(of: number)
            if at < order.count, order[at].object === object { return }
            order.insert((number, object), at: at)
        } else {
            order.append((number, object))
        }
    }

    /// Marks `object` no longer inserted (it was deleted, its insert undone or folded, or its
    /// row is gone); nothing happens to an object that is not inserted.
    mutating func remove(_ object: ManagedObject) {
        guard object.isInserted else { return }
        object.isInserted = false
        count -= 1
        if count < order.count / 2 { order.removeAll { !$0.object.isInserted } }
    }

    /// The inserted object with the temporary ID `id`, if there is one.
    func object(with id: ObjectID) -> ManagedObject? {
        guard let number = id.temporaryNumber else { return nil }
        let at = position(of: number)
        guard at < order.count, order[at].number == number, order[at].object.isInserted else { return nil }
        return order[at].object
    }

    /// Forgets every object (after a save, a rollback or a reset, which set their flags).
    mutating func removeAll() {
        order = []
        count = 0
    }

    /// The position of the first entry whose number is not below `number`.
    private func position(of number: UInt64) -> Int {
        var (low, high) = (0, order.count)
        while low < high {
            let middle = (low + high) / 2
            if order[middle].number < number { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
