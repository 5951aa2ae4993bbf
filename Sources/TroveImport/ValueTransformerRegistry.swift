import Foundation
public import TroveModel

/// Named value transformers that an attribute's `transformer` key refers to.
///
/// A transformer rewrites a JSON value before coercion: it gets the value as found in the record
/// (`null` included) and returns the JSON that coercion then reads. The registry is a value:
/// start from ``standard``, register your own, and hand it to ``AttributeCoercer``.
///
/// ```swift
/// var transformers = ValueTransformerRegistry.standard
/// transformers.register("rgba") { value in
///     // "rgba(255, 0, 0, 1)" → [255, 0, 0, 1]
///     …
/// }
/// ```
///
/// Built in (``standard``):
/// - `secondsSince1970`, `millisecondsSince1970`: a number or numeric string of seconds
///   (milliseconds) since 1970 becomes an ISO 8601 string, so that a `date` attribute reads it
///   whatever its `dateFormat` (the DCTCoreData example's date).
/// - `trimmed`: a string without whitespace at either end (coercion keeps strings as they are).
/// - `emptyAsNull`: an empty or all-whitespace string becomes `null`, for services that send
///   `""` for "no value".
///
/// Each passes `null` through and rejects what it cannot read.
public struct ValueTransformerRegistry: Sendable {
    /// A transformer: JSON in, JSON out; a thrown error rejects the value, its description
    /// becoming the reason.
    public typealias Transform = @Sendable (JSONValue) throws -> JSONValue

    private var transforms: [String: Transform]

    /// A registry without transformers.
    public static let empty = ValueTransformerRegistry(transforms: [:])

    /// The built-in transformers: `secondsSince1970`, `millisecondsSince1970`, `trimmed`,
    /// `emptyAsNull`.
    public static let standard = ValueTransformerRegistry(transforms: [
        "secondsSince1970": { value in try epochTimestamp(value, milliseconds: false) },
        "millisecondsSince1970": { value in try epochTimestamp(value, milliseconds: true) },
        "trimmed": { value in
            guard case .string(let text) = value else { return value }
            return .string(String(Coerce.trimmed(text)))
        },
        "emptyAsNull": { value in
            guard case .string(let text) = value, Coerce.trimmed(text).isEmpty else { return value }
            return .null
        },
    ])

    private init(transforms: [String: Transform]) {
        self.transforms = transforms
    }

    /// The names of the registered transformers, sorted.
    public var names: [String] { transforms.keys.sorted() }

    /// Registers `transform` under `name`, replacing any transformer of that name.
    public mutating func register(_ name: String, _ transform: @escaping Transform) {
        transforms[name] = transform
    }

    /// The transformer registered under `name`.
    ///
    /// - Throws: ``ValueTransformerError`` naming the transformers there are.
    public func transformer(named name: String) throws(ValueTransformerError) -> Transform {
        guard let transform = transforms[name] else {
            throw ValueTransformerError(name: name, registered: names)
        }
        return transform
    }

    /// Seconds or milliseconds since 1970 as an ISO 8601 string in UTC.
    private static func epochTimestamp(_ value: JSONValue, milliseconds: Bool) throws -> JSONValue {
        let text: Substring
        switch value {
        case .null: return .null
        case .number(let literal): text = literal[...]
        case .string(let string): text = Coerce.trimmed(string)
        default: throw TransformFailure(description: "expected a number of \(milliseconds ? "milliseconds" : "seconds") since 1970, got \(value.kindName == "object" ? "an object" : value.kindName == "array" ? "an array" : "a \(value.kindName)")")
        }
        let date: Date
        do throws(CoercionFailure) {
            date = try Coerce.epochDate(text, milliseconds: milliseconds)
        } catch {
            throw TransformFailure(description: error.detail)
        }
        guard let timestamp = ISO8601Timestamp.string(from: date) else {
            throw TransformFailure(description: "too far from 1970 for a date")
        }
        return .string(timestamp)
    }
}

/// An attribute names a value transformer that is not registered.
public struct ValueTransformerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name that was asked for.
    public let name: String
    /// The names that are registered.
    public let registered: [String]

    public var description: String {
        "no value transformer named '\(name)' (registered: \(registered.joined(separator: ", "))); "
            + "register it with ValueTransformerRegistry.register(_:_:) or fix the attribute's transformer name"
    }
}

/// A built-in transformer could not read its value.
struct TransformFailure: Error, CustomStringConvertible {
    let description: String
}
