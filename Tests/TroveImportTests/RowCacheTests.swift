import Foundation
import Testing
@testable import TroveImport
import TroveModel
import TroveStore
import TroveTesting

/// The rows an import keeps from batch to batch: bounded, kept up to date, and forgotten as soon
/// as the store changed under them.
@Suite struct RowCacheTests {
    let dir: TemporaryDirectory
    let store: SQLiteStore
    let photo: Entity

    init() throws {
        dir = try TemporaryDirectory()
        store = try SQLiteStore(url: dir.file("s.trove"), model: SampleModels.photos())
        photo = try #require(store.model.entity(named: "Photo"))
    }

    func key(_ n: Int) -> UniqueKey {
        UniqueKey(root: "Photo", attributes: [0], values: [.string("p\(n)")])
    }

    func row(_ n: Int, title: String) -> RowSnapshot {
        RowSnapshot(objectID: ObjectID(entity: photo, primaryKey: Int64(n + 1)), version: 1,
                    values: [.string("p\(n)"), .string(title), .null, 0])
    }

    @Test func keepsAtMostItsLimitAndKeepsWhatItHoldsUpToDate() throws {
        let token = try store.changeToken()
        var cache = RowCache()
        cache.keep((0..<(RowCache.limit + 5)).map { (key($0), row($0, title: "a")) }, after: token)
        #expect(cache[key(0)]?.values[1] == "a")
        #expect(cache[key(RowCache.limit - 1)] != nil)
        #expect(cache[key(RowCache.limit)] == nil, "rows past the limit are not kept")

        cache.keep([(key(0), row(0, title: "b")), (key(RowCache.limit + 1), row(RowCache.limit + 1, title: "b"))], after: token)
        #expect(cache[key(0)]?.values[1] == "b", "a row kept is brought up to date")
        #expect(cache[key(RowCache.limit + 1)] == nil)

        cache.check(against: try store.changeToken())
        #expect(cache[key(0)] != nil, "no one wrote: the rows hold")
    }

    @Test func forgetsEverythingWhenTheStoreChangedOrItsTokenIsUnknown() throws {
        var cache = RowCache()
        cache.keep([(key(1), row(1, title: "a"))], after: try store.changeToken())
        _ = try store.save(ChangeSet(inserts: [.init(objectID: .temporary(entity: photo), values: ["other", nil, nil, 0])]))
        cache.check(against: try store.changeToken())
        #expect(cache[key(1)] == nil, "someone wrote since the rows were kept")

        cache.keep([(key(1), row(1, title: "a"))], after: try store.changeToken())
        cache.keep([(key(2), row(2, title: "a"))], after: nil)
        #expect(cache[key(1)] == nil && cache[key(2)] == nil, "a save without a token keeps nothing")
        cache.keep([(key(3), row(3, title: "a"))], after: try store.changeToken())
        cache.check(against: nil)
        #expect(cache[key(3)] == nil, "an unreadable token is never taken for the same")
    }

    /// A staged save's rows are kept as if it had committed; confirmed right after the save
    /// before it, they hold, and its keys count as written for rows read before it. When
    /// another writer committed in between, every row goes, and the import is told that others
    /// write until two of its saves follow each other again.
    @Test func aStagedSavesRowsHoldOnlyWhenItCameRightAfterTheSaveBefore() throws {
        let start = try store.changeToken()
        var cache = RowCache()
        cache.begin(at: start)
        cache.keepStaged([(key(1), row(1, title: "a"))], written: [key(1)])
        #expect(cache[key(1)]?.values[1] == "a")
        #expect(cache.keysWrittenWithStaged(since: start)?.contains(key(1)) == true)
        #expect(cache.keysWrittenWithStaged(since: start)?.contains(key(2)) == false)

        _ = try store.save(ChangeSet(inserts: [.init(objectID: .temporary(entity: photo), values: ["p1", "a", nil, 0])]))
        let first = try store.changeToken()
        let held = cache.confirm(before: start, after: first)
        #expect(held)
        #expect(cache[key(1)] != nil && !cache.othersWrite)
        #expect(cache.keysWrittenWithStaged(since: start)?.contains(key(1)) == true, "the save is remembered")

        cache.keepStaged([(key(2), row(2, title: "b"))], written: [key(2)])
        _ = try store.save(ChangeSet(inserts: [.init(objectID: .temporary(entity: photo), values: ["other", nil, nil, 0])]))
        let foreign = try store.changeToken()
        _ = try store.save(ChangeSet(inserts: [.init(objectID: .temporary(entity: photo), values: ["p2", "b", nil, 0])]))
        let heldAfterForeign = cache.confirm(before: foreign, after: try store.changeToken())
        #expect(!heldAfterForeign, "another writer committed first")
        #expect(cache[key(1)] == nil && cache[key(2)] == nil)
        #expect(cache.othersWrite)
        #expect(cache.keysWrittenWithStaged(since: start) == nil)

        // Two of the import's saves in a row, the ordinary way: others no longer write between them.
        let third = try store.changeToken()
        cache.noteSave(before: foreign, after: third, written: [key(3)])
        #expect(cache.othersWrite, "one save tells nothing")
        _ = try store.save(ChangeSet(inserts: [.init(objectID: .temporary(entity: photo), values: ["p4", nil, nil, 0])]))
        let fourth = try store.changeToken()
        cache.noteSave(before: third, after: fourth, written: [key(4)])
        #expect(!cache.othersWrite)
    }
}
