import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct StalenessTests {
    @Test func rowsReadAheadAreReadAgainWhenStale() throws {
        let dir = try TemporaryDirectory()
        let container = try Container(model: SampleModels.photos(), url: dir.file("s.trove"))
        let setup = container.newBackgroundContext()
        let ann = try setup.insert("Photographer")
        try ann.setValue("ann", forKey: "id")
        let photo = try setup.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try photo.setValue("old", forKey: "title")
        try photo.setRelatedObject(ann, forKey: "whoTook")
        try setup.save()

        for (round, interval) in [nil, Duration.seconds(60), Duration.seconds(3600)].enumerated() {
            let clock = ManualClock()
            let context = container.newBackgroundContext()
            context.stalenessInterval = interval
            context.clock = clock.timeSource
            let owner = try #require(try context.fetchFirst("Photographer"))
            let ids = try owner.objectIDs(forRelationshipNamed: "photos")   // the photo's row waits in the cache
            let before = try #require(try container.newBackgroundContext().object(with: ids[0]).value(forKey: "title", as: String.self))
            let other = container.newBackgroundContext()
            try other.object(with: ids[0]).setValue("changed \(round)", forKey: "title")
            try other.save()
            clock.advance(by: .seconds(61))  // older than 60 s, younger than an hour
            let seen = try context.object(with: ids[0]).value(forKey: "title", as: String.self)
            let stale = interval.map { $0 < .seconds(61) } ?? false
            #expect(seen == (stale ? "changed \(round)" : before), "round \(round)")
        }
    }
}

@Suite struct AnotherProcessTests {
    @Test func aWriteByAnotherProcessIsDetectedAndRefreshed() throws {
        let dir = try TemporaryDirectory()
        let url = dir.file("shared.trove")
        let model = try SampleModels.photos()
        try model.fileData().write(to: dir.file("model.json"))
        let context = try Container(model: model, url: url).newBackgroundContext()
        let photo = try context.insert("Photo")
        try photo.setValue("p1", forKey: "id")
        try photo.setValue(1, forKey: "views")
        try context.save()
        #expect(try !context.refreshIfStoreChanged(), "the first look only takes note")
        try photo.setValue(2, forKey: "views")
        try context.save()
        #expect(try !context.refreshIfStoreChanged(), "the context's own save does not count")

        // Another process: the trove CLI importing into the same file.
        try Data(#"[{"id": "p1", "views": 40}]"#.utf8).write(to: dir.file("update.json"))
        let result = try CLIRunner.run(["import", url.path, dir.file("update.json").path, "--entity", "Photo", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try photo.value(forKey: "views") == 2, "nothing changes until the context looks")
        #expect(try context.refreshIfStoreChanged())
        #expect(try photo.value(forKey: "views") == 40)
        #expect(try !context.refreshIfStoreChanged())
    }
}

@Suite struct ManualClockTests {
    @Test func aSleeperWakesWhenTheClockIsAdvancedToItsDeadline() async throws {
        let clock = ManualClock()
        let deadline = clock.now.advanced(by: .seconds(10))
        let sleeper = Task { try await clock.sleep(until: deadline) }
        clock.advance(by: .seconds(9))
        #expect(clock.now.offset == .seconds(9))
        clock.advance(by: .seconds(1))
        try await sleeper.value  // returns only once advanced to the deadline (else the test hangs)
        #expect(clock.now.offset == .seconds(10))
    }
}
