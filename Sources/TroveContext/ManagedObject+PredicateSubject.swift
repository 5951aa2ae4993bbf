import TroveModel
public import TrovePredicate

/// A managed object answers predicates and sort descriptors in memory: attributes by position,
/// relationships by loading them (a fault is read from the store). A value that cannot be
/// read (its row was deleted underneath) reads as nil.
extension ManagedObject: PredicateSubject {
    public func predicateValue(for key: PredicateKey) -> PredicateSubjectValue {
        guard key.isRelationship else {
            try? fireFault()
            return .value(key.index < values.count ? values[key.index] : .null)
        }
        guard let context, key.index < relationships.count else {
            return entity.relationships.indices.contains(key.index) && entity.relationships[key.index].isToMany ? .objects([]) : .object(nil)
        }
        let ids = (try? context.relatedIDs(of: self, at: key.index)) ?? []
        let objects = ids.compactMap { try? context.object(with: $0) }
        return entity.relationships[key.index].isToMany ? .objects(objects) : .object(objects.first)
    }
}

/// An object is a predicate argument: it stands for its ``ManagedObject/objectID``, compared
/// with a relationship or `SELF` (`whoTook == %@`, `SELF IN %@`, `tags CONTAINS %@`).
///
/// The ID is read when the predicate is made. An unsaved object's ID is temporary: a fetch
/// finds it among the context's unsaved changes (evaluated in memory), never in the store;
/// after the object is saved, make the predicate again.
extension ManagedObject: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue { .object(objectID) }
}
