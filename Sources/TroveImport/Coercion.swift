import Foundation
public import TroveModel

/// Turns JSON values into the values of one attribute, by Trove's coercion table.
///
/// Make one per attribute and keep it: it resolves the attribute's transformer and date format
/// once, so ``coerce(_:)`` does no lookups. Coercion is pure and locale-independent: the same
/// JSON gives the same value on every machine.
///
/// ```swift
/// let coercer = try AttributeCoercer(Attribute("size", .string))
/// try coercer.coerce(8).get()        // .string("8"), kind .numberToString
/// try coercer.coerce("30-32").get()  // .string("30-32"), kind .none
/// ```
///
/// The table, in short (every other pairing is rejected with ``CoercionRejection``):
/// - `null` gives ``AttributeValue/null`` for every type; whether nil is allowed is the caller's
///   business.
/// - `string` ← string; number (integers as written, every digit; others in shortest round-trip
///   form, without `.0`). Booleans are rejected: no spelling of them is more right than another.
/// - `integer16/32/64` ← numbers and numeric strings whose value is a whole number that fits
///   (`3.0`, `3e0`, `" +3 "`); never rounded.
/// - `double`, `float`, `decimal` ← numbers and numeric strings; `NaN`, `Infinity`, overflow,
///   and nonzero values that underflow to zero are rejected; decimals are exact (up to 38
///   significant digits), never read through `Double`.
/// - `boolean` ← `true`/`false`, the numbers 0 and 1, the strings `true`/`false`/`yes`/`no`/`1`/`0`
///   in any letter case.
/// - `date` ← by the attribute's ``DateFormat``; without one an ISO 8601 string, else a number
///   or numeric string of seconds since 1970.
/// - `uuid` ← a hyphenated UUID string; `uri` ← an absolute URL string; `binary` ← base64.
/// - `character` ← the first character (grapheme cluster) of a nonempty string.
/// - `json` ← anything.
///
/// Strings read as numbers, booleans, dates, UUIDs, URLs or base64 are first trimmed of
/// whitespace at both ends; strings into `string` and `character` are taken as they are.
public struct AttributeCoercer: Sendable {
    /// The attribute whose values this makes.
    public let attribute: Attribute
    private let transform: ValueTransformerRegistry.Transform?
    private let dates: DateReading

    /// Prepares coercion into `attribute`, resolving its transformer in `transformers`.
    ///
    /// - Throws: ``ValueTransformerError`` when the attribute names a transformer that
    ///   `transformers` does not have.
    public init(_ attribute: Attribute, transformers: ValueTransformerRegistry = .standard) throws(ValueTransformerError) {
        self.attribute = attribute
        self.transform = try attribute.transformer.map { name throws(ValueTransformerError) in
            try transformers.transformer(named: name)
        }
        self.dates = DateReading(attribute.dateFormat)
    }

    /// The value `json` gives this attribute and which coercion made it, or why it cannot.
    ///
    /// The attribute's transformer, if any, runs first (on `null` too); an error it throws
    /// becomes a rejection with reason ``CoercionRejection/Reason/transformerFailed``.
    public func coerce(_ json: JSONValue) -> Result<CoercedValue, CoercionRejection> {
        var input = json
        if let transform {
            do {
                input = try transform(json)
            } catch {
                return .failure(CoercionRejection(
                    expected: attribute.type, value: json,
                    failure: CoercionFailure(.transformerFailed, "transformer '\(attribute.transformer ?? "")' failed: \(error)")))
            }
        }
        do throws(CoercionFailure) {
            return .success(try Coerce.value(input, to: attribute.type, dates: dates))
        } catch {
            return .failure(CoercionRejection(expected: attribute.type, value: input, failure: error))
        }
    }
}

/// A value coerced for an attribute, and how it was coerced.
public struct CoercedValue: Sendable, Hashable {
    /// The value for the attribute.
    public var value: AttributeValue
    /// The conversion that made it; ``CoercionKind/none`` when the JSON was taken as it was.
    public var kind: CoercionKind

    /// A coerced value.
    public init(_ value: AttributeValue, kind: CoercionKind) {
        self.value = value
        self.kind = kind
    }
}

