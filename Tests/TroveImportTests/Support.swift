import Foundation
import Testing
import TroveImport
import TroveModel

/// The result of coercing `json` into an attribute of `type`.
func coerce(
    _ json: JSONValue, to type: AttributeType, dateFormat: DateFormat? = nil, transformer: String? = nil,
    transformers: ValueTransformerRegistry = .standard
) throws -> Result<CoercedValue, CoercionRejection> {
    let attribute = Attribute("value", type, dateFormat: dateFormat, transformer: transformer)
    return try AttributeCoercer(attribute, transformers: transformers).coerce(json)
}

/// One accepted cell of the coercion table.
struct Accepted: Sendable, CustomTestStringConvertible {
    let json: JSONValue
    let type: AttributeType
    let value: AttributeValue
    let kind: CoercionKind

    init(_ json: JSONValue, _ type: AttributeType, _ value: AttributeValue, _ kind: CoercionKind) {
        self.json = json
        self.type = type
        self.value = value
        self.kind = kind
    }

    var testDescription: String { "\(json.serialized()) → \(type.rawValue)" }
}

/// One rejected cell of the coercion table.
struct Rejected: Sendable, CustomTestStringConvertible {
    let json: JSONValue
    let type: AttributeType
    let reason: CoercionRejection.Reason

    init(_ json: JSONValue, _ type: AttributeType, _ reason: CoercionRejection.Reason) {
        self.json = json
        self.type = type
        self.reason = reason
    }

    var testDescription: String { "\(json.serialized()) ↛ \(type.rawValue)" }
}

/// A JSON number written as `literal`.
func number(_ literal: String) -> JSONValue { .number(literal) }

/// The date `text` names in ISO 8601, for expectations.
func isoDate(_ text: String) throws -> Date {
    try #require(ISO8601Timestamp.date(from: text))
}

/// The URL `text` names (a placeholder when it names none, which fails the expectation).
func url(_ text: String) -> URL {
    URL(string: text) ?? URL(fileURLWithPath: "/not-a-url")
}
