import Foundation

/// SQLite's floor's input: the C API job's upserts with all the work before `bind` done ahead of
/// the clock — the records decoded, their values in the types bound, and which owner upserts run
/// worked out by the rule the C API job applies as it goes (an owner is upserted unless the same
/// owner with the same values was the last one upserted under its id). What is left to time is
/// binding, stepping and committing: SQLite alone.
struct PrebuiltUpserts {
    /// An owner upsert, in the order they run.
    struct Owner {
        var id: String
        var name: String?
        var location: String?
    }

    /// A photo upsert, as bound.
    struct Photo {
        var id: Int64
        var title: String?
        var description: String?
        var uploadDate: Double?
        var views: Int64?
        var latitude: Double?
        var isPublic: Int64?
        var tags: String?
        /// Whether the next owner upsert in ``PrebuiltUpserts/owners`` runs just before this photo's.
        var upsertsOwner: Bool
        /// The slot that holds the `_pk` of this photo's owner once upserted; -1 when it has none.
        var ownerSlot: Int
    }

    var owners: [Owner] = []
    var photos: [Photo] = []
    /// How many slots of owners' `_pk` the upserts fill (one per distinct owner id).
    var ownerSlots = 0

    init(_ records: [PhotoRecord]) {
        photos.reserveCapacity(records.count)
        var upserted: [String: (slot: Int, record: OwnerRecord)] = [:]
        for record in records {
            var upsertsOwner = false
            var slot = -1
            if let owner = record.owner {
                if let cached = upserted[owner.id], cached.record == owner {
                    slot = cached.slot
                } else {
                    slot = upserted[owner.id]?.slot ?? ownerSlots
                    if slot == ownerSlots { ownerSlots += 1 }
                    upserted[owner.id] = (slot, owner)
                    owners.append(Owner(id: owner.id, name: owner.name, location: owner.location))
                    upsertsOwner = true
                }
            }
            photos.append(Photo(id: record.id, title: record.title, description: record.description,
                                uploadDate: record.uploadDate, views: record.views, latitude: record.latitude,
                                isPublic: record.isPublic.map { $0 ? 1 : 0 }, tags: record.tags,
                                upsertsOwner: upsertsOwner, ownerSlot: slot))
        }
    }
}
