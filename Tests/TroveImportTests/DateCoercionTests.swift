import Foundation
import Testing
import TroveImport
import TroveModel

@Suite struct DateCoercionTests {
    /// 2011-07-23T22:30:40Z, as seconds since 1970.
    static let seconds: Double = 1_311_460_240

    struct Form: Sendable, CustomTestStringConvertible {
        let json: JSONValue
        let format: DateFormat?
        let offset: Double
        let kind: CoercionKind
        init(_ json: JSONValue, _ format: DateFormat?, plus offset: Double = 0, _ kind: CoercionKind) {
            self.json = json
            self.format = format
            self.offset = offset
            self.kind = kind
        }
        var testDescription: String { "\(json.serialized()) by \(format?.name ?? "default")" }
    }

    static let forms: [Form] = [
        Form("2011-07-23T22:30:40Z", nil, .stringToDate),
        Form("2011-07-23T22:30:40.123Z", nil, plus: 0.123, .stringToDate),
        Form("2011-07-23T22:30:40.5Z", .iso8601, plus: 0.5, .stringToDate),
        Form("2011-07-23T22:30:40", nil, .stringToDate),
        Form("2011-07-24T00:30:40+02:00", nil, .stringToDate),
        Form("2011-07-23T18:30:40.250-04:00", .iso8601, plus: 0.25, .stringToDate),
        Form("2011-07-24T00:30:40+0200", nil, .stringToDate),
        Form("2011-07-23 22:30:40z", nil, .stringToDate),
        Form("2011-07-23T22:30Z", nil, plus: -40, .stringToDate),
        Form("2011-07-23", nil, plus: -81_040, .stringToDate),
        Form(" 2011-07-23T22:30:40Z ", nil, .stringToDate),
        Form(number("1311460240"), nil, .epochSecondsToDate),
        Form(number("1311460240.5"), nil, plus: 0.5, .epochSecondsToDate),
        Form("1311460240", nil, .epochSecondsToDate),
        Form(number("1311460240"), .epochSeconds, .epochSecondsToDate),
        Form(" 1311460240.123 ", .epochSeconds, plus: 0.123, .epochSecondsToDate),
        Form(number("1.31146024e9"), .epochSeconds, .epochSecondsToDate),
        Form(number("1311460240123"), .epochMilliseconds, plus: 0.123, .epochMillisecondsToDate),
        Form("1311460240000", .epochMilliseconds, .epochMillisecondsToDate),
        Form("2011-07-23 22:30:40", .pattern("yyyy-MM-dd HH:mm:ss"), .stringToDate),
        Form("23/07/2011 22:30", .pattern("dd/MM/yyyy HH:mm"), plus: -40, .stringToDate),
        Form("24/07/2011 00:30:40 +02:00", .pattern("dd/MM/yyyy HH:mm:ss xxx"), .stringToDate),
        Form("Sat, 23 Jul 2011 22:30:40 GMT", .pattern("EEE, dd MMM yyyy HH:mm:ss zzz"), .stringToDate),
        Form(number("20110723"), .pattern("yyyyMMdd"), plus: -81_040, .numberToDate),
    ]

    @Test(arguments: forms)
    func readsDatesInEveryForm(_ form: Form) throws {
        let coerced = try coerce(form.json, to: .date, dateFormat: form.format).get()
        guard case .date(let date) = coerced.value else {
            Issue.record("not a date: \(coerced.value)")
            return
        }
        #expect(abs(date.timeIntervalSince1970 - (Self.seconds + form.offset)) < 1e-6)
        #expect(coerced.kind == form.kind)
    }

    /// The same instant written as ISO 8601 with a fraction, epoch seconds and epoch
    /// milliseconds is the very same `Date`, so re-imports compare equal.
    @Test func anInstantIsTheSameDateInEveryForm() throws {
        let iso = try coerce("2011-07-23T22:30:40.123Z", to: .date).get().value
        let milliseconds = try coerce(number("1311460240123"), to: .date, dateFormat: .epochMilliseconds).get().value
        let seconds = try coerce(number("1311460240.123"), to: .date).get().value
        #expect(iso == milliseconds)
        #expect(iso == seconds)
    }

    static let rejected: [(JSONValue, DateFormat?, CoercionRejection.Reason)] = [
        ("yesterday", nil, .notADate),
        ("2011-13-01", nil, .notADate),
        ("2011-02-29", nil, .notADate),
        ("2011-07-23T25:00:00Z", nil, .notADate),
        ("2011-07-23T22:30:40+25:00", nil, .notADate),
        ("23/07/2011", nil, .notADate),
        ("", nil, .notADate),
        ("1311460240", .iso8601, .notADate),
        (number("1311460240"), .iso8601, .notADate),
        ("2011-07-23T22:30:40Z", .epochSeconds, .notADate),
        ("soon", .epochMilliseconds, .notADate),
        (number("1e300"), nil, .outOfRange),
        (number("100000000000000000"), .epochSeconds, .outOfRange),
        ("2011-07-23", .pattern("yyyy-MM-dd HH:mm:ss"), .notADate),
        ("2011-07-23 22:30:40 trailing", .pattern("yyyy-MM-dd HH:mm:ss"), .notADate),
        (number("2011.5"), .pattern("yyyy"), .notADate),
        (true, nil, .wrongKind),
        ([1], .epochSeconds, .wrongKind),
    ]

    @Test(arguments: rejected)
    func rejectsWhatIsNoDate(_ json: JSONValue, _ format: DateFormat?, _ reason: CoercionRejection.Reason) throws {
        guard case .failure(let rejection) = try coerce(json, to: .date, dateFormat: format) else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.reason == reason)
    }

    /// Pattern parsing is safe from many threads at once (formatters are pooled, never shared).
    @Test func patternsParseConcurrently() async throws {
        let coercer = try AttributeCoercer(Attribute("at", .date, dateFormat: .pattern("yyyy-MM-dd HH:mm:ss")))
        let expected = Date(timeIntervalSince1970: Self.seconds)
        let allMatch = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<200).allSatisfy { _ in
                        (try? coercer.coerce("2011-07-23 22:30:40").get().value) == .date(expected)
                    }
                }
            }
            return await group.allSatisfy { $0 }
        }
        #expect(allMatch)
    }
}
