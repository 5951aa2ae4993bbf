import TroveModel

// Foundation declares `Predicate`, `PredicateError` and `SortDescriptor` too; in a module that
// imports both, a type name needs the module's. One alias per module settles it.
typealias Predicate = TroveModel.Predicate
typealias PredicateError = TroveModel.PredicateError
