import Foundation
import TroveModel

/// How one attribute reads dates: its ``DateFormat`` with the formatter for a pattern resolved.
enum DateReading: Sendable {
    /// No format given: ISO 8601 strings, then numbers and numeric strings as epoch seconds.
    case automatic
    case iso8601
    case epochSeconds
    case epochMilliseconds
    case pattern(PatternDateParser)

    init(_ format: DateFormat?) {
        switch format {
        case nil: self = .automatic
        case .iso8601: self = .iso8601
        case .epochSeconds: self = .epochSeconds
        case .epochMilliseconds: self = .epochMilliseconds
        case .pattern(let pattern): self = .pattern(PatternDateParser.shared(for: pattern))
        }
    }
}

extension Coerce {
    /// The farthest from 1970 an epoch value may be, in seconds (about 300,000 years).
    static let epochLimit: Int64 = 10_000_000_000_000

    /// A date from a string or number, as `reading` says.
    static func date(_ json: JSONValue, reading: DateReading) throws(CoercionFailure) -> (Date, CoercionKind) {
        switch (reading, json) {
        case (.automatic, .string(let text)):
            let trimmed = trimmed(text)
            if let date = ISO8601Timestamp.date(from: trimmed) { return (date, .stringToDate) }
            do throws(CoercionFailure) {
                return (try epochDate(trimmed, milliseconds: false), .epochSecondsToDate)
            } catch where error.reason == .notADate {
                throw CoercionFailure(.notADate, "neither ISO 8601 (such as 2011-07-23T22:30:40Z) nor a number of seconds since 1970")
            }
        case (.iso8601, .string(let text)):
            guard let date = ISO8601Timestamp.date(from: trimmed(text)) else {
                throw CoercionFailure(.notADate, "not an ISO 8601 date such as 2011-07-23T22:30:40Z or 2011-07-23")
            }
            return (date, .stringToDate)
        case (.automatic, .number(let literal)), (.epochSeconds, .number(let literal)):
            return (try epochDate(literal[...], milliseconds: false), .epochSecondsToDate)
        case (.epochSeconds, .string(let text)):
            return (try epochDate(trimmed(text), milliseconds: false), .epochSecondsToDate)
        case (.epochMilliseconds, .number(let literal)):
            return (try epochDate(literal[...], milliseconds: true), .epochMillisecondsToDate)
        case (.epochMilliseconds, .string(let text)):
            return (try epochDate(trimmed(text), milliseconds: true), .epochMillisecondsToDate)
        case (.pattern(let parser), .string(let text)):
            guard let date = parser.date(from: String(trimmed(text))) else {
                throw CoercionFailure(.notADate, "does not match the date pattern '\(parser.pattern)'")
            }
            return (date, .stringToDate)
        case (.pattern(let parser), .number(let literal)):
            guard literal.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }), let date = parser.date(from: literal) else {
                throw CoercionFailure(.notADate, "does not match the date pattern '\(parser.pattern)'")
            }
            return (date, .numberToDate)
        case (.iso8601, .number):
            throw CoercionFailure(.notADate, "the date format is iso8601, which takes strings such as 2011-07-23T22:30:40Z")
        default:
            throw CoercionFailure(.wrongKind)
        }
    }

    /// The date `text` names as seconds (or milliseconds) since 1970.
    ///
    /// Whole seconds and the fraction are added as ISO 8601 reading adds them, so
    /// `1311460240.5`, `1311460240500` ms and `2011-07-23T22:30:40.5Z` are the same `Date`.
    static func epochDate(_ text: Substring, milliseconds: Bool) throws(CoercionFailure) -> Date {
        let unit = milliseconds ? "milliseconds" : "seconds"
        let parts: EpochParts = withBytes(text) { bytes in
            guard let number = DecimalText(bytes) else { return .notANumber }
            if milliseconds {
                guard case .value(let count, _) = number.integer(as: Int64.self) else { return .approximate }
                return .exact(count / 1_000, Double(count % 1_000) / 1_000)
            }
            guard let (whole, fraction) = number.wholeAndFraction() else { return .approximate }
            return .exact(whole, fraction)
        }
        let whole: Int64
        let fraction: Double
        switch parts {
        case .exact(let w, let f):
            (whole, fraction) = (w, f)
        case .approximate:
            return try epochDate(approximately: text, milliseconds: milliseconds)
        case .notANumber:
            throw CoercionFailure(.notADate, "not a number of \(unit) since 1970")
        }
        guard abs(whole) <= epochLimit else {
            throw CoercionFailure(.outOfRange, "too far from 1970 for a date (more than 10^13 seconds)")
        }
        return Date(timeIntervalSinceReferenceDate: Double(whole - Int64(Date.timeIntervalBetween1970AndReferenceDate)) + fraction)
    }

    /// The date for epoch text that has no exact reading (an exponent, many digits): the
    /// nearest `Double`.
    private static func epochDate(approximately text: Substring, milliseconds: Bool) throws(CoercionFailure) -> Date {
        guard let value = Double(text) else { throw CoercionFailure(.notADate, "not a number") }
        let seconds = milliseconds ? value / 1_000 : value
        guard seconds.isFinite, abs(seconds) <= Double(epochLimit) else {
            throw CoercionFailure(.outOfRange, "too far from 1970 for a date (more than 10^13 seconds)")
        }
        return Date(timeIntervalSince1970: seconds)
    }
}

