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
            ReservedEntityNameRule.self,
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
            ColumnLimitRule.self,
        ]
    }

    /// Every finding of every rule about `entities`, as declared (inheritance not yet resolved).
    ///
    /// An inheritance chain deeper than ``Model/maximumInheritanceDepth`` is reported alone: the
    /// other rules look through inherited properties, which such a chain multiplies.
    static func findings(in entities: [Entity]) -> [ModelIssue] {
        findings(in: DeclaredModel(entities))
    }

    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        let tooDeep = InheritanceDepthRule.findings(in: model)
        let findings = tooDeep.isEmpty ? rules.flatMap { $0.findings(in: model) } : tooDeep
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
///
/// Built in time linear in the entities plus the inherited properties it lists: every parent
/// link is followed once (``parentLinksFollowed`` counts them, for the tests that keep it so),
/// and each entity's inherited lists extend its parent's.
struct DeclaredModel {
    /// The entities as declared, in declaration order.
    let entities: [Entity]
    /// The position of each entity name; the first declaration wins when a name repeats.
    let indexByName: [String: Int]
    /// The position of each entity's parent, `nil` for none or a parent that is not declared.
    let parentIndices: [Int?]
    /// Each entity's topmost ancestor (itself when it has no parent), `nil` when following its
    /// parents leads into a cycle.
    let rootIndices: [Int?]
    /// Each entity's number of ancestors (0 on a cycle).
    let depths: [Int]
    /// How many times a parent link was followed while building: the work the tests count.
    private(set) var parentLinksFollowed = 0
    /// Each entity's place in a depth-first walk of its hierarchy and the end of its subtree
    /// there: `b` is a descendant of `a` when `a`'s range holds `b`'s place (no entry on a cycle).
    private let subtreeRanges: [Range<Int>?]
    /// The entities not on a cycle, each hierarchy walked depth first: parents before children.
    let parentsFirst: [Int]
    private let inheritedAttributes: [[Attribute]]
    private let inheritedRelationships: [[Relationship]]

    init(_ entities: [Entity]) {
        self.entities = entities
        let indexByName = Dictionary(entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.indexByName = indexByName
        let parentIndices = entities.map { $0.parent.flatMap { indexByName[$0] } }
        self.parentIndices = parentIndices

        // Roots and depths: walk up from each entity to one already known, then fill in the path.
        enum Mark { case unknown, onPath, cyclic, known(root: Int, depth: Int) }
        var marks = [Mark](repeating: .unknown, count: entities.count)
        var links = 0
        for start in entities.indices {
            // Walk up to an entity already marked or to a root, then mark the path walked.
            var path: [Int] = []
            var current = start
            while case .unknown = marks[current] {
                guard let parent = parentIndices[current] else {
                    marks[current] = .known(root: current, depth: 0)
                    break
                }
                marks[current] = .onPath
                path.append(current)
                links += 1
                current = parent
            }
            if case .known(let root, var depth) = marks[current] {
                for index in path.reversed() {
                    depth += 1
                    marks[index] = .known(root: root, depth: depth)
                }
            } else {
                for index in path { marks[index] = .cyclic }
            }
        }
        self.rootIndices = marks.map { if case .known(let root, _) = $0 { root } else { nil } }
        self.depths = marks.map { if case .known(_, let depth) = $0 { depth } else { 0 } }

        // Children, then a depth-first walk of each hierarchy, parents before children.
        var children = [[Int]](repeating: [], count: entities.count)
        for (index, parent) in parentIndices.enumerated() where rootIndices[index] != nil {
            if let parent { children[parent].append(index) }
        }
        var ranges = [Range<Int>?](repeating: nil, count: entities.count)
        var order: [Int] = []
        for root in entities.indices where parentIndices[root] == nil {
            var stack: [(index: Int, child: Int)] = [(root, 0)]
            var starts = [order.count]
            order.append(root)
            while let top = stack.last {
                if top.child < children[top.index].count {
                    stack[stack.count - 1].child += 1
                    let child = children[top.index][top.child]
                    links += 1
                    stack.append((child, 0))
                    starts.append(order.count)
                    order.append(child)
                } else {
                    stack.removeLast()
                    ranges[top.index] = starts.removeLast()..<order.count
                }
            }
        }
        self.subtreeRanges = ranges
        self.parentsFirst = order

        // Inherited properties: the parent's (already listed: parents come first in `order`), then
        // the entity's own. An entity on a cycle lists its own and those of the entities it
        // reaches before coming back, topmost first, as far as a cycle can be told apart.
        var attributes = entities.map(\.attributes)
        var relationships = entities.map(\.relationships)
        for index in order {
            guard let parent = parentIndices[index] else { continue }
            attributes[index] = attributes[parent] + entities[index].attributes
            relationships[index] = relationships[parent] + entities[index].relationships
        }
        for index in entities.indices where rootIndices[index] == nil {
            var chain = [index]
            var seen: Set<Int> = [index]
            var current = index
            while let parent = parentIndices[current], seen.insert(parent).inserted {
                links += 1
                chain.append(parent)
                current = parent
            }
            attributes[index] = chain.reversed().flatMap { entities[$0].attributes }
            relationships[index] = chain.reversed().flatMap { entities[$0].relationships }
        }
        self.inheritedAttributes = attributes
        self.inheritedRelationships = relationships
        self.parentLinksFollowed = links
    }

    /// The attributes of the entity at `index` with inherited ones first.
    func attributes(ofEntityAt index: Int) -> [Attribute] {
        inheritedAttributes[index]
    }

    /// The relationships of the entity at `index` with inherited ones first.
    func relationships(ofEntityAt index: Int) -> [Relationship] {
        inheritedRelationships[index]
    }

    /// The positions of the entities below the entity at `index` (children, grandchildren, …),
    /// in declaration order; none for an entity on a cycle.
    func descendants(ofEntityAt index: Int) -> [Int] {
        guard let range = subtreeRanges[index] else { return [] }
        return parentsFirst[range.dropFirst()].sorted()
    }

    /// Whether the entity named `name` is the entity at `index` or one of its ancestors.
    func isSelfOrAncestor(_ name: String, ofEntityAt index: Int) -> Bool {
        guard let candidate = indexByName[name] else { return false }
        if candidate == index { return true }
        guard let outer = subtreeRanges[candidate], let inner = subtreeRanges[index] else {
            // On a cycle: every entity reached by following parents is an ancestor.
            var seen: Set<Int> = [index]
            var current = index
            while let parent = parentIndices[current], seen.insert(parent).inserted {
                if parent == candidate { return true }
                current = parent
            }
            return false
        }
        return outer.contains(inner.lowerBound)
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
