import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct ValidationTests {
    static func model() throws -> Model {
        try Model {
            Entity("Account", uniqueBy: [["handle"]]) {
                Attribute("handle", .string, optional: false, min: 3, max: 12, regex: "[a-z][a-z0-9_]*")
                Attribute("age", .integer16, min: 13, max: 130)
                Attribute("balance", .decimal, min: .decimal(0))
                Attribute("joined", .date, max: .date(Date(timeIntervalSince1970: 4_102_444_800)))
                Attribute("avatar", .binary, max: 4)
            }
        }
    }

    @Test func everyFaultIsListedAndNothingIsWritten() throws {
        let dir = try TemporaryDirectory()
        let container = try Container(model: Self.model(), url: dir.file("v.trove"))
        let context = container.newBackgroundContext()
        let good = try context.insert("Account")
        try good.setValue("good_one", forKey: "handle")
        try context.save()

        try good.setValue(140, forKey: "age")
        let missing = try context.insert("Account")
        let bad = try context.insert("Account")
        try bad.setValue("X!", forKey: "handle")
        try bad.setValue(Decimal(string: "-0.01")!, forKey: "balance")
        try bad.setValue(Date(timeIntervalSince1970: 5_000_000_000), forKey: "joined")
        try bad.setValue(Data([1, 2, 3, 4, 5]), forKey: "avatar")

        let error = try #require(throws: ValidationError.self) { try context.save() }
        let found = Set(error.failures.map { "\($0.objectID.entityName).\($0.key ?? "-").\($0.rule.rawValue)" })
        #expect(found == ["Account.handle.required", "Account.handle.minimum", "Account.handle.regex",
                          "Account.balance.minimum", "Account.joined.maximum", "Account.avatar.maximum", "Account.age.maximum"])
        #expect(error.failures.contains { $0.objectID == missing.objectID && $0.rule == .required })
        #expect(error.failures.contains { $0.objectID == good.objectID && $0.message == "140 is above the maximum 130" })
        #expect(error.description.contains("nothing was saved"))

        // The store is as it was, and the context still has every change.
        let fresh = container.newBackgroundContext()
        let stored = try fresh.fetch(FetchRequest(entityName: "Account"))
        #expect(stored.count == 1)
        #expect(try stored[0].value(forKey: "age") == .null)
        #expect(context.insertedObjects == [missing, bad] && context.updatedObjects == [good])

        // Fixing the faults lets the same context save.
        try context.delete(missing)
        try bad.setValue("bad_fixed", forKey: "handle")
        for key in ["balance", "joined", "avatar"] { try bad.setValue(nil, forKey: key) }
        try good.setValue(40, forKey: "age")
        try context.save()
        #expect(try fresh.fetch(FetchRequest(entityName: "Account")).count == 2)
    }

    @Test func aFailingStoreWriteLeavesStoreAndContextAsTheyWere() throws {
        let dir = try TemporaryDirectory()
        let container = try Container(model: Self.model(), url: dir.file("v.trove"))
        let context = container.newBackgroundContext()
        let first = try context.insert("Account")
        try first.setValue("taken", forKey: "handle")
        try context.save()

        let other = container.newBackgroundContext()
        let fresh = try other.insert("Account")
        try fresh.setValue("fresh", forKey: "handle")
        let clash = try other.insert("Account")
        try clash.setValue("taken", forKey: "handle")
        let error = try #require(throws: StoreError.self) { try other.save() }
        #expect(error.code == .constraintViolation)
        #expect(try container.store.count(of: "Account") == 1)
        #expect(fresh.objectID.isTemporary && fresh.isInserted && other.insertedObjects.count == 2)
        try clash.setValue("other", forKey: "handle")
        try other.save()
        #expect(try container.store.count(of: "Account") == 3)
    }

    @Test func aStaleUpdateIsAConflict() throws {
        let dir = try TemporaryDirectory()
        let container = try Container(model: Self.model(), url: dir.file("v.trove"))
        let a = container.newBackgroundContext()
        let account = try a.insert("Account")
        try account.setValue("shared", forKey: "handle")
        try a.save()
        let b = container.newBackgroundContext()
        let copy = try b.object(with: account.objectID)
        try copy.setValue(30, forKey: "age")
        try b.save()
        try account.setValue(31, forKey: "age")
        let error = try #require(throws: ConflictError.self) { try a.save() }
        #expect(error.conflicts.map(\.objectID) == [account.objectID])
        #expect(account.isUpdated, "the context keeps its change")
    }

    /// The pattern must match the whole value: ICU's `$` also matches before a final newline,
    /// so an anchoring with `^…$` let `"abc\n"` pass `[a-z]+`.
    @Test func aRegexRuleMatchesTheWholeValueEvenBeforeAFinalNewline() throws {
        let dir = try TemporaryDirectory()
        let context = try Container(model: Self.model(), url: dir.file("v.trove")).newBackgroundContext()
        let account = try context.insert("Account")
        try account.setValue("abc\n", forKey: "handle")
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(error.failures.map(\.rule) == [.regex])
        #expect(error.failures.first?.message.hasSuffix(" does not match the pattern [a-z][a-z0-9_]*") == true)
        try account.setValue("abc", forKey: "handle")
        try context.save()
    }

    /// A value the pattern's engine gives up on is refused with the reason, not let through.
    @Test func aRegexRuleTheEngineGivesUpOnFailsTheSave() throws {
        let model = try Model {
            Entity("Note") { Attribute("text", .string, regex: "((a+)+c)|a*!") }
        }
        let dir = try TemporaryDirectory()
        let context = try Container(model: model, url: dir.file("n.trove")).newBackgroundContext()
        let note = try context.insert("Note")
        try note.setValue(String(repeating: "a", count: 30) + "!", forKey: "text")
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(error.failures.map(\.rule) == [.regex])
        #expect(error.failures.first?.message.contains("cannot be checked: the regular expression \"((a+)+c)|a*!\" gave up") == true)
        var stored = FetchRequest(entityName: "Note")
        stored.includesPendingChanges = false
        #expect(try context.count(for: stored) == 0)
    }
}
