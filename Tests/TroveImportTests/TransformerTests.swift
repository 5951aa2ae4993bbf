import Foundation
import Testing
import TroveImport
import TroveModel

@Suite struct TransformerTests {
    /// DCTCoreData's group: a seconds-since-1970 date through the `secondsSince1970` transformer.
    @Test(arguments: [number("1311460240"), "1311460240"])
    func secondsSince1970IntoADateAttribute(_ json: JSONValue) throws {
        let coerced = try coerce(json, to: .date, dateFormat: .iso8601, transformer: "secondsSince1970").get()
        #expect(coerced.value == .date(Date(timeIntervalSince1970: 1_311_460_240)))
        #expect(coerced.kind == .stringToDate)
    }

    @Test func millisecondsSince1970KeepTheFraction() throws {
        let coerced = try coerce(number("1311460240123"), to: .date, transformer: "millisecondsSince1970").get()
        #expect(coerced.value == .date(try isoDate("2011-07-23T22:30:40.123Z")))
    }

    @Test func builtInsPassNullAndTrimAndBlank() throws {
        #expect(try coerce(nil, to: .date, transformer: "secondsSince1970").get().value == .null)
        #expect(try coerce("  hi  ", to: .string, transformer: "trimmed").get().value == "hi")
        #expect(try coerce(" ", to: .integer64, transformer: "emptyAsNull").get().value == .null)
        #expect(try coerce("4", to: .integer64, transformer: "emptyAsNull").get().value == 4)
    }

    @Test func aBuiltInRejectsWhatItCannotRead() throws {
        guard case .failure(let rejection) = try coerce("soon", to: .date, transformer: "secondsSince1970") else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.reason == .transformerFailed)
        #expect(rejection.detail == "transformer 'secondsSince1970' failed: not a number of seconds since 1970")
    }

    /// A user transformer: "rgba(255, 0, 0, 0.5)" → a JSON array, stored in a json attribute.
    @Test func userTransformersAreUsedByName() throws {
        var transformers = ValueTransformerRegistry.standard
        transformers.register("rgba") { value in
            guard case .string(let text) = value, text.hasPrefix("rgba("), text.hasSuffix(")") else {
                throw RGBAError(text: value.serialized())
            }
            let parts = text.dropFirst(5).dropLast().split(separator: ",")
            return .array(parts.map { .number($0.trimmingCharacters(in: .whitespaces)) })
        }
        let color = try coerce("rgba(255, 0, 0, 0.5)", to: .json, transformer: "rgba", transformers: transformers).get()
        #expect(color.value == .json([255, 0, 0, number("0.5")]))
        guard case .failure(let rejection) = try coerce("red", to: .json, transformer: "rgba", transformers: transformers) else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.reason == .transformerFailed)
        #expect(rejection.detail.contains("not rgba(…): \"red\""))
    }

    @Test func anUnknownTransformerIsAnErrorNamingTheKnownOnes() {
        #expect(throws: ValueTransformerError.self) {
            try AttributeCoercer(Attribute("color", .json, transformer: "rgba"))
        }
        do {
            _ = try AttributeCoercer(Attribute("color", .json, transformer: "rgba"))
        } catch {
            #expect(error.name == "rgba")
            #expect(error.description.hasPrefix(
                "no value transformer named 'rgba' (registered: emptyAsNull, millisecondsSince1970, secondsSince1970, trimmed)"))
        }
    }

    struct RGBAError: Error, CustomStringConvertible {
        let text: String
        var description: String { "not rgba(…): \(text)" }
    }
}
