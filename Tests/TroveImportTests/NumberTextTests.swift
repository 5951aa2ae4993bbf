import Foundation
import Testing
import Trove
import TroveTesting

/// A number sent for a string attribute is stored as its JSON text, exactly as sent: never read
/// through a `Double` (which rounded `3.14159265358979323846264338327950288` to 16 digits, `1e-400`
/// to `"0"` and `100000000000000000000.5` to `"1e+20"`).
@Suite struct NumberTextTests {
    static let literals = ["3.14159265358979323846264338327950288", "1e-400", "100000000000000000000.5", "2.50", "-0", "1E+2", "12345678901234567890123"]

    @Test(arguments: [false, true])
    func numbersIntoStringsKeepTheirTextOnEveryPath(asObjects: Bool) throws {
        let dir = try TemporaryDirectory()
        let model = try Model {
            Entity("Reading", uniqueBy: [["id"]]) {
                Attribute("id", .integer64, optional: false)
                Attribute("text", .string)
            }
        }
        let container = try Container(store: SQLiteStore(url: dir.file("numbers.trove"), model: model))
        var options = ImportOptions(batchSize: 3)
        if asObjects { options.hooks.afterRecord(of: "Reading") { _, _ in } }
        let records = Self.literals.enumerated().map { #"{"id": \#($0), "text": \#($1)}"# }
        let json = "[" + records.joined(separator: ",") + "]"
        let importer = Importer(context: container.newBackgroundContext(), options: options)
        let report = try importer.importJSON(Data(json.utf8), into: "Reading")
        #expect(report.entities["Reading"]?.inserted == Self.literals.count && report.coercions[.numberToString] == Self.literals.count)
        let file = dir.file("numbers.ndjson")
        try Data(records.joined(separator: "\n").utf8).write(to: file)
        let again = try importer.importStream(.file(file), into: "Reading", format: .ndjson)
        #expect(again.entities["Reading"]?.unchanged == Self.literals.count, "streamed again, the same text changes nothing")
        let context = container.newBackgroundContext()
        for (id, literal) in Self.literals.enumerated() {
            #expect(try context.fetchFirst("Reading", whereKey: "id", equals: id)?.value(forKey: "text") == .string(literal))
        }
    }
}
