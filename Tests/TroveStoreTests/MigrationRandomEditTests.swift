import Foundation
import Testing
@testable import TroveStore
import TroveModel
import TroveTesting

/// Random chains of inferred edits to the library's Author entity: after each migration, every
/// stored value is what the edits say it must be (computed here independently, row by row), the
/// store has the shape of a new one (the fixture checks that), and the books keep their authors.
@Suite struct MigrationRandomEditTests {
    @Test(arguments: 1...12) func randomEditChainsKeepEveryValue(seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed))
        let (fixture, _) = try Library.fixture()
        var entities = Library.entities()
        var expected = Library.expectedAuthors()
        var counter = 0
        for round in 0..<4 {
            let stored = Set(entities[0].attributes.map(\.name))
            for _ in 0..<Int.random(in: 1...2, using: &random) {
                counter += 1
                edit(&entities[0], rows: &expected, counter: counter, stored: stored, random: &random)
            }
            let model = try Model(entities: entities)
            let plan = try fixture.plan(to: model)
            #expect(plan.blockers.isEmpty, "seed \(seed), round \(round): \(plan)")
            try fixture.migrate(to: model)
            #expect(try fixture.objects("Author", model: model) == expected, "seed \(seed), round \(round): \(plan)")
            #expect(try fixture.related("books", of: "Author", pk: 1, model: model) == [1, 2])
        }
    }

    /// One edit of `author` from the inferred kinds, applied to the expected rows too; `stored`
    /// names the attributes the store has (a rename names one of them, as a model author would).
    func edit(_ author: inout Entity, rows: inout [[String: AttributeValue]], counter: Int, stored: Set<String>,
              random: inout SeededGenerator) {
        let others = author.attributes.indices.filter { author.attributes[$0].name != "id" }
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            let type = [AttributeType.string, .integer32, .double, .boolean].randomElement(using: &random) ?? .string
            author.attributes.append(Attribute("added\(counter)", type))
            for i in rows.indices { rows[i]["added\(counter)"] = .null }
        case 1:
            author.attributes.append(Attribute("counted\(counter)", .integer64, optional: Bool.random(using: &random), default: .integer(Int64(counter))))
            for i in rows.indices { rows[i]["counted\(counter)"] = .integer(Int64(counter)) }
        case 2 where !others.isEmpty:
            let index = others.randomElement(using: &random) ?? others[0]
            let name = author.attributes.remove(at: index).name
            for i in rows.indices { rows[i][name] = nil }
        case 3 where !others.isEmpty:
            let index = others.randomElement(using: &random) ?? others[0]
            let old = author.attributes[index]
            var renamed = old
            renamed.name = "renamed\(counter)"
            renamed.renamedFrom = stored.contains(old.name) ? old.name : old.renamedFrom
            author.attributes[index] = renamed
            for i in rows.indices { rows[i]["renamed\(counter)"] = rows[i].removeValue(forKey: old.name) }
        case 4:
            guard let index = author.attributes.firstIndex(where: { $0.type.isInteger && $0.type != .integer64 }) else { fallthrough }
            let target: AttributeType = [.integer64, .double, .decimal].randomElement(using: &random) ?? .integer64
            author.attributes[index].type = target
            let name = author.attributes[index].name
            for i in rows.indices {
                guard case .integer(let value)? = rows[i][name] else { continue }
                rows[i][name] = target == .double ? .double(Double(value)) : target == .decimal ? .decimal(Decimal(value)) : .integer(value)
            }
        default:
            guard let index = author.attributes.firstIndex(where: { $0.isOptional && $0.type == .string }) else { return }
            author.attributes[index].isOptional = false
            author.attributes[index].defaultValue = "none"
            let name = author.attributes[index].name
            for i in rows.indices where rows[i][name] == .null { rows[i][name] = "none" }
        }
    }
}
