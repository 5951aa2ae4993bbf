/// An object a checked predicate or sort descriptor can read: a managed object, or a test
/// double backed by a dictionary.
///
/// Return ``PredicateSubjectValue/value(_:)`` for an attribute (``AttributeValue/null`` when
/// it has none), ``PredicateSubjectValue/object(_:)`` for a to-one relationship and
/// ``PredicateSubjectValue/objects(_:)`` for a to-many one. An answer of the wrong shape reads
/// as nil (or as no objects); it never traps.
public protocol PredicateSubject {
    /// The value of `key`, an attribute or relationship of the subject's entity.
    func predicateValue(for key: PredicateKey) -> PredicateSubjectValue
    /// The subject's identity, compared with the objects a predicate names (`whoTook == %@`,
    /// `SELF IN %@`).
    var objectID: ObjectID { get }
}

/// What a ``PredicateSubject`` holds under a key.
public enum PredicateSubjectValue {
    /// An attribute's value.
    case value(AttributeValue)
    /// A to-one relationship's object, or `nil`.
    case object((any PredicateSubject)?)
    /// A to-many relationship's objects.
    case objects([any PredicateSubject])
}
