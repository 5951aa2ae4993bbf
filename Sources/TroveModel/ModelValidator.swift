/// Checks declared entities before a model is resolved. (Filled in by the model-checking work.)
enum ModelValidator {
    static func findings(in entities: [Entity]) -> [ModelIssue] {
        []
    }
}
