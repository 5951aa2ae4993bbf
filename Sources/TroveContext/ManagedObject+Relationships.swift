public import TroveModel

/// Reading and changing relationships. Setting one side sets the other at once: after
/// `try photo.setRelatedObject(ann, forKey: "whoTook")`, `ann`'s `photos` holds the photo and
/// the photographer it had before no longer does. A fault (a relationship not read yet) is
/// loaded from the store the first time it is touched, in one query.
extension ManagedObject {
    /// The object a to-one relationship holds, or `nil`.
    /// - Throws: ``ObjectError`` `.unknownKey` (also for a to-many key), `.notInContext`, or the store's error.
    public func relatedObject(forKey key: String) throws -> ManagedObject? {
        try relatedObject(atRelationship: try relationshipIndex(key, toMany: false))
    }

    /// The objects a to-many relationship holds: in order for an ordered relationship, else in
    /// the order they were stored or added.
    /// - Throws: ``ObjectError`` `.unknownKey` (also for a to-one key), `.notInContext`, or the store's error.
    public func relatedObjects(forKey key: String) throws -> [ManagedObject] {
        try relatedObjects(atRelationship: try relationshipIndex(key, toMany: true))
    }

    /// The IDs of the objects a relationship holds (as ``relatedObject(forKey:)`` or
    /// ``relatedObjects(forKey:)`` would return them), without making objects of them.
    public func objectIDs(forRelationshipNamed key: String) throws -> [ObjectID] {
        guard let index = entity.relationshipIndex(named: key) else {
            throw ObjectError(.unknownKey, "entity '\(entity.name)' has no relationship '\(key)'")
        }
        return try liveContext().relatedIDs(of: self, at: index)
    }

    /// Sets a to-one relationship to `object` (or to nothing), and its inverse.
    /// - Returns: whether the relationship changed.
    /// - Throws: ``ObjectError`` for an unknown key, an object of the wrong entity, of another
    ///   context, or deleted.
    @discardableResult
    public func setRelatedObject(_ object: ManagedObject?, forKey key: String) throws -> Bool {
        try setRelatedObject(object, atRelationship: try relationshipIndex(key, toMany: false))
    }

    /// Makes a to-many relationship hold exactly `objects` (in that order when ordered), and
    /// keeps the inverses: objects left out are unlinked, not deleted.
    public func setRelatedObjects(_ objects: [ManagedObject], forKey key: String) throws {
        try setRelatedObjects(objects, atRelationship: try relationshipIndex(key, toMany: true))
    }

    /// Adds `object` to a to-many relationship (at the end of an ordered one).
    public func addRelatedObject(_ object: ManagedObject, forKey key: String) throws {
        try addRelatedObject(object, atRelationship: try relationshipIndex(key, toMany: true))
    }

    /// Inserts `object` at `position` of an ordered to-many relationship, or moves it there if
    /// the relationship holds it already.
    /// - Throws: ``ObjectError`` `.unknownKey` when the relationship is not ordered, or
    ///   `.typeMismatch` when `position` is out of range.
    public func insertRelatedObject(_ object: ManagedObject, at position: Int, forKey key: String) throws {
        let index = try relationshipIndex(key, toMany: true)
        let context = try changingContext(index)
        guard entity.relationships[index].isOrdered else {
            throw ObjectError(.unknownKey, "\(entity.name).\(key) is not ordered; use addRelatedObject(_:forKey:)")
        }
        try checkDestination(object, of: index)
        let count = try context.relatedIDs(of: self, at: index).count
        guard position >= 0, position <= count else {
            throw ObjectError(.typeMismatch, "position \(position) is outside \(entity.name).\(key), which holds \(count) objects")
        }
        try context.link(self, index, to: object, at: position)
    }

    /// Removes `object` from a to-many relationship (it is unlinked, not deleted).
    public func removeRelatedObject(_ object: ManagedObject, forKey key: String) throws {
        try removeRelatedObject(object, atRelationship: try relationshipIndex(key, toMany: true))
    }

