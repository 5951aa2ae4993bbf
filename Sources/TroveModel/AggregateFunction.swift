/// A function over the elements of a to-many key path, as written after the relationship:
/// `photos.@count`, `photos.@sum.views`.
///
/// The model names these functions in a derived attribute's derivation, and the predicate
/// language, aggregate requests and the stores compute them (there it is spelled
/// `ObjectPredicate.Aggregate`, the same type).
public enum AggregateFunction: String, Sendable, Hashable, CaseIterable {
    /// The number of elements (0 for none).
    case count = "@count"
    /// The sum of the non-nil values (0 for none).
    case sum = "@sum"
    /// The mean of the non-nil values (nil for none).
    case avg = "@avg"
    /// The least non-nil value (nil for none).
    case min = "@min"
    /// The greatest non-nil value (nil for none).
    case max = "@max"
}
