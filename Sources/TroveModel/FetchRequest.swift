/// What to fetch: the objects of one entity (and, by default, its sub-entities).
public struct FetchRequest: Sendable, Hashable {
    /// The name of the entity to fetch.
    public var entityName: String
    /// Whether objects of sub-entities are included (default `true`, as in Core Data).
    public var includesSubentities: Bool

    /// A request for every object of `entityName`.
    public init(entityName: String, includesSubentities: Bool = true) {
        self.entityName = entityName
        self.includesSubentities = includesSubentities
    }
}
