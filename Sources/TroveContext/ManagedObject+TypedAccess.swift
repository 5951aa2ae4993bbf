public import TroveModel

/// What generated properties call: attributes and relationships by position (their index in
/// ``Entity/attributes`` and ``Entity/relationships``, fixed when the class was generated and
/// checked when it is registered), with no name to look up.
///
/// A typed property cannot throw, so these never do:
/// - A read fills the object's fault first. When that fails — the row was deleted by another
///   context or process, or the store cannot be read — the object keeps the values it had (an
///   attribute of a fault reads as nil), ``faultError`` says why, and an object whose row is
///   gone leaves its context (``ManagedObject/context`` is `nil`).
/// - A change that the dynamic API would refuse (the object is deleted, or out of its context;
///   an object of another context or of the wrong entity linked) is not made, and the
///   context's next ``ObjectContext/save()`` throws that ``ObjectError`` and writes nothing.
extension ManagedObject {
    /// The value of the attribute at `index` as `T`; `nil` when it is nil.
    @inlinable
    public final func attribute<T: AttributeValueConvertible>(at index: Int) -> T? {
        T(attributeValue: attributeValue(at: index))
    }

    /// Sets the attribute at `index` to `value` (`nil` clears it).
    @inlinable
    public final func setAttribute<T: AttributeValueConvertible>(_ value: T?, at index: Int) {
        setAttributeValue(value?.attributeValue ?? .null, at: index)
    }

    /// The value of the attribute at `index` (``AttributeValue/null`` when nil).
    public final func attributeValue(at index: Int) -> AttributeValue {
        observeAccess(attribute: index)
        if isFault { fillFaultReportingFailure() }
        return index < values.count ? values[index] : .null
    }

    /// Sets the attribute at `index` to `value`; a change that cannot be made makes the next
    /// save throw (see the discussion above).
    public final func setAttributeValue(_ value: AttributeValue, at index: Int) {
        deferringFailure { _ = try setValue(value, forAttributeAt: index) }
    }

    /// The object a to-one relationship at `index` holds, or `nil`.
    public final func relatedObject<T: ManagedObject>(at index: Int) -> T? {
        observeAccess(relationship: index)
        return (readingRelationship { try relatedObject(atRelationship: index) } ?? nil).map { unsafeDowncast($0, to: T.self) }
    }

    /// The objects a to-many relationship at `index` holds, in order for an ordered one.
    public final func relatedObjects<T: ManagedObject>(at index: Int) -> [T] {
        observeAccess(relationship: index)
        return (readingRelationship { try relatedObjects(atRelationship: index) } ?? []).map { unsafeDowncast($0, to: T.self) }
    }

    /// Sets the to-one relationship at `index` (and its inverse).
    public final func setRelatedObject(_ object: ManagedObject?, at index: Int) {
        deferringFailure { _ = try setRelatedObject(object, atRelationship: index) }
    }

    /// Makes the to-many relationship at `index` hold exactly `objects` (in that order when
    /// ordered); objects left out are unlinked, not deleted.
    public final func setRelatedObjects<T: ManagedObject>(_ objects: some Sequence<T>, at index: Int) {
        deferringFailure { try setRelatedObjects(objects.map { $0 as ManagedObject }, atRelationship: index) }
    }

    /// Adds `object` to the to-many relationship at `index` (at the end of an ordered one).
    public final func addRelatedObject(_ object: ManagedObject, at index: Int) {
        deferringFailure { try addRelatedObject(object, atRelationship: index) }
    }

    /// Removes `object` from the to-many relationship at `index`.
    public final func removeRelatedObject(_ object: ManagedObject, at index: Int) {
        deferringFailure { try removeRelatedObject(object, atRelationship: index) }
    }

    /// Inserts `object` at `position` of the ordered to-many relationship at `index`, or moves
    /// it there if the relationship holds it already; a position out of range changes nothing
    /// and makes the next save throw.
    public final func insertRelatedObject(_ object: ManagedObject, atPosition position: Int, at index: Int) {
        deferringFailure { try insertRelatedObject(object, at: position, forKey: entity.relationships[index].name) }
    }

    /// Removes the object at `position` of the ordered to-many relationship at `index`; a
    /// position out of range changes nothing and makes the next save throw.
    public final func removeRelatedObject(atPosition position: Int, at index: Int) {
        deferringFailure {
            let objects = try relatedObjects(atRelationship: index)
            guard objects.indices.contains(position) else {
                throw ObjectError(.typeMismatch, "position \(position) is outside \(entity.name).\(entity.relationships[index].name), which holds \(objects.count) objects")
            }
            try removeRelatedObject(objects[position], atRelationship: index)
        }
    }

    // MARK: Failures

    /// Fills the fault; on failure records it, and leaves the context if the row is gone.
    func fillFaultReportingFailure() {
        do {
            try fireFault()
        } catch let error as ObjectError {
            faultError = error
            if error.code == .objectNotFound, let context { context.forget(self) }
        } catch {
            faultError = ObjectError(.objectNotFound, "\(objectID) could not be read: \(error)")
        }
    }

    /// Runs a relationship read; a failure is recorded as ``faultError`` and reads as `nil`.
    private func readingRelationship<R>(_ body: () throws -> R) -> R? {
        do {
            return try body()
        } catch let error as ObjectError {
            faultError = error
        } catch {
            faultError = ObjectError(.objectNotFound, "a relationship of \(objectID) could not be read: \(error)")
        }
        return nil
    }

    /// Runs a change; a failure is kept for the context's next save to throw.
    private func deferringFailure(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            let failure = (error as? ObjectError) ?? ObjectError(.notInContext, "\(objectID): \(error)")
            context?.deferredFailures.append(failure)
            if context == nil { faultError = failure }
        }
    }
}
