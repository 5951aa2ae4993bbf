import Foundation
import TroveModel
import Testing
import Trove
import TroveTesting

@Suite struct ChangeEventTests {
    let dir: TemporaryDirectory
    let container: Container

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(model: SampleModels.photos(), url: dir.file("e.trove"))
    }

    @Test func aSaveAnnouncesWhatItWroteOnItsStreamsAndNotificationCenter() async throws {
        let context = container.newBackgroundContext()
        let ann = try context.insert("Photographer")
        try ann.setValue("ann", forKey: "id")
        let photo = try context.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try context.save()

        var contextEvents = context.didSave.makeAsyncIterator()
        var containerEvents = container.didSave.makeAsyncIterator()
        let observed = Observed()
        let id = context.identifier
        let token = NotificationCenter.default.addObserver(forName: ObjectContext.didSaveNotification, object: nil, queue: nil) { note in
            guard note.userInfo?[ObjectContext.contextKey] as? ContextID == id else { return }
            observed.set(note.userInfo?[ObjectContext.changesKey] as? ObjectChanges)
        }
        defer { NotificationCenter.default.removeObserver(token) }

        try photo.setValue("Sunset", forKey: "title")
        try photo.setRelatedObject(ann, forKey: "whoTook")
        let extra = try context.insert("Photo")
        try extra.setValue("p2", forKey: "id")
        try context.delete(extra)
        let second = try context.insert("Photo")
        try second.setValue("p3", forKey: "id")
        try context.save()

        let event = try #require(await contextEvents.next())
        #expect(event.context == context.identifier)
        #expect(event.changes.inserted == [second.objectID])
        #expect(event.changes.updated == [photo.objectID, ann.objectID])
        #expect(event.changes.deleted.isEmpty, "an insert deleted before saving never reached the store")
        #expect(event.changes.changedKeys[photo.objectID] == ["title", "whoTook"])
        #expect(event.changes.changedKeys[ann.objectID] == ["photos"])
        #expect(await containerEvents.next() == event)
        #expect(observed.changes == event.changes)
    }

    @Test func inMemoryChangesAreCoalescedUntilProcessed() async throws {
        let context = container.newBackgroundContext()
        var events = context.objectsDidChange.makeAsyncIterator()
        let a = try context.insert("Photo")
        try a.setValue("a", forKey: "id")
        try a.setValue("A", forKey: "title")
        let b = try context.insert("Photo")
        try b.setValue("b", forKey: "id")
        context.processPendingChanges()
        context.processPendingChanges()
        let event = try #require(await events.next())
        #expect(event.changes.inserted == [a.objectID, b.objectID])
        try context.save()
        try a.setValue("A2", forKey: "title")
        try context.delete(b)
        try context.save()
        let next = try #require(await events.next())
        #expect(next.changes.updated == [a.objectID] && next.changes.deleted == [b.objectID])
        #expect(next.changes.changedKeys[a.objectID] == ["title"])
    }
}

