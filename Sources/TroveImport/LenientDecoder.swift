public import Foundation
public import TroveModel

/// Decodes plain `Decodable` Swift types from untrusted JSON by Trove's coercion table.
///
/// Where `JSONDecoder` fails on `"42"` for an `Int`, this reads it as ``AttributeCoercer``
/// would read it into an `integer64` attribute, and reports that it did. The same rules apply
/// to `String`, every fixed-width integer, `Double`, `Float`, `Decimal`, `Bool`, `Date` (by
/// ``dateFormat``), `Data` (base64), `UUID` and `URL`, at any depth, in arrays, optionals and
/// dictionaries. (`Character` is not `Decodable`; decode a `String`.)
///
/// A value that cannot be coerced is never turned into `nil`: it throws, for an optional
/// property too. Only an absent key or `null` gives `nil`.
///
/// ```swift
/// let decoded = try LenientDecoder().decode(Photo.self, from: data)
/// decoded.value            // the Photo
/// decoded.report.counts    // [.stringToInteger: 1, …]
/// ```
///
/// It decodes straight from a ``JSONValue``; give it one you already parsed to skip parsing.
public struct LenientDecoder: Sendable {
    /// How strings and numbers become `Date`s; `nil` (the default) takes ISO 8601, then
    /// seconds since 1970.
    public var dateFormat: DateFormat?

    /// A decoder reading dates by `dateFormat`.
    public init(dateFormat: DateFormat? = nil) {
        self.dateFormat = dateFormat
    }

    /// Decodes a `T` from JSON text, with the report of what was coerced.
    ///
    /// - Throws: ``LenientDecodingError`` for text that is not JSON and for the first value that
    ///   cannot be coerced (with its coding path).
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(LenientDecodingError) -> LenientDecoded<T> {
        try decode(type, from: try parse(data))
    }

    /// Decodes a `T` from a parsed JSON value, with the report of what was coerced.
    ///
    /// - Throws: ``LenientDecodingError`` for the first value that cannot be coerced.
    public func decode<T: Decodable>(_ type: T.Type, from json: JSONValue) throws(LenientDecodingError) -> LenientDecoded<T> {
        let state = DecodingState(dates: DateReading(dateFormat))
        do throws(DecodingRejection) {
            let value = try state.decodeRoot(type, from: json)
            return LenientDecoded(value: value, report: LenientDecodingReport(coercions: state.coercions, rejections: []))
        } catch {
            throw LenientDecodingError(rejection: error, report: LenientDecodingReport(coercions: state.coercions, rejections: [error]))
        }
    }

    /// Decodes each record of a payload on its own: the records that decode are returned, the
    /// others are reported, as an import does.
    ///
    /// A top-level array is a list of records, a single object is one record. Rejections and
    /// coercions carry the record's index; a rejected record's coercions are not reported.
    /// - Throws: ``LenientDecodingError`` when `data` is not JSON or is neither an array nor an
    ///   object.
    public func decodeRecords<T: Decodable>(_ type: T.Type, from data: Data) throws(LenientDecodingError) -> LenientDecodedRecords<T> {
        try decodeRecords(type, from: try parse(data))
    }

    /// Decodes each record of a parsed payload on its own; see ``decodeRecords(_:from:)-(_,Data)``.
    public func decodeRecords<T: Decodable>(_ type: T.Type, from json: JSONValue) throws(LenientDecodingError) -> LenientDecodedRecords<T> {
        let records: [JSONValue]
        switch json {
        case .array(let elements): records = elements
        case .object: records = [json]
        default:
            let rejection = DecodingRejection(
                path: [], expected: "an array of records or one record", value: json,
                failure: CoercionFailure(.wrongKind))
            throw LenientDecodingError(rejection: rejection, report: LenientDecodingReport(coercions: [], rejections: [rejection]))
        }
        let state = DecodingState(dates: DateReading(dateFormat))
        var values: [T] = []
        values.reserveCapacity(records.count)
        var rejections: [DecodingRejection] = []
        for (index, record) in records.enumerated() {
            state.recordIndex = index
            let coercionsBefore = state.coercions.count
            do throws(DecodingRejection) {
                values.append(try state.decodeRoot(type, from: record))
            } catch {
                state.coercions.removeSubrange(coercionsBefore...)
                rejections.append(error)
            }
        }
        return LenientDecodedRecords(values: values, report: LenientDecodingReport(coercions: state.coercions, rejections: rejections))
    }

