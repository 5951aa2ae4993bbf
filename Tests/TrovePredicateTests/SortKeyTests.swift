import Foundation
import Testing
import TrovePredicate

/// Sort descriptors: the CLI syntax, checking, and the in-memory order.
struct SortDescriptorTests {
    @Test func parsesTheCommandLineSyntax() throws {
        let descriptors = try SortKey.parse("name, -views ,title:ci,whoTook.name:localized,+score")
        #expect(descriptors == [
            SortKey("name"),
            SortKey("views", ascending: false),
            SortKey("title", comparison: .caseInsensitive),
            SortKey("whoTook.name", comparison: .localizedStandard),
            SortKey("score"),
        ])
        #expect(descriptors.map(\.description) == ["name", "-views", "title:ci", "whoTook.name:localized", "score"])
    }

    @Test(arguments: [
        ("", 1, "expected a key to sort by"),
        ("name,,views", 6, "expected a key to sort by"),
        ("name,-", 6, "expected a key to sort by"),
        ("name,title:xx", 11, "unknown sort option ':xx' (use :ci or :localized)"),
        ("name, -title:up", 13, "unknown sort option ':up' (use :ci or :localized)"),
        ("whoTook..name", 1, "'whoTook..name' is not a key path"),
    ])
    func parseErrors(text: String, column: Int, message: String) {
        let error = #expect(throws: ObjectPredicateError.self) { try SortKey.parse(text) }
        #expect(error?.code == .syntax)
        #expect(error?.column == column)
        #expect(error?.message == message)
        #expect(error?.source == text)
    }

    @Test(arguments: [
        ("titel", ObjectPredicateError.Code.unknownKey, "Photo has no key 'titel'; did you mean 'title'?"),
        ("whoTook.nam", .unknownKey, "Photographer has no key 'nam' (in 'whoTook.nam'); did you mean 'name'?"),
        ("whoTook", .keyPath, "cannot sort by relationship 'whoTook': sort by one of its keys, such as whoTook.id"),
        ("whoTook.photos.views", .keyPath, "cannot sort by 'whoTook.photos.views': it goes through a to-many relationship"),
        ("views:ci", .typeMismatch, "'views:ci' compares strings, but 'views' is an integer64 attribute"),
    ])
    func checkErrors(text: String, code: ObjectPredicateError.Code, message: String) throws {
        let descriptor = try #require(try SortKey.parse(text).first)
        let error = #expect(throws: ObjectPredicateError.self) {
            try descriptor.checked(for: try PhotoModel.entity("Photo"), in: try PhotoModel.model())
        }
        #expect(error?.code == code)
        #expect(error?.message == message)
    }

    private func sortedIDs(_ text: String) throws -> [String] {
        let library = try PhotoLibrary()
        let photo = try PhotoModel.entity("Photo"), model = try PhotoModel.model()
        let checked = try SortKey.parse(text).map { try $0.checked(for: photo, in: model) }
        return library.photos.sorted { checked.compare($0, $1) == .orderedAscending }.map(\.id)
    }

    @Test(arguments: [
        // views: p1 10, p2 50, p3 5, p4 100, p5 nil, p6 1 — nil first ascending, last descending.
        ("views", ["p5", "p6", "p3", "p1", "p2", "p4"]),
        ("-views", ["p4", "p2", "p1", "p3", "p6", "p5"]),
        ("title", ["p5", "p2", "p3", "p1", "p6", "p4"]),
        ("title:ci", ["p5", "p2", "p4", "p3", "p6", "p1"]),
        ("title:localized", ["p5", "p2", "p4", "p3", "p6", "p1"]),
        ("whoTook.name,-views", ["p6", "p5", "p2", "p1", "p3", "p4"]),
        ("-whoTook.name,uniqueId", ["p4", "p1", "p2", "p3", "p5", "p6"]),
        ("viewed,uniqueId", ["p3", "p5", "p6", "p1", "p2", "p4"]),
        ("price,score,uniqueId", ["p3", "p5", "p6", "p4", "p1", "p2"]),
    ])
    func inMemoryOrder(text: String, expected: [String]) throws {
        #expect(try sortedIDs(text) == expected)
    }
}
