import Foundation
import Testing
@testable import TroveStore
import TroveModel
import TroveTesting

/// ID lists keep runs of consecutive keys while that is smaller, the keys otherwise: either
/// way every position gives its ID back.
@Suite struct ObjectIDListTests {
    let model: Model

    init() throws {
        model = try SampleModels.media()
    }

    func expectSameKeys(_ keys: [Int64], _ comment: Comment) {
        var list = KeyList()
        for key in keys { list.append(key) }
        #expect(list.count == keys.count, comment)
        #expect((0..<keys.count).map { list[$0] } == keys, comment)
        for range in [0..<keys.count, keys.count / 3..<keys.count / 2, keys.count / 2..<keys.count / 2] {
            var seen: [Int64] = []
            list.forEach(in: range) { position, key in
                #expect(keys[position] == key, comment)
                seen.append(key)
            }
            #expect(seen == Array(keys[range]), comment)
        }
    }

    @Test func keysComeBackWhateverTheirRuns() {
        expectSameKeys(Array(1...100_000), "one run")
        expectSameKeys(Array(1...50) + Array(70...90) + [5, 4, 3] + Array(1000...3000), "a few runs, and keys going down")
        expectSameKeys(Array(stride(from: 1, to: 30_000, by: 2)), "no run: the keys themselves")
        expectSameKeys(Array(1...500) + Array(stride(from: 1000, to: 20_000, by: 3)) + Array(50_000...60_000), "runs, then none")
        expectSameKeys([Int64.max - 2, Int64.max - 1, Int64.max, Int64.min, Int64.min + 1, -1, 0, 1], "no run wraps around")
        expectSameKeys([], "nothing")
    }

    @Test func idsOfAHierarchyNameEachItsEntity() throws {
        let media = try #require(model.entity(named: "Media"))
        let image = try #require(model.entity(named: "Image"))
        var list = ObjectIDList(entity: media)
        for key in Int64(1)...10 { list.append(key) }
        for key in Int64(11)...20 { list.append(key, of: key.isMultiple(of: 2) ? image : media) }
        #expect(list.count == 20)
        #expect(list[0] == ObjectID(entity: media, primaryKey: 1))
        #expect(list[13].entityName == "Image" && list[12].entityName == "Media")
        #expect(list.entity(at: 15).name == "Image")
        #expect(list.ids(in: 8..<14).map(\.primaryKey) == [9, 10, 11, 12, 13, 14])
        #expect(list.ids(in: 8..<14).map(\.entityName) == ["Media", "Media", "Media", "Image", "Media", "Image"])
        #expect(Array(list) == list.ids(in: 0..<20))
    }
}
