public import TroveModel

extension ObjectContext {
    /// The objects a request asks for: the store's rows, as this context's objects, with this
    /// context's unsaved changes applied (inserted objects included, deleted ones left out).
    ///
    /// Stored objects come first in primary-key order, then inserted ones in insertion order.
    /// - Throws: ``ObjectError`` `.unknownEntity`, or the store's error.
    public func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        guard let entity = model.entity(named: request.entityName) else {
            throw ObjectError(.unknownEntity,
                "the model has no entity '\(request.entityName)'; its entities are: \(model.entities.map(\.name).joined(separator: ", "))")
        }
        var objects: [ManagedObject] = []
        for snapshot in try store.fetch(request) {
            let object = try materialize(snapshot)
            if !object.isDeleted { objects.append(object) }
        }
        for object in orderedInsertedObjects where request.includesSubentities ? object.entity.isKind(of: entity) : object.entity.name == entity.name {
            objects.append(object)
        }
        return objects
    }
}