/// Epoch text read in place: exact whole units and fraction, or only approximately, or not at all.
private enum EpochParts {
    case exact(Int64, Double)
    case approximate
    case notANumber
}

extension DecimalText {
    /// The value as whole units and a fraction of one (both with the value's sign), when it is
    /// written without an exponent and both parts are exact; `nil` otherwise.
    func wholeAndFraction() -> (whole: Int64, fraction: Double)? {
        guard !hasExponent, integerDigitCount <= 18, fractionDigitCount <= 15 else { return nil }
        var whole: Int64 = 0
        for index in 0..<integerDigitCount { whole = whole * 10 + Int64(digit(index)) }
        var numerator: Int64 = 0
        var denominator: Double = 1
        for index in integerDigitCount..<integerDigitCount + fractionDigitCount {
            numerator = numerator * 10 + Int64(digit(index))
            denominator *= 10
        }
        let fraction = Double(numerator) / denominator
        return isNegative ? (-whole, -fraction) : (whole, fraction)
    }
}

/// Reads dates by one `DateFormatter` pattern, in `en_US_POSIX`, UTC unless the pattern has a zone.
///
/// Formatters are costly to make and not thread-safe, so each parser keeps a pool: a caller
/// takes one out under a lock, parses without the lock, and puts it back. Parsers are shared
/// per pattern for the life of the process.
final class PatternDateParser: Sendable {
    /// The `DateFormatter` pattern, such as `yyyy-MM-dd HH:mm:ss`.
    let pattern: String
    private let idle = Locked<[Formatter]>([])

    private static let parsers = Locked<[String: PatternDateParser]>([:])

    /// The parser for `pattern`, made on first use.
    static func shared(for pattern: String) -> PatternDateParser {
        parsers.withLock { parsers in
            if let parser = parsers[pattern] { return parser }
            let parser = PatternDateParser(pattern: pattern)
            parsers[pattern] = parser
            return parser
        }
    }

    private init(pattern: String) {
        self.pattern = pattern
    }

    /// The date `text` names in the pattern, all of it; `nil` when it does not match.
    func date(from text: String) -> Date? {
        let formatter = idle.withLock { $0.popLast() } ?? Formatter(pattern: pattern)
        defer { idle.withLock { $0.append(formatter) } }
        return formatter.formatter.date(from: text)
    }

    /// `date` written in the pattern (for the exporter: what ``date(from:)`` reads back).
    func string(from date: Date) -> String {
        let formatter = idle.withLock { $0.popLast() } ?? Formatter(pattern: pattern)
        defer { idle.withLock { $0.append(formatter) } }
        return formatter.formatter.string(from: date)
    }

    /// One formatter, used by one thread at a time.
    private final class Formatter: @unchecked Sendable {
        // @unchecked: a formatter is only used between taking it out of `idle` and putting it back.
        let formatter: DateFormatter

        init(pattern: String) {
            formatter = DateFormatter()
            formatter.calendar = Calendar(identifier: .gregorian)
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(secondsFromGMT: 0)
            formatter.isLenient = false
            formatter.dateFormat = pattern
        }
    }
}
