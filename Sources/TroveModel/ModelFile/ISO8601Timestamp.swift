import Foundation

/// Dates in model files: ISO 8601 text that reads back as exactly the same `Date`.
///
/// Writing gives UTC (`2024-01-31T09:30:00Z`) with as many fractional digits as the date needs to
/// read back unchanged. Reading takes `YYYY-MM-DD`, or a date and time with optional seconds,
/// optional fraction of any length and optional zone (`Z`, `+02:00`, `+0200`; UTC when absent).
/// The arithmetic is done here rather than with `Calendar`, so it is exact and the same everywhere.
enum ISO8601Timestamp {
    /// Seconds from 1970-01-01 to 2001-01-01, `Date`'s reference date.
    private static let referenceDateOffset: Int64 = 978_307_200

    /// The date `text` names, or `nil` when it is not ISO 8601 or names no real date.
    static func date(from text: String) -> Date? {
        var scanner = Scanner(text)
        let negativeYear = scanner.take("-")
        guard let yearDigits = scanner.digits(min: 4, max: 6), scanner.take("-"),
              let month = scanner.digits(min: 2, max: 2), scanner.take("-"),
              let day = scanner.digits(min: 2, max: 2) else { return nil }
        let year = negativeYear ? -yearDigits : yearDigits
        guard (1...12).contains(month), (1...daysInMonth(month, year: year)).contains(day) else { return nil }
        var seconds = daysFromCivil(year: year, month: month, day: day) * 86_400
        var fraction = 0.0
        if !scanner.isAtEnd {
            guard scanner.take("T") || scanner.take("t") || scanner.take(" "),
                  let hour = scanner.digits(min: 2, max: 2), scanner.take(":"),
                  let minute = scanner.digits(min: 2, max: 2), hour < 24, minute < 60 else { return nil }
            var second: Int64 = 0
            if scanner.take(":") {
                guard let s = scanner.digits(min: 2, max: 2), s < 60 else { return nil }
                second = s
                if scanner.take(".") {
                    guard let digits = scanner.digitText(), let value = Double("0." + digits) else { return nil }
                    fraction = value
                }
            }
            seconds += hour * 3_600 + minute * 60 + second
            guard let offset = scanner.zoneOffset(), scanner.isAtEnd else { return nil }
            seconds -= offset
        }
        return Date(timeIntervalSinceReferenceDate: Double(seconds - referenceDateOffset) + fraction)
    }

    /// `date` in UTC with the fractional digits it needs, or `nil` for a date that is not finite.
    static func string(from date: Date) -> String? {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) < 1e14 else { return nil }
        let whole = interval.rounded(.down)
        let seconds = Int64(whole) + referenceDateOffset
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let yearText = (year < 0 ? "-" : "") + pad(abs(year), 4)
        var text = "\(yearText)-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3_600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        text += fractionText(interval - whole, whole: whole, interval: interval)
        return text + "Z"
    }

    /// ".25" for a fraction of 0.25 — the fewest digits that add back to `interval` — or "".
    private static func fractionText(_ fraction: Double, whole: Double, interval: Double) -> String {
        guard fraction > 0 else { return "" }
        var scale: Double = 1
        var digits = ""
        for count in 1...17 {
            scale *= 10
            let scaled = (fraction * scale).rounded()
            guard scaled < scale else { continue }
            digits = pad(Int64(scaled), count)
            if let value = Double("0." + digits), whole + value == interval { break }
        }
        while digits.hasSuffix("0") { digits.removeLast() }
        return digits.isEmpty ? "" : "." + digits
    }

    // MARK: Calendar arithmetic (proleptic Gregorian, after Howard Hinnant's algorithms)

    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysInMonth(_ month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : (a - b + 1) / b
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// Reads ASCII fields from the front of a string.
    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ text: String) { bytes = Array(text.utf8) }

        var isAtEnd: Bool { position == bytes.count }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
            position += 1
            return true
        }

        /// One or more digits, as text.
        mutating func digitText() -> String? {
            let start = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
        }

        /// A number of `min` to `max` digits.
        mutating func digits(min: Int, max: Int) -> Int64? {
            let start = position
            guard let text = digitText(), (min...max).contains(text.count) else {
                position = start
                return nil
            }
            return Int64(text)
        }

        /// The zone's offset from UTC in seconds: 0 for `Z` or no zone.
        mutating func zoneOffset() -> Int64? {
            if isAtEnd || take("Z") || take("z") { return 0 }
            let sign: Int64
            if take("+") { sign = 1 } else if take("-") { sign = -1 } else { return nil }
            guard let hours = digits(min: 2, max: 2), hours < 24 else { return nil }
            _ = take(":")
            let minutes = isAtEnd ? 0 : digits(min: 2, max: 2)
            guard let minutes, minutes < 60 else { return nil }
            return sign * (hours * 3_600 + minutes * 60)
        }
    }
}
