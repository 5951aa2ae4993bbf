import Foundation
import Testing
@testable import TroveModel

/// Deep inheritance: loading a model follows each parent link a bounded number of times (it
/// once cost the cube of the chain's depth), and chains deeper than the limit are refused.
@Suite struct InheritanceDepthTests {
    /// A chain `E0 ← E1 ← … ← E(depth)`: `depth` ancestors for the last, one attribute each.
    private func chain(ancestors depth: Int) -> [Entity] {
        (0...depth).map { level in
            Entity("E\(level)", parent: level == 0 ? nil : "E\(level - 1)",
                   attributes: [Attribute("a\(level)", .integer64)])
        }
    }

    @Test func parentLinksFollowedGrowLinearlyWithTheChain() {
        // Each link is followed once to find roots and depths and once to walk the hierarchy.
        for depth in [10, 50, 100, 1_000] {
            let declared = DeclaredModel(chain(ancestors: depth))
            #expect(declared.parentLinksFollowed == 2 * depth, "chain of \(depth)")
            #expect(declared.depths.last == depth)
            #expect(declared.rootIndices.allSatisfy { $0 == 0 })
        }
    }

    @Test func aWideTreeFollowsEachLinkTwiceToo() {
        let entities = [Entity("Root")] + (1...500).map { Entity("Leaf\($0)", parent: $0 == 1 ? "Root" : "Leaf\($0 / 2)") }
        let declared = DeclaredModel(entities)
        #expect(declared.parentLinksFollowed == 2 * 500)
        // Leaf k is the child of leaf k / 2, so every leaf but the first is below the first.
        #expect(declared.descendants(ofEntityAt: 1) == Array(2...500))
        #expect(declared.descendants(ofEntityAt: 2) == [4, 5, 8, 9, 10, 11] + Array(16...23) + Array(32...47)
            + Array(64...95) + Array(128...191) + Array(256...383))
        #expect(declared.isSelfOrAncestor("Leaf2", ofEntityAt: 4 + 1) && !declared.isSelfOrAncestor("Leaf3", ofEntityAt: 4 + 1))
    }

    @Test func aChainAtTheLimitResolves() throws {
        let model = try Model(entities: chain(ancestors: Model.maximumInheritanceDepth))
        let deepest = try #require(model.entity(named: "E\(Model.maximumInheritanceDepth)"))
        #expect(deepest.attributes.map(\.name) == (0...Model.maximumInheritanceDepth).map { "a\($0)" })
        #expect(deepest.rootName == "E0")
        let root = try #require(model.entity(named: "E0"))
        #expect(root.subentityNames == (1...Model.maximumInheritanceDepth).map { "E\($0)" })
        #expect(model.entity(named: "E50")?.subentityNames.first == "E51")
    }

    @Test func aChainPastTheLimitIsRefusedAtTheFirstEntityTooDeep() {
        let depth = Model.maximumInheritanceDepth + 20
        let issues = modelIssues(chain(ancestors: depth))
        #expect(issues.map(\.description) == [
            "entities[101].parent: entity 'E101': it has more than 100 ancestors (parent, parent's parent, …), the"
                + " most Trove allows; flatten the hierarchy, for example by giving entities an attribute that tells"
                + " their kind apart",
        ])
    }

    @Test func aLongCycleIsNamedShortly() {
        let entities = (0..<30).map { Entity("C\($0)", parent: "C\(($0 + 1) % 30)") }
        let issues = modelIssues(entities)
        #expect(issues.count == 30)
        #expect(issues.first?.description == "entities[0].parent: entity 'C0': inheritance cycle C0 → C1 → C2 → C3 → C4"
            + " → C5 → C6 → C7 → C8 → C9 → C10 → … (30 entities) → C0; an entity cannot be its own ancestor, so remove"
            + " one of these parents")
    }
}
