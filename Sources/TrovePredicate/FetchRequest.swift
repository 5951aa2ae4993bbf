/// What to fetch: the objects of one entity that match a predicate, in an order, in a window.
///
/// ```swift
/// var request = FetchRequest(entityName: "Photo")
/// request.predicate = try ObjectPredicate(format: "whoTook.name = %@ AND views > %d", "Ann", 10)
/// request.sortDescriptors = [SortKey("uploadDate", ascending: false)]
/// request.fetchLimit = 20
/// ```
/// A request is a plain `Sendable` value: build it anywhere, run it in a context.
public struct FetchRequest: Sendable, Hashable {
    /// The name of the entity to fetch.
    public var entityName: String
    /// The condition objects must meet; `nil` for every object.
    public var predicate: ObjectPredicate?
    /// The order of the results; objects that tie keep primary-key order.
    public var sortDescriptors: [SortKey]
    /// The most objects to return; 0 for no limit.
    public var fetchLimit: Int
    /// How many matching objects to skip first.
    public var fetchOffset: Int
    /// When above 0, the results load their objects this many at a time, as they are accessed
    /// (the first fetch reads only the IDs), so iterating a million objects keeps memory flat.
    public var fetchBatchSize: Int
    /// Whether objects of sub-entities are included (default `true`, as in Core Data).
    public var includesSubentities: Bool
    /// Whether the results reflect the context's unsaved inserts, updates and deletes
    /// (default `true`, as in Core Data).
    public var includesPendingChanges: Bool
    /// Whether objects not in memory yet come back as faults, their values read on first
    /// access (default `false`: values are read with the fetch).
    public var returnsObjectsAsFaults: Bool
    /// Relationship key paths (`"whoTook"`, `"photos.tags"`) to load with the fetch, one
    /// query per level, so that touching them later reads nothing.
    public var relationshipKeyPathsForPrefetching: [String]

    /// A request for every object of `entityName`.
    public init(entityName: String, predicate: ObjectPredicate? = nil, sortDescriptors: [SortKey] = [],
                includesSubentities: Bool = true) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = 0
        self.fetchOffset = 0
        self.fetchBatchSize = 0
        self.includesSubentities = includesSubentities
        self.includesPendingChanges = true
        self.returnsObjectsAsFaults = false
        self.relationshipKeyPathsForPrefetching = []
    }
}
