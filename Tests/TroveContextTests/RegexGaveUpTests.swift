import Foundation
import Testing
import Trove
import TroveTesting

/// `MATCHES` whose regular-expression engine gives up fails the fetch, in SQL and in memory,
/// instead of counting as "no match".
@Suite struct RegexGaveUpTests {
    static let pattern = "((a+)+c)|a*!"
    static let hostile = String(repeating: "a", count: 30) + "!"

    static func model() throws -> Model {
        try Model { Entity("Note") { Attribute("text", .string) } }
    }

    static func request(_ format: String) throws -> FetchRequest {
        FetchRequest(entityName: "Note", predicate: try ObjectPredicate(format: format, pattern))
    }

    @Test func theStoreRaisesTheTypedError() throws {
        let dir = try TemporaryDirectory()
        let context = try Container(model: Self.model(), url: dir.file("n.trove")).newBackgroundContext()
        for text in ["plain", Self.hostile] {
            try context.insert("Note").setValue(text, forKey: "text")
        }
        try context.save()
        for format in ["text MATCHES %@", "NOT (text MATCHES %@)", "text MATCHES[cd] %@ OR text == 'x'"] {
            let error = #expect(throws: ObjectPredicateError.self, "\(format)") { try context.count(for: Self.request(format)) }
            #expect(error?.code == .regexGaveUp)
            #expect(error?.message.hasPrefix("the regular expression \"((a+)+c)|a*!\" gave up after 5000000 steps") == true)
            #expect(throws: ObjectPredicateError.self) { try context.fetch(Self.request(format)) }
        }
        // The same pattern on values it decides quickly still answers.
        for note in try context.fetch(FetchRequest(entityName: "Note")) {
            if try note.value(forKey: "text") == .string(Self.hostile) { try note.setValue("aaaa!", forKey: "text") }
        }
        try context.save()
        #expect(try context.count(for: Self.request("text MATCHES %@")) == 1)
    }

    @Test func inMemoryEvaluationThrowsToo() throws {
        let dir = try TemporaryDirectory()
        let context = try Container(model: Self.model(), url: dir.file("n.trove")).newBackgroundContext()
        try context.insert("Note").setValue("plain", forKey: "text")
        try context.save()
        let unsaved = try context.insert("Note")
        try unsaved.setValue(Self.hostile, forKey: "text")
        let error = #expect(throws: ObjectPredicateError.self) { try context.fetch(Self.request("NOT (text MATCHES %@)")) }
        #expect(error?.code == .regexGaveUp)

        let checked = try ObjectPredicate(format: "text MATCHES %@", Self.pattern).checked(for: try #require(Self.model().entity(named: "Note")), in: Self.model())
        #expect(throws: ObjectPredicateError.self) { try checked.evaluate(with: unsaved) }
    }
}
