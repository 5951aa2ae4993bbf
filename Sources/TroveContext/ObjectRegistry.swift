import TroveModel

/// The objects a context has in memory, by ID, not retained (an object leaves when it is
/// deallocated): a hash table with open addressing and linear probing, searched from a cheap
/// mix of the ID's key.
///
/// Iterating a million fetched objects registers, looks up and removes each of them; with a
/// `Dictionary`, hashing the IDs (SipHash, three or four times per object) cost a fifth of
/// making the object. Keys are row numbers and counters, not input an attacker chooses.
struct ObjectRegistry {
    /// An entry holds the ID's key and the object, no reference to count: the object's own ID
    /// settles a match (an entry holding the ID retained its names at every insert and lookup).
    private struct Entry {
        let key: UInt64
        let object: Unmanaged<ManagedObject>

        init(_ id: ObjectID, _ object: ManagedObject) {
            key = id.keyBits
            self.object = .passUnretained(object)
        }

        /// Whether the entry is `id`'s. The object is alive (it leaves before it deallocates).
        func holds(_ id: ObjectID) -> Bool {
            key == id.keyBits && object._withUnsafeGuaranteedRef { $0.objectID == id }
        }
    }

    /// A power of two of slots (or none), at most three quarters full.
    private var slots: [Entry?] = []
    /// The number of bits of a slot's index: `slots.count == 1 << bits`.
    private var bits = 0
    /// The number of objects registered.
    private(set) var count = 0

    /// The object registered under `id`.
    func object(for id: ObjectID) -> ManagedObject? {
        guard count > 0 else { return nil }
        return slots.withUnsafeBufferPointer { slots in
            var index = home(of: id)
            while let entry = slots[index] {
                if entry.holds(id) { return entry.object.takeUnretainedValue() }
                index = (index + 1) & (slots.count - 1)
            }
            return nil
        }
    }

    /// Registers `object` under `id` (its ``ManagedObject/objectID``, which must not change
    /// while it is registered), replacing the object registered there, if any.
    mutating func register(_ object: ManagedObject, for id: ObjectID) {
        _ = insert(object, for: id, replacing: true)
    }

    /// Registers `object` under `id` unless an object is registered there, which it returns.
    mutating func registerIfAbsent(_ object: ManagedObject, for id: ObjectID) -> ManagedObject? {
        insert(object, for: id, replacing: false)
    }

    /// Removes the entry under `id` if it is `object`'s (another object of the same row may
    /// have replaced it).
    mutating func remove(_ object: ManagedObject, at id: ObjectID) {
        guard count > 0 else { return }
        let target = Unmanaged.passUnretained(object).toOpaque()
        let bits = bits
        slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count - 1
            var index = Self.home(of: id.keyBits, bits: bits)
            while let entry = slots[index] {
                if entry.holds(id) {
                    guard entry.object.toOpaque() == target else { return }
                    // Backward-shift deletion: later entries of the run move up into the hole,
                    // unless their search starts after it.
                    var hole = index
                    var next = (index + 1) & mask
                    while let moved = slots[next] {
                        let start = Self.home(of: moved.key, bits: bits)
                        // `moved` may fill the hole when its start is not within (hole, next].
                        if (next - start) & mask >= (next - hole) & mask {
                            slots[hole] = moved
                            hole = next
                        }
                        next = (next + 1) & mask
                    }
                    slots[hole] = nil
                    count -= 1
                    return
                }
                index = (index + 1) & mask
            }
        }
    }

    /// Every object registered.
    var objects: [ManagedObject] {
        slots.compactMap { $0?.object.takeUnretainedValue() }
    }

    /// Removes every entry.
    mutating func removeAll() {
        self = ObjectRegistry()
    }

    // MARK: Helpers

    private func home(of id: ObjectID) -> Int {
        Self.home(of: id.keyBits, bits: bits)
    }

    /// The slot where the search for `id` starts: Fibonacci hashing, whose multiplication
    /// spreads consecutive keys over the table and whose top bits pick the slot.
    private static func home(of key: UInt64, bits: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - bits))
    }

    private mutating func insert(_ object: ManagedObject, for id: ObjectID, replacing: Bool) -> ManagedObject? {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let bits = bits
        let (existing, added) = slots.withUnsafeMutableBufferPointer { slots -> (ManagedObject?, Bool) in
            var index = Self.home(of: id.keyBits, bits: bits)
            while let entry = slots[index] {
                if entry.holds(id) {
                    if replacing { slots[index] = Entry(id, object) }
                    return (entry.object.takeUnretainedValue(), false)
                }
                index = (index + 1) & (slots.count - 1)
            }
            slots[index] = Entry(id, object)
            return (nil, true)
        }
        if added { count += 1 }
        return existing
    }

    /// Doubles the slots (16 at first) and places every entry again.
    private mutating func grow() {
        let old = slots
        bits = Swift.max(4, bits + 1)
        slots = Array(repeating: nil, count: 1 << bits)
        count = 0
        for case let entry? in old {
            let object = entry.object.takeUnretainedValue()
            _ = insert(object, for: object.objectID, replacing: true)
        }
    }
}
