import Foundation
import Observation
import Synchronization
import Testing
import Trove
import TroveTesting

/// Counts the changes Observation reports.
private final class Changes: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func record() { count.add(1, ordering: .relaxed) }
}

/// Tracks `read` once and returns the counter its change is reported to.
private func track(_ read: () -> Void) -> Changes {
    let changes = Changes()
    withObservationTracking(read) { changes.record() }
    return changes
}

@Suite struct ObservationTests {
    let dir: TemporaryDirectory
    let container: Container

    init() throws {
        dir = try TemporaryDirectory()
        container = try Container(model: SampleModels.photos(), url: dir.file("s.trove"), classes: [LPhotographer.self, LPhoto.self])
    }

    private func observedContext() -> ObjectContext {
        let context = container.newBackgroundContext()
        context.isObservationEnabled = true
        return context
    }

    private func savedPhoto(in context: ObjectContext) throws -> LPhoto {
        let photo = try context.insert(LPhoto.self)
        photo.id = "p1"
        photo.title = "one"
        try context.save()
        return photo
    }

    @Test func aPropertyReadIsToldOfTheAppsChangeAndNotOfOtherProperties() throws {
        let context = observedContext()
        let photo = try savedPhoto(in: context)
        let title = track { _ = photo.title }
        photo.views = 7
        #expect(title.value == 0, "views is not what was read")
        photo.title = "two"
        #expect(title.value == 1)
        let dynamic = track { _ = photo.title }
        try photo.setValue("three", forKey: "title")
        #expect(dynamic.value == 1, "the dynamic API's changes are reported too")
    }

    @Test func mergesRefreshesUndoAndRollbackAreReported() async throws {
        let context = observedContext()
        let photo = try savedPhoto(in: context)

        let merged = track { _ = photo.title }
        let other = container.newBackgroundContext()
        try #require(try other.fetchFirst(LPhoto.self)).title = "theirs"
        var saves = other.didSave.makeAsyncIterator()
        try other.save()
        let saved = try #require(await saves.next())
        try context.mergeChanges(from: saved.changes)
        #expect(merged.value == 1 && photo.title == "theirs")

        let refreshed = track { _ = photo.title }
        try #require(try other.fetchFirst(LPhoto.self)).title = "again"
        try other.save()
        try context.refresh(photo, mergeChanges: false)
        #expect(refreshed.value == 1 && photo.title == "again")

        context.undoManager = ContextUndoManager()
        photo.title = "edited"
        context.processPendingChanges()
        let undone = track { _ = photo.title }
        context.undoManager?.undo()
        #expect(undone.value == 1 && photo.title == "again")

        photo.title = "to be rolled back"
        let rolledBack = track { _ = photo.title }
        context.rollback()
        #expect(rolledBack.value == 1 && photo.title == "again")
    }

    @Test func relationshipsAreReportedOnBothSides() throws {
        let context = observedContext()
        let photo = try savedPhoto(in: context)
        let ann = try context.insert(LPhotographer.self)
        ann.id = "ann"
        let photos = track { _ = ann.photos }
        let owner = track { _ = photo.whoTook }
        photo.whoTook = ann
        #expect(photos.value == 1 && owner.value == 1)
        #expect(ann.photos == [photo])
    }

    @Test func theViewContextTakesPartAndOtherContextsOnlyWhenAsked() async throws {
        let enabled = await MainActor.run { container.viewContext.isObservationEnabled }
        #expect(enabled)
        let context = container.newBackgroundContext()
        #expect(!context.isObservationEnabled)
        let photo = try savedPhoto(in: context)
        let title = track { _ = photo.title }
        photo.title = "two"
        #expect(title.value == 0, "off: no registrar, nothing reported")

        // Turned on and off again: objects already in memory follow.
        context.isObservationEnabled = true
        let on = track { _ = photo.title }
        photo.title = "three"
        #expect(on.value == 1, "on: the object read before is observed")
        context.isObservationEnabled = false
        let off = track { _ = photo.views }
        photo.views = 9
        #expect(off.value == 0, "off again: reads are not reported")
    }
}
