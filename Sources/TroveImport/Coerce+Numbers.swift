import Foundation
import TroveModel

// MARK: - Numbers

extension Coerce {
    /// An integer of type `T` from a number or numeric string whose value is whole and fits.
    ///
    /// The text is read exactly (never through `Double`): `3.0` and `3e0` are 3, `3.7` is
    /// rejected, `12345678901234567890` fits a `UInt64` but not an `Int64`.
    static func integer<T: FixedWidthInteger>(_ json: JSONValue, as type: T.Type) throws(CoercionFailure) -> (T, CoercionKind) {
        switch json {
        case .number(let literal):
            let (value, plain) = try integer(text: literal[...], as: T.self)
            return (value, plain ? .none : .numberToInteger)
        case .string(let text):
            return (try integer(text: try numericText(text), as: T.self).value, .stringToInteger)
        default:
            throw CoercionFailure(.wrongKind)
        }
    }

    /// A `Double` from a number or numeric string; infinity, NaN and underflow are rejected.
    static func double(_ json: JSONValue) throws(CoercionFailure) -> (Double, CoercionKind) {
        switch json {
        case .number(let literal):
            return (try floatingPoint(literal[...], Double.init), .none)
        case .string(let text):
            return (try floatingPoint(try numericText(text), Double.init), .stringToDouble)
        default:
            throw CoercionFailure(.wrongKind)
        }
    }

    /// A `Float` from a number or numeric string (rounded once, from the text); a value beyond
    /// `Float`'s range, or one that underflows to zero, is rejected.
    static func float(_ json: JSONValue) throws(CoercionFailure) -> (Float, CoercionKind) {
        switch json {
        case .number(let literal):
            return (try floatingPoint(literal[...], Float.init), .none)
        case .string(let text):
            return (try floatingPoint(try numericText(text), Float.init), .stringToFloat)
        default:
            throw CoercionFailure(.wrongKind)
        }
    }

    /// A `Decimal` read exactly from a number or numeric string.
    static func decimal(_ json: JSONValue) throws(CoercionFailure) -> (Decimal, CoercionKind) {
        switch json {
        case .number(let literal):
            return (try decimal(text: literal[...]), .none)
        case .string(let text):
            return (try decimal(text: try numericText(text)), .stringToDecimal)
        default:
            throw CoercionFailure(.wrongKind)
        }
    }

    // MARK: From text

    /// `text` trimmed, or a rejection when nothing is left.
    static func numericText(_ text: String) throws(CoercionFailure) -> Substring {
        let trimmed = trimmed(text)
        guard !trimmed.isEmpty else { throw CoercionFailure(.notANumber, "an empty string is not a number") }
        return trimmed
    }

    /// The integer `text` writes and whether it was written as a plain integer (no point, no
    /// exponent).
    static func integer<T: FixedWidthInteger>(text: Substring, as type: T.Type) throws(CoercionFailure) -> (value: T, plain: Bool) {
        let outcome: IntegerOutcome<T> = withBytes(text) { bytes in
            guard let number = DecimalText(bytes) else { return .notANumber }
            return number.integer(as: T.self)
        }
        switch outcome {
        case .value(let value, let plain):
            return (value, plain)
        case .notANumber:
            throw CoercionFailure(.notANumber, "not a number")
        case .fractional:
            throw CoercionFailure(.notAnInteger, "has a fractional part, and integers are never rounded")
        case .outOfRange:
            throw CoercionFailure(.outOfRange, "out of range (\(T.min)...\(T.max))")
        }
    }

    /// A binary floating-point value parsed once from `text` by `parse`, after checking its grammar.
    static func floatingPoint<F: BinaryFloatingPoint>(_ text: Substring, _ parse: (Substring) -> F?) throws(CoercionFailure) -> F {
        let isZero: Bool? = withBytes(text) { DecimalText($0)?.isZero }
        guard let isZero, let value = parse(text) else {
            throw CoercionFailure(.notANumber, "not a number (NaN and Infinity are not taken)")
        }
        guard value.isFinite else {
            throw CoercionFailure(.outOfRange, "beyond the range of \(F.self == Float.self ? "float" : "double")")
        }
        guard value != 0 || isZero else {
            throw CoercionFailure(.outOfRange, "too small for \(F.self == Float.self ? "float" : "double"): it would become 0")
        }
        return value
    }

    /// The `Decimal` `text` writes, exactly: at most 38 significant digits, scale -128...127.
    static func decimal(text: Substring) throws(CoercionFailure) -> Decimal {
        let outcome: DecimalOutcome = withBytes(text) { bytes in
            guard let number = DecimalText(bytes) else { return .notANumber }
            return number.decimal()
        }
        switch outcome {
        case .value(let value):
            return value
        case .notANumber:
            throw CoercionFailure(.notANumber, "not a number")
        case .tooPrecise(let digits):
            throw CoercionFailure(.tooPrecise, "\(digits) significant digits, and a decimal holds at most 38")
        case .outOfRange:
            throw CoercionFailure(.outOfRange, "beyond the range of decimal (exponent -128...127)")
        }
    }
}

enum IntegerOutcome<T> {
    case value(T, plain: Bool)
    case notANumber
    case fractional
    case outOfRange
}

enum DecimalOutcome {
    case value(Decimal)
    case notANumber
    case tooPrecise(Int)
    case outOfRange
}

// MARK: - Reading decimal text

