import Foundation
import Testing
import Trove
import TroveTesting

/// Transient attributes: in memory on the object, never in the store (see ``DerivedFixture``:
/// `Photographer.selected`, a boolean defaulting to false, and `Photo.note`, without default).
@Suite struct TransientAttributeTests {
    let fixture: DerivedFixture
    let context: ObjectContext

    init() throws {
        fixture = try DerivedFixture()
        context = fixture.container.newBackgroundContext()
    }

    func ann(in context: ObjectContext) throws -> ManagedObject {
        try #require(try context.fetchFirst("Photographer", where: "id == 'ann'"))
    }

    @Test func defaultsApplyOnInsertAndWhenMadeFromARow() throws {
        let inserted = try context.insert("Photographer")
        #expect(try inserted.value(forKey: "selected") == .boolean(false))
        #expect(try ann(in: context).value(forKey: "selected") == .boolean(false))
        let photo = try #require(try context.fetchFirst("Photo", where: "id == 'a1'"))
        #expect(try photo.value(forKey: "note") == .null)
    }

    @Test func aChangeMarksTheObjectChangedButASaveWritesNothing() throws {
        let ann = try ann(in: context)
        try ann.setValue(true, forKey: "selected")
        #expect(ann.hasChanges && ann.isUpdated && context.hasChanges)
        #expect(ann.changedValues() == ["selected": .boolean(true)])
        fixture.recorder.reset()
        try context.save()
        #expect(fixture.recorder.statements.filter { $0.hasPrefix("UPDATE") || $0.hasPrefix("INSERT") }.isEmpty,
                "\(fixture.recorder.statements)")
        #expect(!ann.hasChanges && !context.hasChanges)
        #expect(try ann.value(forKey: "selected") == .boolean(true), "the value stays in memory")
        // Nothing was stored: another context reads the default, and the row's version did not move,
        // so a later change of a stored attribute saves without a conflict.
        let other = fixture.container.newBackgroundContext()
        #expect(try self.ann(in: other).value(forKey: "selected") == .boolean(false))
        try ann.setValue("Ann B.", forKey: "name")
        try context.save()
        #expect(try self.ann(in: fixture.container.newBackgroundContext()).value(forKey: "name") == .string("Ann B."))
    }

    @Test func aSaveWithStoredChangesWritesOnlyThem() throws {
        let photo = try context.insert("Photo")
        try photo.setValue("n1", forKey: "id")
        try photo.setValue("draft", forKey: "note")
        let ann = try ann(in: context)
        try ann.setValue(true, forKey: "selected")
        try ann.setValue("Ann C.", forKey: "name")
        fixture.recorder.reset()
        try context.save()
        let writes = fixture.recorder.statements.filter { $0.hasPrefix("UPDATE") || $0.hasPrefix("INSERT INTO \"Photo\"") }
        #expect(writes.count == 2, "\(writes)")
        #expect(!writes.contains { $0.contains("selected") || $0.contains("note") || $0.contains("ownerName") })
        #expect(try photo.value(forKey: "note") == .string("draft"))
    }

    @Test func rollbackRestoresTheValueOfTheLastFetchOrSave() throws {
        let ann = try ann(in: context)
        try ann.setValue(true, forKey: "selected")
        context.rollback()
        #expect(try ann.value(forKey: "selected") == .boolean(false))
        try ann.setValue(true, forKey: "selected")
        try context.save()
        try ann.setValue(false, forKey: "selected")
        context.rollback()
        #expect(try ann.value(forKey: "selected") == .boolean(true))
    }

    /// Refreshing with merging keeps transient values, as Core Data does; without, they go back to
    /// their defaults. Merges and re-fetches after other contexts' saves keep them.
    @Test func refreshesAndMergesKeepTransientValuesUnlessTheyDiscardChanges() throws {
        let ann = try ann(in: context)
        try ann.setValue(true, forKey: "selected")
        try context.save()

        let other = fixture.container.newBackgroundContext()
        try self.ann(in: other).setValue("Ann D.", forKey: "name")
        try other.save()

        _ = try context.fetch("Photographer")
        #expect(try ann.value(forKey: "name") == .string("Ann D."), "the re-fetch refreshed the object")
        #expect(try ann.value(forKey: "selected") == .boolean(true))
        #expect(!ann.hasChanges)

        try self.ann(in: other).setValue("Ann E.", forKey: "name")
        try other.save()
        try context.refreshAllObjects()
        #expect(try ann.value(forKey: "name") == .string("Ann E."))
        #expect(try ann.value(forKey: "selected") == .boolean(true))

        try ann.setValue(false, forKey: "selected")
        try context.refresh(ann, mergeChanges: true)
        #expect(try ann.value(forKey: "selected") == .boolean(false), "an unsaved change stays on top")
        #expect(ann.hasChanges)

        try context.refresh(ann, mergeChanges: false)
        #expect(try ann.value(forKey: "selected") == .boolean(false))
        #expect(!ann.hasChanges)
        try ann.setValue(true, forKey: "selected")
        try context.save()
        try context.refresh(ann, mergeChanges: false)
        #expect(try ann.value(forKey: "selected") == .boolean(false), "refreshing without merging resets it to its default")
    }

    /// A store cannot filter or sort by a transient attribute: fetches refuse it, naming it;
    /// in-memory evaluation reads the value the object holds.
    @Test func fetchesRefuseATransientAttributeAndMemoryReadsIt() throws {
        let ann = try ann(in: context)
        try ann.setValue(true, forKey: "selected")
        for attempt in [
            { _ = try context.fetch("Photographer", where: "selected == YES") },
            { _ = try context.fetch("Photographer", sortedBy: "selected") },
            { _ = try context.fetchCount("Photographer", where: "name == 'Ann' OR selected == NO") },
            { _ = try context.fetch("Photo", where: "whoTook.selected == YES") },
            { _ = try context.fetch("Photographer", where: "ANY photos.note == 'x'") },
        ] as [() throws -> Void] {
            #expect {
                try attempt()
            } throws: { error in
                guard let error = error as? ObjectPredicateError else { return false }
                return error.code == .keyPath && error.message.contains("is a transient attribute of")
                    && (error.message.contains("'selected'") || error.message.contains("'note'"))
            }
        }
        let checked = try ObjectPredicate(format: "selected == YES").checked(for: ann.entity, in: context.model)
        #expect(try checked.evaluate(with: ann))
        let bob = try #require(try context.fetchFirst("Photographer", where: "id == 'bob'"))
        #expect(try !checked.evaluate(with: bob))
    }

    /// Resolving a conflict by a merge policy keeps transient values; folding a duplicate insert
    /// into the stored object carries them and leaves derived values alone.
    @Test func mergePoliciesKeepTransientValues() throws {
        context.mergePolicy = .storeWins
        let ann = try ann(in: context)
        try ann.setValue(true, forKey: "selected")
        try context.save()
        let other = fixture.container.newBackgroundContext()
        try self.ann(in: other).setValue("Ann F.", forKey: "name")
        try other.save()
        try ann.setValue("Ann G.", forKey: "name")
        try context.save()
        #expect(try ann.value(forKey: "name") == .string("Ann F."), "the store won")
        #expect(try ann.value(forKey: "selected") == .boolean(true))

        // The stored object is held: a transient value lives in its object, and an object nobody
        // holds is made again from its row (with the default).
        let folding = fixture.container.newBackgroundContext()
        folding.mergePolicy = .objectWins
        let bob = try #require(try folding.fetchFirst("Photographer", where: "id == 'bob'"), "held")
        let duplicate = try folding.insert("Photographer")
        try duplicate.setValue("bob", forKey: "id")
        try duplicate.setValue("Robert", forKey: "name")
        try duplicate.setValue(true, forKey: "selected")
        try folding.save()
        #expect(duplicate.context == nil, "folded into the stored object")
        #expect(try bob.value(forKey: "name") == .string("Robert"))
        #expect(try bob.value(forKey: "selected") == .boolean(true))
        #expect(try bob.value(forKey: "photoCount") == .integer(0))
    }
}
