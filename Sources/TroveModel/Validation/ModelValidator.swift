/// Checks declared entities before a model is resolved, by running every ``ModelRule`` and
/// gathering all their findings (it never stops at the first).
///
/// Each rule checks one thing, in the manner of swift-argument-parser's validators. Findings come
/// back in model order (by path), so a model file's problems read from top to bottom.
enum ModelValidator {
    /// The rules every model is checked against.
    static var rules: [any ModelRule.Type] {
        [
            IdentifierRule.self,
            UniqueEntityNameRule.self,
            UniquePropertyNameRule.self,
            ParentRule.self,
            AttributeDefaultRule.self,
            AttributeBoundsRule.self,
            AttributeRegexRule.self,
            TransientAttributeRule.self,
            DerivedAttributeRule.self,
            ImportHintRule.self,
            RelationshipDestinationRule.self,
            RelationshipCardinalityRule.self,
            RelationshipReferenceKeyRule.self,
            RelationshipInverseRule.self,
            UniqueByRule.self,
        ]
    }

    /// Every finding of every rule about `entities`, as declared (inheritance not yet resolved).
    static func findings(in entities: [Entity]) -> [ModelIssue] {
        let model = DeclaredModel(entities)
        let findings = rules.flatMap { $0.findings(in: model) }
        return ModelPath.sortedInModelOrder(findings)
    }
}

/// One check of a declared model.
protocol ModelRule {
    /// What is wrong with `model` by this rule; empty when nothing is.
    static func findings(in model: DeclaredModel) -> [ModelIssue]
}

/// Declared entities with the lookups rules need: entities by name, parent chains (safe against
/// cycles) and properties including inherited ones.
struct DeclaredModel {
    /// The entities as declared, in declaration order.
    let entities: [Entity]
    /// The position of each entity name; the first declaration wins when a name repeats.
    let indexByName: [String: Int]

    init(_ entities: [Entity]) {
        self.entities = entities
        self.indexByName = Dictionary(entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The entity at `index` and the ancestors reachable from it, topmost first, stopping at a
    /// missing parent or at an entity already seen (a cycle).
    func lineage(ofEntityAt index: Int) -> [Int] {
        var chain = [index]
        var current = index
        while let parentName = entities[current].parent, let parent = indexByName[parentName], !chain.contains(parent) {
            chain.insert(parent, at: 0)
            current = parent
        }
        return chain
    }

    /// Whether following parents from the entity at `index` comes back to an entity already seen.
    func leadsIntoCycle(_ index: Int) -> Bool {
        guard let topmost = lineage(ofEntityAt: index).first, let parentName = entities[topmost].parent else { return false }
        return indexByName[parentName] != nil
    }

    /// The topmost ancestor of the entity at `index`, or `nil` when its parents form a cycle.
    func rootIndex(ofEntityAt index: Int) -> Int? {
        leadsIntoCycle(index) ? nil : lineage(ofEntityAt: index).first
    }

    /// The attributes of the entity at `index` with inherited ones first.
    func attributes(ofEntityAt index: Int) -> [Attribute] {
        lineage(ofEntityAt: index).flatMap { entities[$0].attributes }
    }

    /// The relationships of the entity at `index` with inherited ones first.
    func relationships(ofEntityAt index: Int) -> [Relationship] {
        lineage(ofEntityAt: index).flatMap { entities[$0].relationships }
    }

    /// Whether the entity named `name` is the entity at `index` or one of its ancestors.
    func isSelfOrAncestor(_ name: String, ofEntityAt index: Int) -> Bool {
        lineage(ofEntityAt: index).contains { entities[$0].name == name }
    }

    // MARK: Labels for messages

    /// "entity 'Photo'".
    func label(entity e: Int) -> String {
        "entity '\(entities[e].name)'"
    }

    /// "attribute 'views' of entity 'Photo'".
    func label(entity e: Int, attribute a: Int) -> String {
        "attribute '\(entities[e].attributes[a].name)' of \(label(entity: e))"
    }

    /// "relationship 'photos' of entity 'Photographer'".
    func label(entity e: Int, relationship r: Int) -> String {
        "relationship '\(entities[e].relationships[r].name)' of \(label(entity: e))"
    }
}