/// A number written in decimal — `[+-]digits[.digits][(e|E)[+-]digits]`, at least one digit
/// before or after the point — read in place from UTF-8 bytes.
///
/// Its value is `significand × 10^scale`, where the significand is the digits from the first
/// to the last nonzero one; nothing is converted until asked for, and nothing is rounded.
struct DecimalText {
    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var isNegative = false
    private(set) var hasPoint = false
    private(set) var hasExponent = false
    private var integerDigits = 0..<0
    private var fractionDigits = 0..<0
    /// Positions in the digit sequence (integer digits then fraction digits) of the first and
    /// last nonzero digit; `nil` for zero.
    private var significant: ClosedRange<Int>?
    /// The power of ten of the last significant digit.
    private(set) var scale = 0

    /// Exponents beyond this are clamped: they are out of every range all the same.
    private static let exponentLimit = 1_000_000

    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        var position = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") {
            isNegative = bytes[position] == UInt8(ascii: "-")
            position += 1
        }
        integerDigits = DecimalText.digits(in: bytes, from: position)
        position = integerDigits.upperBound
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            hasPoint = true
            fractionDigits = DecimalText.digits(in: bytes, from: position + 1)
            position = fractionDigits.upperBound
        }
        guard integerDigits.count + fractionDigits.count > 0 else { return nil }
        var exponent = 0
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            hasExponent = true
            position += 1
            var negativeExponent = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") {
                negativeExponent = bytes[position] == UInt8(ascii: "-")
                position += 1
            }
            let exponentDigits = DecimalText.digits(in: bytes, from: position)
            guard !exponentDigits.isEmpty else { return nil }
            for index in exponentDigits {
                exponent = min(exponent * 10 + Int(bytes[index] &- UInt8(ascii: "0")), DecimalText.exponentLimit)
            }
            if negativeExponent { exponent = -exponent }
            position = exponentDigits.upperBound
        }
        guard position == bytes.count else { return nil }
        let count = integerDigits.count + fractionDigits.count
        var first = 0
        while first < count, digit(first) == 0 { first += 1 }
        guard first < count else { return }
        var last = count - 1
        while digit(last) == 0 { last -= 1 }
        significant = first...last
        scale = exponent - fractionDigits.count + (count - 1 - last)
    }

    /// Whether the value is zero (`0`, `-0.0`, `0e99`).
    var isZero: Bool { significant == nil }

    /// The count of digits before the point.
    var integerDigitCount: Int { integerDigits.count }

    /// The count of digits after the point.
    var fractionDigitCount: Int { fractionDigits.count }

    /// The count of digits from the first to the last nonzero one.
    var significantDigitCount: Int { significant?.count ?? 0 }

    /// The value as an integer of type `T`, when it is whole and fits.
    func integer<T: FixedWidthInteger>(as type: T.Type) -> IntegerOutcome<T> {
        let plain = !hasPoint && !hasExponent
        guard let significant else { return .value(0, plain: plain) }
        guard scale >= 0 else { return .fractional }
        guard significant.count + scale <= 20 else { return .outOfRange }
        var magnitude: UInt64 = 0
        for index in significant {
            let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(digit(index)))
            guard !overflow, !carry else { return .outOfRange }
            magnitude = sum
        }
        for _ in 0..<scale {
            let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            guard !overflow else { return .outOfRange }
            magnitude = times10
        }
        if isNegative {
            guard T.isSigned, magnitude <= UInt64(T.max) + 1 else { return .outOfRange }
            // `0 - magnitude` in the wider type keeps T.min representable.
            guard let value = T(exactly: -Int64(bitPattern: magnitude &- 1) - 1) else { return .outOfRange }
            return .value(value, plain: plain)
        }
        guard let value = T(exactly: magnitude) else { return .outOfRange }
        return .value(value, plain: plain)
    }

    /// The value as an exact `Decimal`.
    func decimal() -> DecimalOutcome {
        guard let significant else { return .value(Decimal(0)) }
        guard significant.count <= 38 else { return .tooPrecise(significant.count) }
        guard (-128...127).contains(scale) else { return .outOfRange }
        // Up to 19 digits in each half, each exact in a UInt64 and in a Decimal.
        let split = max(significant.lowerBound, significant.upperBound - 18)
        var high: UInt64 = 0
        for index in significant.lowerBound..<split { high = high * 10 + UInt64(digit(index)) }
        var low: UInt64 = 0
        for index in split...significant.upperBound { low = low * 10 + UInt64(digit(index)) }
        var significand = Decimal(low)
        if high > 0 {
            significand += Decimal(high) * Decimal(sign: .plus, exponent: significant.upperBound - split + 1, significand: 1)
        }
        return .value(Decimal(sign: isNegative ? .minus : .plus, exponent: scale, significand: significand))
    }

    /// The digit at `index` of the digit sequence (integer digits, then fraction digits).
    @inline(__always)
    func digit(_ index: Int) -> UInt8 {
        let position = index < integerDigits.count
            ? integerDigits.lowerBound + index
            : fractionDigits.lowerBound + index - integerDigits.count
        return bytes[position] &- UInt8(ascii: "0")
    }

    /// The run of ASCII digits starting at `start`.
    private static func digits(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Range<Int> {
        var end = start
        while end < bytes.count, bytes[end] &- UInt8(ascii: "0") < 10 { end += 1 }
        return start..<end
    }
}
