public import Foundation

/// ISO 8601 timestamps, read and written without `DateFormatter` and the same on every platform.
///
/// Writing gives UTC (`2024-01-31T09:30:00Z`) with as many fractional digits as the date needs to
/// read back unchanged. Reading takes `YYYY-MM-DD` (midnight UTC), or a date and time with
/// optional seconds, optional fraction of any length and optional zone (`Z`, `+02:00`, `+0200`,
/// `+02`; UTC when absent); `T`, `t` or a space separates date and time. Reading allocates
/// nothing for fractions of up to 15 digits, so importers may call it once per value. The
/// arithmetic is done here rather than with `Calendar`, so it is exact and the same everywhere.
public enum ISO8601Timestamp {
    /// Seconds from 1970-01-01 to 2001-01-01, `Date`'s reference date.
    private static let referenceDateOffset: Int64 = 978_307_200

    /// The date `text` names, or `nil` when it is not ISO 8601 or names no real date.
    public static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { date(fromUTF8: $0) }
    }

    /// The date `text` names, or `nil` when it is not ISO 8601 or names no real date.
    public static func date(from text: Substring) -> Date? {
        if let date = text.utf8.withContiguousStorageIfAvailable({ date(fromUTF8: $0) }) { return date }
        return date(from: String(text))
    }

    /// The date the UTF-8 bytes name; see ``date(from:)-(String)``.
    static func date(fromUTF8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var scanner = Scanner(bytes: bytes)
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
                    guard let value = scanner.fraction() else { return nil }
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
    public static func string(from date: Date) -> String? {
        var bytes: [UInt8] = []
        guard append(date, to: &bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the UTF-8 text of ``string(from:)`` to `bytes`, with at least
    /// `minimumFractionDigits` fractional digits (zeros added: `…:40.000Z` for 3); returns
    /// `false`, appending nothing, for a date that is not finite.
    ///
    /// Writers that put many dates into one buffer call this to build no `String` per date.
    @discardableResult
    public static func append(_ date: Date, minimumFractionDigits: Int = 0, to bytes: inout [UInt8]) -> Bool {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) < 1e14 else { return false }
        let whole = interval.rounded(.down)
        let seconds = Int64(whole) + referenceDateOffset
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        if year < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(abs(year), minimumWidth: 4, to: &bytes)
        func field(_ separator: Unicode.Scalar, _ value: Int64) {
            bytes.append(UInt8(ascii: separator))
            appendDigits(value, minimumWidth: 2, to: &bytes)
        }
        field("-", month)
        field("-", day)
        field("T", secondOfDay / 3_600)
        field(":", secondOfDay / 60 % 60)
        field(":", secondOfDay % 60)
        var digits = fractionDigits(interval - whole, whole: whole, interval: interval)
        if digits.count < minimumFractionDigits { digits += repeatElement(UInt8(ascii: "0"), count: minimumFractionDigits - digits.count) }
        if !digits.isEmpty {
            bytes.append(UInt8(ascii: "."))
            bytes += digits
        }
        bytes.append(UInt8(ascii: "Z"))
        return true
    }

    /// The digits after the point of a fraction of 0.25, "25" — the fewest that add back to
    /// `interval` — or none.
    private static func fractionDigits(_ fraction: Double, whole: Double, interval: Double) -> [UInt8] {
        guard fraction > 0 else { return [] }
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
        return Array(digits.utf8)
    }

    /// Appends the digits of `value` (not negative), with zeros before them up to `minimumWidth`.
    private static func appendDigits(_ value: Int64, minimumWidth: Int, to bytes: inout [UInt8]) {
        var divisor: Int64 = 1
        var width = 1
        while divisor <= value / 10 {
            divisor *= 10
            width += 1
        }
        if width < minimumWidth { bytes += repeatElement(UInt8(ascii: "0"), count: minimumWidth - width) }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
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

    /// Reads ASCII fields from the front of UTF-8 bytes.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        var isAtEnd: Bool { position == bytes.count }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
            position += 1
            return true
        }

        /// The count of digits from the current position.
        func digitCount() -> Int {
            var end = position
            while end < bytes.count, bytes[end] &- UInt8(ascii: "0") < 10 { end += 1 }
            return end - position
        }

        /// A number of `min` to `max` digits.
        mutating func digits(min: Int, max: Int) -> Int64? {
            let count = digitCount()
            guard (min...max).contains(count) else { return nil }
            var value: Int64 = 0
            for _ in 0..<count {
                value = value * 10 + Int64(bytes[position] &- UInt8(ascii: "0"))
                position += 1
            }
            return value
        }

        /// Exactly the next two bytes as digits (a zone's `0200` is hours, then minutes).
        mutating func twoDigits() -> Int64? {
            guard position + 2 <= bytes.count, bytes[position] &- UInt8(ascii: "0") < 10,
                  bytes[position + 1] &- UInt8(ascii: "0") < 10 else { return nil }
            defer { position += 2 }
            return Int64(bytes[position] &- UInt8(ascii: "0")) * 10 + Int64(bytes[position + 1] &- UInt8(ascii: "0"))
        }

        /// One or more digits after a decimal point, as the fraction they write (nearest `Double`).
        mutating func fraction() -> Double? {
            let count = digitCount()
            guard count > 0 else { return nil }
            defer { position += count }
            if count <= 15 {
                // Both operands are exact, so the one division rounds correctly, as parsing does.
                var numerator: Int64 = 0
                for offset in 0..<count { numerator = numerator * 10 + Int64(bytes[position + offset] &- UInt8(ascii: "0")) }
                return Double(numerator) / Scanner.powersOfTen[count]
            }
            return Double("0." + String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<position + count]), as: UTF8.self))
        }

        private static let powersOfTen: [Double] = (0...15).map { (0..<$0).reduce(1.0) { value, _ in value * 10 } }

        /// The zone's offset from UTC in seconds: 0 for `Z` or no zone.
        mutating func zoneOffset() -> Int64? {
            if isAtEnd || take("Z") || take("z") { return 0 }
            let sign: Int64
            if take("+") { sign = 1 } else if take("-") { sign = -1 } else { return nil }
            guard let hours = twoDigits(), hours < 24 else { return nil }
            _ = take(":")
            let minutes = isAtEnd ? 0 : twoDigits()
            guard let minutes, minutes < 60 else { return nil }
            return sign * (hours * 3_600 + minutes * 60)
        }
    }
}
