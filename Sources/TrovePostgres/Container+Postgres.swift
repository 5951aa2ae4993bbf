public import TroveContext
public import TroveModel

extension Container {
    /// A container on the PostgreSQL store at `location`, with the classes of the model's
    /// entities: the PostgreSQL counterpart of `Container(model:url:)`, which opens SQLite files.
    ///
    /// An empty database gets the store's tables; the database itself must exist (create it
    /// with ``PostgresStore/createDatabase(at:)`` or `trove init`), so that an app never needs
    /// the right to create databases.
    /// - Throws: `StoreError` — `.notFound` when the server has no such database,
    ///   `.unreachable` when it cannot be reached or refuses the credentials, `.modelMismatch`
    ///   when the database holds a store of another model; `ObjectError` when a class does not
    ///   fit the model.
    public convenience init(model: Model, location: PostgresLocation, classes: [any EntityClass.Type] = [],
                            hooks: ObjectHooks = ObjectHooks()) throws {
        try self.init(store: PostgresStore(location: location, model: model), classes: classes, hooks: hooks)
    }
}