@Suite struct MergeTests {
    let dir: TemporaryDirectory
    let container: Container

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(model: SampleModels.photos(), url: dir.file("m.trove"))
        let setup = container.newBackgroundContext()
        let ann = try setup.insert("Photographer")
        try ann.setValue("ann", forKey: "id")
        try ann.setValue("Ann", forKey: "name")
        for i in 0..<3 {
            let photo = try setup.insert("Photo")
            try photo.setValue("p\(i)", forKey: "id")
            try photo.setValue("t\(i)", forKey: "title")
            try photo.setRelatedObject(ann, forKey: "whoTook")
        }
        try setup.save()
    }

    @Test func mergingKeepsUnsavedChangesAndDropsDeletedObjects() async throws {
        let mine = container.newBackgroundContext()
        let photos = try mine.fetch("Photo", sortedBy: "id")
        let ann = try #require(try mine.fetchFirst("Photographer"))
        #expect(try ann.relatedObjects(forKey: "photos").count == 3)
        try photos[0].setValue("mine", forKey: "title")

        let theirs = container.newBackgroundContext()
        let other = try theirs.fetch("Photo", sortedBy: "id")
        try other[0].setValue(50, forKey: "views")
        try other[1].setValue("theirs", forKey: "title")
        try theirs.delete(other[2])
        let fresh = try theirs.insert("Photo")
        try fresh.setValue("p9", forKey: "id")
        try fresh.setRelatedObject(try theirs.object(with: ann.objectID), forKey: "whoTook")
        var saves = theirs.didSave.makeAsyncIterator()
        try theirs.save()

        let saved = try #require(await saves.next())
        try mine.mergeChanges(from: saved.changes)
        #expect(try photos[0].value(forKey: "title") == "mine", "an unsaved change survives the merge")
        #expect(try photos[0].value(forKey: "views") == 50, "the other context's change arrives")
        #expect(try photos[1].value(forKey: "title") == "theirs")
        #expect(photos[2].context == nil, "a deleted object leaves the context")
        #expect(try Set(ann.relatedObjects(forKey: "photos").map { try $0.value(forKey: "id") }) == ["p0", "p1", "p9"])
        try mine.save()
        #expect(try container.newBackgroundContext().fetchFirst("Photo", whereKey: "id", equals: "p0")?.value(forKey: "views") == 50)
    }

    @Test func refreshDiscardsOrKeepsLocalChanges() throws {
        let context = container.newBackgroundContext()
        let photo = try #require(try context.fetchFirst("Photo", whereKey: "id", equals: "p0"))
        try photo.setValue("local", forKey: "title")
        let other = container.newBackgroundContext()
        try #require(try other.fetchFirst("Photo", whereKey: "id", equals: "p0")).setValue(7, forKey: "views")
        try other.save()
        try context.refresh(photo, mergeChanges: true)
        #expect(try photo.value(forKey: "title") == "local" && photo.value(forKey: "views") == 7)
        try context.refresh(photo, mergeChanges: false)
        #expect(try photo.value(forKey: "title") == "t0" && !context.hasChanges)
    }

    @MainActor @Test func aBackgroundImportIsMergedIntoTheViewContext() async throws {
        let view = container.viewContext
        let shown = try view.fetch("Photo", sortedBy: "id")
        #expect(shown.count == 3)
        var viewEvents = container.didSave.makeAsyncIterator()
        let payload = Data(#"[{"id": "p0", "title": "renamed"}, {"id": "p7", "title": "new", "whoTook": "ann"}]"#.utf8)
        let report = try await container.performBackgroundTask { context in
            try Importer(context: context).importJSON(payload, into: "Photo")
        }
        #expect(report.entities["Photo"]?.inserted == 1 && report.entities["Photo"]?.updated == 1)
        let event = try #require(await viewEvents.next())
        #expect(event.changes.updated.contains(shown[0].objectID))
        #expect(event.changes.inserted.count == 1)
        // The view context merges on the main actor; give it its turn.
        for _ in 0..<100 where try shown[0].value(forKey: "title") != "renamed" { await Task.yield() }
        #expect(try shown[0].value(forKey: "title") == "renamed")
        #expect(try view.fetchCount("Photo") == 4)
    }

    /// A merge that fails (here: the table renamed behind the store's back) is reported with its
    /// error, and the view context is left as it was, its objects whole, until the cause is gone.
    @MainActor @Test(.timeLimit(.minutes(1))) func aMergeThatFailsIsReportedAndLeavesTheContextAsItWas() async throws {
        let view = container.viewContext
        let shown = try #require(try view.fetchFirst("Photo", whereKey: "id", equals: "p0"))
        var failures = container.mergeFailures.makeAsyncIterator()
        let other = container.newBackgroundContext()
        try #require(try other.fetchFirst("Photo", whereKey: "id", equals: "p0")).setValue("renamed", forKey: "title")
        try other.save()
        // The view context merges on the main actor, after this test's next suspension: by then
        // the table is gone.
        try StoreIntegrity.execute("ALTER TABLE Photo RENAME TO Gone", onStoreAt: dir.file("m.trove"))
        let failure = try #require(await failures.next())
        #expect(failure.context == view.identifier && failure.source == other.identifier)
        #expect(failure.changes.updated == [shown.objectID])
        #expect("\(failure.error)".contains("no such table"))
        #expect(try shown.value(forKey: "title") == "t0", "not half refreshed")
        #expect(!view.hasChanges)
        try StoreIntegrity.execute("ALTER TABLE Gone RENAME TO Photo", onStoreAt: dir.file("m.trove"))
        try view.refreshAllObjects()
        #expect(try shown.value(forKey: "title") == "renamed")
    }

    @Test(.timeLimit(.minutes(1))) func anActorOwnedContextReportsAMergeThatFails() async throws {
        let worker = BackgroundContext(container: container, mergingOtherSaves: true)
        // An unsaved change keeps the object in the context, so the merge has it to update.
        let id = try await worker.perform { context in
            let photo = try #require(try context.fetchFirst("Photo", whereKey: "id", equals: "p1"))
            try photo.setValue(99, forKey: "views")
            return photo.objectID
        }
        var failures = container.mergeFailures.makeAsyncIterator()
        // Saved and the table renamed while the actor is busy, so its merge comes after both.
        let container = container, url = dir.file("m.trove")
        let source = try await worker.perform { _ in
            let other = container.newBackgroundContext()
            try other.object(with: id).setValue("changed", forKey: "title")
            try other.save()
            try StoreIntegrity.execute("ALTER TABLE Photo RENAME TO Gone", onStoreAt: url)
            return other.identifier
        }
        let failure = try #require(await failures.next())
        #expect(failure.source == source && failure.changes.updated == [id])
        #expect("\(failure.error)".contains("no such table"))
        let (title, views) = try await worker.perform { context in
            let photo = try context.object(with: id)
            return (try photo.value(forKey: "title", as: String.self), try photo.value(forKey: "views", as: Int64.self))
        }
        #expect(title == "t1" && views == 99, "as it was, the unsaved change kept")
    }

    /// Background work runs on a queue of its own, not on Swift's cooperative pool, where
    /// blocking store work would hold one of its few threads (one per core). Checked where the
    /// work runs rather than by blocking: the other tests of the suite keep the pool busy.
    @Test func backgroundWorkRunsOnAQueueOfItsOwnNotOnTheCooperativePool() async throws {
        #expect(!QueueExecutor.isCurrent)
        let worker = BackgroundContext(container: container)
        #expect(try await worker.perform { context in try context.fetchCount("Photo") == 3 && QueueExecutor.isCurrent })
        #expect(try await container.performBackgroundTask { context in try context.fetchCount("Photo") == 3 && QueueExecutor.isCurrent })
        #expect(!QueueExecutor.isCurrent)
    }

    @Test(.timeLimit(.minutes(1))) func anActorOwnedContextMergesOtherSaves() async throws {
        let worker = BackgroundContext(container: container, mergingOtherSaves: true)
        let id = try await worker.perform { context in
            try #require(try context.fetchFirst("Photo", whereKey: "id", equals: "p1")).objectID
        }
        // Hold the object inside the actor so the merge has something to update.
        let held = try await worker.perform { context in try context.object(with: id).value(forKey: "title") }
        #expect(held == "t1")
        let other = container.newBackgroundContext()
        try other.object(with: id).setValue("changed", forKey: "title")
        try other.save()
        // The actor merges in a task of its own: wait for it as long as it takes (the suite's
        // time limit stops a merge that never comes), never a fixed time.
        while try await worker.perform({ context in try context.object(with: id).value(forKey: "title") }) != "changed" {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }
}

/// A value set by an observer on another thread.
final class Observed: Sendable {
    private let stored = Locked<ObjectChanges?>(nil)
    var changes: ObjectChanges? { stored.withLock { $0 } }
    func set(_ changes: ObjectChanges?) { stored.withLock { $0 = changes } }
}