    private func parse(_ data: Data) throws(LenientDecodingError) -> JSONValue {
        do {
            return try JSONValue(parsing: data)
        } catch {
            var rejection = DecodingRejection(path: [], expected: "JSON", value: .null, failure: CoercionFailure(.invalidJSON, error.description))
            rejection.got = "text"
            rejection.excerpt = ""
            throw LenientDecodingError(rejection: rejection, report: LenientDecodingReport(coercions: [], rejections: [rejection]))
        }
    }
}

/// A decoded value and the report of how its JSON was coerced.
public struct LenientDecoded<Value> {
    /// The value.
    public var value: Value
    /// What was coerced (and no rejections: a rejection throws).
    public var report: LenientDecodingReport
}

extension LenientDecoded: Sendable where Value: Sendable {}

/// The records of a payload that decoded, and the report of the whole payload.
public struct LenientDecodedRecords<Value> {
    /// The records that decoded, in input order.
    public var values: [Value]
    /// Coercions of the records that decoded, and the rejected records.
    public var report: LenientDecodingReport
}

extension LenientDecodedRecords: Sendable where Value: Sendable {}

/// What the lenient decoder coerced and rejected.
public struct LenientDecodingReport: Sendable, Hashable, Codable {
    /// Each coercion other than ``CoercionKind/none``, in decoding order.
    public var coercions: [PerformedCoercion]
    /// Each rejected value (at most one per record).
    public var rejections: [DecodingRejection]

    /// How many coercions of each kind were done.
    public var counts: [CoercionKind: Int] {
        coercions.reduce(into: [:]) { counts, coercion in counts[coercion.kind, default: 0] += 1 }
    }
}

/// One coercion the lenient decoder did, and where.
public struct PerformedCoercion: Sendable, Hashable, Codable {
    /// The index of the record in a payload decoded by records; `nil` otherwise.
    public var recordIndex: Int?
    /// The coding path, as `owner.tags[2]`.
    public var path: String
    /// The conversion done.
    public var kind: CoercionKind

    /// A coercion of `kind` at `path`, in record `recordIndex` if decoding by records.
    public init(recordIndex: Int? = nil, path: String, kind: CoercionKind) {
        self.recordIndex = recordIndex
        self.path = path
        self.kind = kind
    }
}

/// A value the lenient decoder could not read: where, what it was, what was expected and why.
public struct DecodingRejection: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The index of the record in a payload decoded by records; `nil` otherwise.
    public var recordIndex: Int?
    /// The coding path, as `owner.tags[2]`; empty for the top level.
    public var path: String
    /// The Swift type expected (`Int16`, `Date`), or the JSON shape ("an object", "an array").
    public var expected: String
    /// The JSON kind received ("string", "number", "boolean", "object", "array", "null"), or
    /// "absent" for a missing key.
    public var got: String
    /// The value as JSON text, cut to at most 80 characters.
    public var excerpt: String
    /// What was wrong, to match on.
    public var reason: CoercionRejection.Reason
    /// What was wrong, in words.
    public var detail: String

    init(path: [any CodingKey], expected: String, value: JSONValue?, failure: CoercionFailure) {
        self.path = DecodingRejection.pathText(path)
        self.expected = expected
        self.got = value?.kindName ?? "absent"
        self.excerpt = value.map(Coerce.excerpt(of:)) ?? ""
        self.reason = failure.reason
        self.detail = failure.detail
    }

    /// "record 3, at owner.id: expected Int64, got the string "abc": not a number".
    public var description: String {
        var place: [String] = []
        if let recordIndex { place.append("record \(recordIndex)") }
        if !path.isEmpty { place.append("at \(path)") }
        let message = Coerce.message(expected: expected, got: got, excerpt: excerpt, detail: detail)
        return place.isEmpty ? message : place.joined(separator: ", ") + ": " + message
    }

    /// `owner.tags[2]` for the keys `owner`, `tags` and the index 2.
    static func pathText(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }
}

/// The lenient decoder met a value it could not read.
public struct LenientDecodingError: Error, Sendable, CustomStringConvertible {
    /// The value that was rejected, with its path.
    public var rejection: DecodingRejection
    /// What had been coerced until then, and the rejection.
    public var report: LenientDecodingReport

    public var description: String {
        "cannot decode: \(rejection); fix the value in the input or make the Swift type accept it"
    }
}
