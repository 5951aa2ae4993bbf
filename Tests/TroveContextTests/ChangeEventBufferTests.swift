import Foundation
import Testing
import Trove
import TroveTesting

/// Change-event streams keep at most `ContextEvents.bufferSize` events an iterator has not
/// taken: a reader that falls behind loses the oldest, and is told how many.
@Suite struct ChangeEventBufferTests {
    @Test func aSlowIteratorKeepsTheNewestEventsAndLearnsHowManyItLost() async throws {
        let dir = try TemporaryDirectory()
        let container = try Container(model: SampleModels.photos(), url: dir.file("e.trove"))
        let context = container.newBackgroundContext()
        var events = context.objectsDidChange.makeAsyncIterator()
        let size = ContextEvents.bufferSize
        let sent = size + 44
        var ids: [ObjectID] = []
        for i in 0..<sent {
            let photo = try context.insert("Photo")
            try photo.setValue("p\(i)", forKey: "id")
            ids.append(photo.objectID)
            context.processPendingChanges()
        }
        var received: [ContextEvent] = []
        for _ in 0..<size {
            guard let event = await events.next() else { break }
            received.append(event)
        }
        #expect(received.count == size)
        #expect(received.first?.changes.inserted == [ids[sent - size]], "the oldest were dropped")
        #expect(received.last?.changes.inserted == [ids[sent - 1]])
        // Each loss is told once, on a later event; the last loss is told with the next event.
        #expect(received.map(\.missedEvents).reduce(0, +) == sent - size - 1)
        let photo = try context.insert("Photo")
        try photo.setValue("late", forKey: "id")
        context.processPendingChanges()
        let late = await events.next()
        #expect(late?.missedEvents == 1)
        #expect(late?.changes.inserted == [photo.objectID])
    }

    @Test func anIteratorThatKeepsUpLosesNothing() async throws {
        let dir = try TemporaryDirectory()
        let container = try Container(model: SampleModels.photos(), url: dir.file("e.trove"))
        let context = container.newBackgroundContext()
        var events = context.objectsDidChange.makeAsyncIterator()
        for i in 0..<(ContextEvents.bufferSize * 2) {
            try context.insert("Photo").setValue("p\(i)", forKey: "id")
            context.processPendingChanges()
            let event = await events.next()
            #expect(event?.missedEvents == 0)
        }
    }
}