/// Which conversion turned a JSON value into an attribute's value, for the import report.
///
/// ``none`` means the JSON value was taken as it was: a string into `string`, an integer
/// literal into an integer type, any number into `double`, `float` or `decimal`, a boolean into
/// `boolean`, a one-character string into `character`, anything into `json`, and `null`.
/// Everything else names the conversion, even the usual ones (an ISO 8601 string into a date is
/// ``stringToDate``), so a report shows exactly how the input was read.
public enum CoercionKind: String, Sendable, Hashable, Codable, CaseIterable, CodingKeyRepresentable {
    case none
    /// A number into a string, as its JSON text exactly as sent: `8` → `"8"`, `2.50` → `"2.50"`.
    case numberToString
    /// A number written with a fraction or exponent whose value is whole: `3.0`, `3e0` → 3.
    case numberToInteger
    /// A numeric string into an integer: `"42"`, `" -7 "`, `"3.0"`.
    case stringToInteger
    /// A numeric string into a `double`.
    case stringToDouble
    /// A numeric string into a `float`.
    case stringToFloat
    /// A numeric string into a `decimal`, exactly.
    case stringToDecimal
    /// `"true"`, `"no"`, `"1"`… into a boolean.
    case stringToBoolean
    /// The number 0 or 1 into a boolean.
    case numberToBoolean
    /// An ISO 8601 string, or a string in the attribute's date pattern, into a date.
    case stringToDate
    /// A number read as text by the attribute's date pattern (`20110723` with `yyyyMMdd`).
    case numberToDate
    /// A number or numeric string of seconds since 1970 into a date.
    case epochSecondsToDate
    /// A number or numeric string of milliseconds since 1970 into a date.
    case epochMillisecondsToDate
    /// A string into a UUID.
    case stringToUUID
    /// A string into a URL.
    case stringToURL
    /// A base64 string into binary data.
    case base64ToBinary
    /// The first character of a longer string into a character (the rest is dropped).
    case stringToCharacter
}

/// Why a JSON value could not be coerced into an attribute's type.
///
/// Carries the expected type, the JSON kind received, a short excerpt of the value, a reason
/// code to match on and a sentence for people. The record index and JSON path are the caller's
/// to add.
public struct CoercionRejection: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The attribute type the value was to become.
    public var expected: AttributeType
    /// The JSON kind received: "string", "number", "boolean", "object", "array" or "null".
    public var got: String
    /// The value as JSON text, cut to at most 80 characters.
    public var excerpt: String
    /// What was wrong, to match on.
    public var reason: Reason
    /// What was wrong, in words (without the expected type, which ``description`` adds).
    public var detail: String

    init(expected: AttributeType, value: JSONValue, failure: CoercionFailure) {
        self.expected = expected
        self.got = value.kindName
        self.excerpt = Coerce.excerpt(of: value)
        self.reason = failure.reason
        self.detail = failure.detail
    }

    /// "expected integer16, got the number 70000: out of range for integer16 (-32768...32767)".
    public var description: String {
        Coerce.message(expected: expected.rawValue, got: got, excerpt: excerpt, detail: detail)
    }

    /// A reason a value was rejected; new reasons may be added.
    public struct Reason: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The JSON kind cannot become the type at all (an object into an integer).
        public static let wrongKind = Reason("wrongKind")
        /// A string that is not a number where a number was needed.
        public static let notANumber = Reason("notANumber")
        /// A number with a fractional part where an integer was needed (`3.7`).
        public static let notAnInteger = Reason("notAnInteger")
        /// A number outside what the type holds (`70000` into integer16, `1e39` into float).
        public static let outOfRange = Reason("outOfRange")
        /// A number with more significant digits than a decimal holds.
        public static let tooPrecise = Reason("tooPrecise")
        /// A string or number that is not one of the boolean spellings.
        public static let notABoolean = Reason("notABoolean")
        /// A value that is not a date in the expected form.
        public static let notADate = Reason("notADate")
        /// A string that is not a UUID.
        public static let notAUUID = Reason("notAUUID")
        /// A string that is not an absolute URL.
        public static let notAURL = Reason("notAURL")
        /// A string that is not base64.
        public static let notBase64 = Reason("notBase64")
        /// An empty string where a character was needed.
        public static let emptyString = Reason("emptyString")
        /// The attribute's value transformer threw.
        public static let transformerFailed = Reason("transformerFailed")
        /// Decoding: `null` where a non-optional value was needed.
        public static let missingValue = Reason("missingValue")
        /// Decoding: a key that a non-optional property needs is absent.
        public static let missingKey = Reason("missingKey")
        /// Decoding: the type's own `init(from:)` threw.
        public static let invalidValue = Reason("invalidValue")
        /// Decoding: the input is not JSON.
        public static let invalidJSON = Reason("invalidJSON")
    }
}

/// A rejection before the expected type is known: reason and detail.
struct CoercionFailure: Error {
    var reason: CoercionRejection.Reason
    var detail: String

    init(_ reason: CoercionRejection.Reason, _ detail: String = "") {
        self.reason = reason
        self.detail = detail
    }
}
