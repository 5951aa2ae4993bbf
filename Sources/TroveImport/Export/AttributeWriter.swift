import Foundation
import TroveModel

/// Turns an attribute's values into the JSON that its ``AttributeCoercer`` reads back as the
/// same value: the import's coercion table run backwards, for the exporter.
///
/// - `date`: in the attribute's ``DateFormat`` — a pattern through its formatter, epoch
///   seconds or milliseconds as numbers — and otherwise ISO 8601 in UTC with milliseconds
///   (more fractional digits when the date needs them to read back unchanged).
/// - `decimal` and integers: JSON numbers with every digit; `double` the shortest text that
///   reads back as the same `Double`, `float` as the `Float` it holds.
/// - `binary`: base64; `uuid`, `uri`, `character`: strings; `json`: the JSON itself.
///
/// Infinite doubles and NaN decimals have no JSON number: they are written `null`.
struct AttributeWriter {
    let type: AttributeType
    private let dates: DateReading
    /// Whether dates are written in ISO 8601 (the case ``write(_:to:)`` writes without a `JSONValue`).
    private let writesISO8601: Bool

    init(_ attribute: Attribute) {
        type = attribute.type
        dates = DateReading(attribute.dateFormat)
        writesISO8601 = switch dates {
        case .automatic, .iso8601: true
        default: false
        }
    }

    /// Appends the JSON text of `value` — the text of ``json(_:)``'s value — to `out`; the
    /// common types are written without making a `JSONValue`.
    func write(_ value: AttributeValue, to out: inout JSONBytes) {
        switch value {
        case .null: out.append(raw: "null".utf8)
        case .string(let s): out.append(string: s)
        case .integer(let i): out.append(integer: i)
        case .boolean(let b): out.append(raw: (b ? "true" : "false").utf8)
        case .double(let d) where d.isFinite && type != .float: out.append(raw: JSONValue.numberText(d).utf8)
        case .date(let d) where writesISO8601:
            out.append(ascii: "\"")
            guard ISO8601Timestamp.append(d, minimumFractionDigits: 3, to: &out.bytes) else {
                out.bytes.removeLast()
                out.append(raw: "null".utf8)
                return
            }
            out.append(ascii: "\"")
        default: out.append(json(value))
        }
    }

    /// The JSON for `value`, a value of this attribute.
    func json(_ value: AttributeValue) -> JSONValue {
        switch value {
        case .null: .null
        case .string(let s): .string(s)
        case .integer(let i): .number(String(i))
        case .double(let d) where !d.isFinite: .null
        // A float attribute holds a Float: its shortest text reads back as that Float.
        case .double(let d) where type == .float: .number(Float(d).description)
        case .double(let d): .number(JSONValue.numberText(d))
        case .decimal(let d): d.isNaN ? .null : .number(d.description)
        case .boolean(let b): .bool(b)
        case .date(let d): dates.json(d)
        case .binary(let data): .string(data.base64EncodedString())
        case .uuid(let u): .string(u.uuidString)
        case .uri(let u): .string(u.absoluteString)
        case .character(let c): .string(String(c))
        case .json(let j): j
        }
    }
}

/// Writing dates: each way of reading them, run backwards.
extension DateReading {
    /// `date` as this reading reads it back (ISO 8601 when reading is automatic).
    func json(_ date: Date) -> JSONValue {
        switch self {
        case .automatic, .iso8601:
            var text: [UInt8] = []
            guard ISO8601Timestamp.append(date, minimumFractionDigits: 3, to: &text) else { return .null }
            return .string(String(decoding: text, as: UTF8.self))
        case .epochSeconds:
            return .number(Self.epochSeconds(date))
        case .epochMilliseconds:
            let milliseconds = (date.timeIntervalSince1970 * 1_000).rounded()
            guard abs(milliseconds) < 9e15 else { return .null }
            return .number(String(Int64(milliseconds)))
        case .pattern(let parser):
            return .string(parser.string(from: date))
        }
    }

    /// Seconds since 1970 as the epoch reader adds them back: whole seconds, then the fraction
    /// digits ISO 8601 writing finds exact (the nearest number for dates before 1970).
    private static func epochSeconds(_ date: Date) -> String {
        let interval = date.timeIntervalSinceReferenceDate
        guard abs(interval) < 1e14 else { return JSONValue.numberText(date.timeIntervalSince1970) }
        let whole = interval.rounded(.down)
        let seconds = Int64(whole) + Int64(Date.timeIntervalBetween1970AndReferenceDate)
        guard interval != whole else { return String(seconds) }
        guard seconds >= 0, let timestamp = ISO8601Timestamp.string(from: date), let dot = timestamp.lastIndex(of: ".") else {
            return JSONValue.numberText(date.timeIntervalSince1970)
        }
        return "\(seconds).\(timestamp[timestamp.index(after: dot)...].dropLast())"
    }
}
