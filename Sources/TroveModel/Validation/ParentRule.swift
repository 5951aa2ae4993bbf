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
            if model.rootIndices[e] == nil, let cycle = cycle(through: e, in: model) {
                findings.append(ModelIssue(
                    path: path,
                    message: "\(model.label(entity: e)): inheritance cycle \(cycle); an entity cannot be its own ancestor,"
                        + " so remove one of these parents"))
            }
        }
        return findings
    }

    /// The most entities a cycle's description names before it elides the rest.
    static let namesShownInCycle = 12

    /// The cycle of parents that comes back to the entity at `index`, as "A → B → A", or `nil`
    /// when that entity is on no cycle (only leads into one).
    private static func cycle(through index: Int, in model: DeclaredModel) -> String? {
        var names = [model.entities[index].name]
        var current = index
        for _ in model.entities.indices {
            guard let parent = model.parentIndices[current] else { return nil }
            if parent == index {
                let shown = names.count <= namesShownInCycle
                    ? names : names.prefix(namesShownInCycle - 1) + ["… (\(names.count) entities)"]
                return (shown + [names[0]]).joined(separator: " → ")
            }
            names.append(model.entities[parent].name)
            current = parent
        }
        return nil
    }
}

/// No inheritance chain is deeper than ``Model/maximumInheritanceDepth``: a resolved entity
/// carries every inherited property and lists every sub-entity, so a chain's resolved size grows
/// with the square of its depth.
enum InheritanceDepthRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        let limit = Model.maximumInheritanceDepth
        return model.entities.indices.compactMap { e in
            // Report the first entity past the limit on each chain, not every one below it.
            guard model.depths[e] == limit + 1 else { return nil }
            return ModelIssue(
                path: ModelPath.entity(e) + ".parent",
                message: "\(model.label(entity: e)): it has more than \(limit) ancestors (parent, parent's parent, …),"
                    + " the most Trove allows; flatten the hierarchy, for example by giving entities an attribute"
                    + " that tells their kind apart")
        }
    }
}