    // MARK: By position (the dynamic API above and generated properties)

    func relatedObject(atRelationship index: Int) throws -> ManagedObject? {
        let context = try liveContext()
        return try context.loadedState(of: self, at: index).objectIDs.first.map { try context.object(with: $0) }
    }

    func relatedObjects(atRelationship index: Int) throws -> [ManagedObject] {
        let context = try liveContext()
        return try context.relatedIDs(of: self, at: index).map { try context.object(with: $0) }
    }

    @discardableResult
    func setRelatedObject(_ object: ManagedObject?, atRelationship index: Int) throws -> Bool {
        let context = try changingContext(index)
        let current = try context.loadedState(of: self, at: index).objectIDs.first
        guard current != object?.objectID else { return false }
        if let object {
            try checkDestination(object, of: index)
            try context.link(self, index, to: object)
        } else if let current {
            try context.unlink(self, index, from: try context.object(with: current))
        }
        return true
    }

    func setRelatedObjects(_ objects: [ManagedObject], atRelationship index: Int) throws {
        let context = try changingContext(index)
        for object in objects { try checkDestination(object, of: index) }
        let keep = Set(objects.map(\.objectID))
        for id in try context.relatedIDs(of: self, at: index) where !keep.contains(id) {
            try context.unlink(self, index, from: try context.object(with: id))
        }
        for (position, object) in objects.enumerated() {
            try context.link(self, index, to: object, at: entity.relationships[index].isOrdered ? position : nil)
        }
    }

    func addRelatedObject(_ object: ManagedObject, atRelationship index: Int) throws {
        let context = try changingContext(index)
        try checkDestination(object, of: index)
        try context.link(self, index, to: object)
    }

    func removeRelatedObject(_ object: ManagedObject, atRelationship index: Int) throws {
        try changingContext(index).unlink(self, index, from: object)
    }

    // MARK: Checks

    /// The position of relationship `key`, checked to be of the right kind.
    private func relationshipIndex(_ key: String, toMany: Bool) throws -> Int {
        guard let index = entity.relationshipIndex(named: key) else {
            let known = entity.relationships.map(\.name).joined(separator: ", ")
            throw ObjectError(.unknownKey, "entity '\(entity.name)' has no relationship '\(key)'; its relationships are: \(known)")
        }
        guard entity.relationships[index].isToMany == toMany else {
            let (kind, use) = toMany ? ("to-one", "relatedObject(forKey:)") : ("to-many", "relatedObjects(forKey:)")
            throw ObjectError(.unknownKey, "\(entity.name).\(key) is a \(kind) relationship; use \(use) and its family")
        }
        return index
    }

    /// The object's context, which it must have.
    func liveContext() throws -> ObjectContext {
        guard let context else {
            throw ObjectError(.notInContext, isRemoved
                ? "\(objectID) was removed: its row is no longer in the store (deleted by a save, or by another context or process)"
                : "\(objectID) is not in a context (it was reset or its insert rolled back); fetch it again")
        }
        return context
    }

    /// The context, for a change of relationship `index`: the object must not be deleted.
    private func changingContext(_ index: Int) throws -> ObjectContext {
        let context = try liveContext()
        try context.checkEditable()
        if isDeleted {
            throw ObjectError(.objectDeleted, "cannot change \(entity.name).\(entity.relationships[index].name) of \(objectID): the object is deleted")
        }
        return context
    }

    private func checkDestination(_ object: ManagedObject, of index: Int) throws {
        let relationship = entity.relationships[index]
        guard let context else { return }
        try context.checkOwnership(object)
        guard let destination = context.model.entity(named: relationship.destination), object.entity.isKind(of: destination) else {
            throw ObjectError(.typeMismatch,
                "\(entity.name).\(relationship.name) holds \(relationship.destination) objects, not \(object.entity.name)")
        }
        guard !object.isDeleted else {
            throw ObjectError(.objectDeleted, "cannot link \(object.objectID) to \(entity.name).\(relationship.name): it is deleted")
        }
    }
}
