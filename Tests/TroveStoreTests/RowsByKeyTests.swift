import Foundation
import Testing
@testable import TroveStore
import TroveModel
import TroveTesting

/// `rows(for:)` reads dense runs of keys by range and the rest by lookups: either way, each
/// row asked for once, nothing else.
@Suite struct RowsByKeyTests {
    @Test func keysSplitIntoDenseRunsAndLookups() {
        let runs = PrimaryKeyRuns([30, 1, 2, 3, 4, 5, 6, 7, 8, 8, 9, 10, 12, 500, 502, 504, 506, 508, 510, 512, 514, 516, 1000])
        #expect(runs.ranges.map(Array.init) == [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12], [500, 502, 504, 506, 508, 510, 512, 514, 516]])
        #expect(runs.lookups == [30, 1000])
        // Every third key: too sparse for a range; a short run is looked up.
        #expect(PrimaryKeyRuns(Array(stride(from: 1, to: 100, by: 3))).ranges.isEmpty)
        #expect(PrimaryKeyRuns([5, 4, 3]).ranges.map(Array.init) == [[3, 4, 5]], "one short run alone is a range")
        #expect(PrimaryKeyRuns([5, 4, 3, 60]).lookups == [3, 4, 5, 60])
        // Keys far apart do not overflow the span.
        let extremes = PrimaryKeyRuns([Int64.min, -1, 0, 1, Int64.max])
        #expect(extremes.ranges.isEmpty && extremes.lookups == [Int64.min, -1, 0, 1, Int64.max])
        #expect(PrimaryKeyRuns([]).ranges.isEmpty && PrimaryKeyRuns([]).lookups.isEmpty)
    }

    @Test func everyRowAskedForComesOnceWhateverTheKeysLookLike() throws {
        let store = try SQLiteStore(inMemoryWith: SampleModels.photos())
        let photo = try #require(store.model.entity(named: "Photo"))
        let photographer = try #require(store.model.entity(named: "Photographer"))
        let inserts = (0..<1200).map { n in
            ChangeSet.Insert(objectID: .temporary(entity: photo), values: [.string("p\(n)"), .string("t\(n)"), .null, .integer(Int64(n))])
        } + (0..<3).map { n in
            ChangeSet.Insert(objectID: .temporary(entity: photographer), values: [.string("a\(n)"), .string("Ann \(n)")])
        }
        let saved = try store.save(ChangeSet(inserts: inserts))
        let ids = try inserts.map { try #require(saved.permanentIDs[$0.objectID]) }
        let photos = Array(ids[..<1200]), photographers = Array(ids[1200...])
        // Rows 100..<110 and every seventh row are deleted.
        let gone = Set(photos[100..<110] + stride(from: 0, to: 1200, by: 7).map { photos[$0] })
        _ = try store.save(ChangeSet(deletes: gone.map { .init(objectID: $0, expectedVersion: 1) }))

        func expectRows(for asked: [ObjectID], _ comment: Comment) throws {
            let rows = try store.rows(for: asked)
            let wanted = Set(asked).subtracting(gone).filter { !$0.isTemporary }
            #expect(rows.count == wanted.count, comment)
            #expect(Set(rows.map(\.objectID)) == wanted, comment)
            for row in rows {
                guard let n = ids.firstIndex(of: row.objectID) else { continue }
                let expected: AttributeValue = n < 1200 ? .string("p\(n)") : .string("a\(n - 1200)")
                #expect(row.values[0] == expected, comment)
            }
        }
        try expectRows(for: photos, "every row, with holes")
        try expectRows(for: Array(photos[95..<1095]), "a batch of a thousand, in order")
        try expectRows(for: photos.reversed(), "descending")
        try expectRows(for: stride(from: 0, to: 1200, by: 3).map { photos[$0] }, "every third: by lookups")
        try expectRows(for: Array(photos[200..<260] + photos[200..<230]) + [photos[5], photos[1000]], "repeated and scattered")
        try expectRows(for: photographers + photos[300..<340] + [.temporary(entity: photo)] + photographers, "two tables and a temporary ID")
        try expectRows(for: Array(gone), "only deleted rows")
        try expectRows(for: [], "nothing")
    }

    @Test func aDenseBatchIsOneRangeReadAndAScatteredOneIsLookedUp() throws {
        let dir = try TemporaryDirectory()
        let recorder = SQLRecorder()
        let store = try SQLiteStore(url: dir.file("r.trove"), model: SampleModels.photos(), options: .init(statementObserver: recorder.observer))
        let photo = try #require(store.model.entity(named: "Photo"))
        let inserts = (0..<100).map { n in
            ChangeSet.Insert(objectID: .temporary(entity: photo), values: [.string("p\(n)"), nil, nil, 0])
        }
        let saved = try store.save(ChangeSet(inserts: inserts))
        let ids = try inserts.map { try #require(saved.permanentIDs[$0.objectID]) }

        recorder.reset()
        #expect(try store.rows(for: Array(ids[10..<90])).count == 80)
        #expect(recorder.selects.count == 1)
        #expect(recorder.selects.first?.contains("BETWEEN") == true, "\(recorder.selects)")

        recorder.reset()
        #expect(try store.rows(for: stride(from: 0, to: 100, by: 5).map { ids[$0] }).count == 20)
        #expect(recorder.selects.count == 1)
        #expect(recorder.selects.first?.contains(" IN (") == true, "\(recorder.selects)")
    }
}
