/// An entity's `parent` names a declared entity, and following parents never comes back to an
/// entity already passed (no inheritance cycle).
enum ParentRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var findings: [ModelIssue] = []
        for (e, entity) in model.entities.enumerated() {
            guard let parentName = entity.parent else { continue }
            let path = ModelPath.entity(e) + ".parent"
            guard model.indexByName[parentName] != nil else {
                findings.append(ModelIssue(
                    path: path,
                    message: "\(model.label(entity: e)): parent '\(parentName)' is not an entity of the model;"
                        + " declare it or remove \"parent\""))
                continue
            }
            if let cycle = cycle(through: e, in: model) {
                findings.append(ModelIssue(
                    path: path,
                    message: "\(model.label(entity: e)): inheritance cycle \(cycle); an entity cannot be its own ancestor,"
                        + " so remove one of these parents"))
            }
        }
        return findings
    }

    /// The cycle of parents that comes back to the entity at `index`, as "A → B → A", or `nil`
    /// when that entity is on no cycle.
    private static func cycle(through index: Int, in model: DeclaredModel) -> String? {
        var names = [model.entities[index].name]
        var current = index
        for _ in model.entities.indices {
            guard let parentName = model.entities[current].parent, let parent = model.indexByName[parentName] else {
                return nil
            }
            names.append(parentName)
            if parent == index { return names.joined(separator: " → ") }
            current = parent
        }
        return nil
    }
}
