// Predicates are written against a model, and requests name its entities: code that imports the
// predicate language gets the model with it.
@_exported public import TroveModel
