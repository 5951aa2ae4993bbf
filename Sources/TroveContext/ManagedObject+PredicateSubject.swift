public import TroveModel

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
