import Foundation
import TroveModel

/// What one decoding call shares between its decoders and containers: the date reading and
/// the coercions done so far. Lives for one call on one thread.
final class DecodingState {
    let dates: DateReading
    var recordIndex: Int?
    var coercions: [PerformedCoercion] = []

    init(dates: DateReading) {
        self.dates = dates
    }

    /// Decodes the top-level value, turning any error into a rejection.
    func decodeRoot<T: Decodable>(_ type: T.Type, from json: JSONValue) throws(DecodingRejection) -> T {
        do {
            return try decode(type, from: json, path: [])
        } catch var rejection as DecodingRejection {
            rejection.recordIndex = recordIndex
            throw rejection
        } catch let error as DecodingError {
            var rejection = DecodingRejection(error, type: T.self)
            rejection.recordIndex = recordIndex
            throw rejection
        } catch {
            var rejection = DecodingRejection(
                path: [], expected: String(describing: T.self), value: json,
                failure: CoercionFailure(.invalidValue, "\(error)"))
            rejection.recordIndex = recordIndex
            throw rejection
        }
    }

    /// A `T` from `json`: scalars by the coercion table, anything else by its `init(from:)`.
    func decode<T: Decodable>(_ type: T.Type, from json: JSONValue, path: [any CodingKey]) throws -> T {
        if let value = try scalar(type, from: json, path: path) { return value }
        return try T(from: ValueDecoder(value: json, codingPath: path, state: self))
    }

    /// A `T` from `json` when `T` is a type the coercion table knows; `nil` for other types.
    private func scalar<T>(_ type: T.Type, from json: JSONValue, path: [any CodingKey]) throws(DecodingRejection) -> T? {
        // Metatype identity is a pointer comparison; `is` would be a dynamic cast per case.
        if type == String.self { return try coerce(json, path, T.self, Coerce.string) as? T }
        if type == Int.self { return try integer(json, path, Int.self) as? T }
        if type == Int64.self { return try integer(json, path, Int64.self) as? T }
        if type == Int32.self { return try integer(json, path, Int32.self) as? T }
        if type == Int16.self { return try integer(json, path, Int16.self) as? T }
        if type == Int8.self { return try integer(json, path, Int8.self) as? T }
        if type == UInt.self { return try integer(json, path, UInt.self) as? T }
        if type == UInt64.self { return try integer(json, path, UInt64.self) as? T }
        if type == UInt32.self { return try integer(json, path, UInt32.self) as? T }
        if type == UInt16.self { return try integer(json, path, UInt16.self) as? T }
        if type == UInt8.self { return try integer(json, path, UInt8.self) as? T }
        if type == Double.self { return try coerce(json, path, T.self, Coerce.double) as? T }
        if type == Float.self { return try coerce(json, path, T.self, Coerce.float) as? T }
        if type == Decimal.self { return try coerce(json, path, T.self, Coerce.decimal) as? T }
        if type == Bool.self { return try coerce(json, path, T.self, Coerce.boolean) as? T }
        if type == Date.self { return try coerce(json, path, T.self) { [dates] v throws(CoercionFailure) in try Coerce.date(v, reading: dates) } as? T }
        if type == Data.self { return try coerce(json, path, T.self, Coerce.binary) as? T }
        if type == UUID.self { return try coerce(json, path, T.self, Coerce.uuid) as? T }
        if type == URL.self { return try coerce(json, path, T.self, Coerce.url) as? T }
        return nil
    }

    /// An integer of type `I` from `json`.
    private func integer<I: FixedWidthInteger>(_ json: JSONValue, _ path: [any CodingKey], _ type: I.Type) throws(DecodingRejection) -> I {
        try coerce(json, path, I.self) { value throws(CoercionFailure) in try Coerce.integer(value, as: I.self) }
    }

    /// The value `coercion` makes of `json`, noting the coercion; `null` is a missing value.
    private func coerce<Value, Expected>(
        _ json: JSONValue, _ path: [any CodingKey], _ expected: Expected.Type,
        _ coercion: (JSONValue) throws(CoercionFailure) -> (Value, CoercionKind)
    ) throws(DecodingRejection) -> Value {
        if case .null = json {
            throw DecodingRejection(
                path: path, expected: String(describing: expected), value: json,
                failure: CoercionFailure(.missingValue, "a value is required (make the property optional to accept null)"))
        }
        do throws(CoercionFailure) {
            let (value, kind) = try coercion(json)
            if kind != .none {
                coercions.append(PerformedCoercion(recordIndex: recordIndex, path: DecodingRejection.pathText(path), kind: kind))
            }
            return value
        } catch {
            throw DecodingRejection(path: path, expected: String(describing: expected), value: json, failure: error)
        }
    }
}

extension DecodingRejection {
    /// A rejection for a `DecodingError` that a type's own `init(from:)` threw.
    init(_ error: DecodingError, type: Any.Type) {
        let (path, detail): ([any CodingKey], String) = switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context),
             .typeMismatch(_, let context), .valueNotFound(_, let context):
            (context.codingPath, context.debugDescription)
        @unknown default:
            ([], "\(error)")
        }
        self.init(path: path, expected: String(describing: type), value: nil, failure: CoercionFailure(.invalidValue, detail))
        self.got = "a value it refused"
    }
}

/// A coding key for an array element, spelled as Foundation spells it ("Index 2").
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }

    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

// MARK: - Decoder

/// Decodes one JSON value; also its own single-value container.
struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let state: DecodingState

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw shapeRejection("an object") }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath, state: state))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw shapeRejection("an array") }
        return UnkeyedContainer(elements: elements, codingPath: codingPath, state: state)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value == .null }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try state.decode(type, from: value, path: codingPath)
    }

    private func shapeRejection(_ expected: String) -> DecodingRejection {
        let failure = value == .null
            ? CoercionFailure(.missingValue, "a value is required (make the property optional to accept null)")
            : CoercionFailure(.wrongKind)
        return DecodingRejection(path: codingPath, expected: expected, value: value, failure: failure)
    }
}

// MARK: - Keyed container

struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: JSONObject
    let codingPath: [any CodingKey]
    let state: DecodingState

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        try member(key, expected: "a value or null") == .null
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try state.decode(type, from: try member(key, expected: String(describing: type)), path: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try member(key, expected: "an object"), codingPath: codingPath + [key], state: state)
            .container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try member(key, expected: "an array"), codingPath: codingPath + [key], state: state)
            .unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: members["super"] ?? .null, codingPath: codingPath, state: state)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key], state: state)
    }

    /// The value at `key`; a rejection when the key is absent.
    private func member(_ key: Key, expected: @autoclosure () -> String) throws(DecodingRejection) -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingRejection(
                path: codingPath + [key], expected: expected(), value: nil,
                failure: CoercionFailure(.missingKey, "the key '\(key.stringValue)' is required (make the property optional to allow its absence)"))
        }
        return value
    }
}

// MARK: - Unkeyed container

struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    let state: DecodingState
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey], state: DecodingState) {
        self.elements = elements
        self.codingPath = codingPath
        self.state = state
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    mutating func decodeNil() throws -> Bool {
        guard try element(expected: "a value or null") == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try state.decode(type, from: try element(expected: String(describing: type)), path: codingPath + [IndexKey(currentIndex)])
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try ValueDecoder(value: try element(expected: "an object"), codingPath: codingPath + [IndexKey(currentIndex)], state: state)
            .container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try ValueDecoder(value: try element(expected: "an array"), codingPath: codingPath + [IndexKey(currentIndex)], state: state)
            .unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = ValueDecoder(value: try element(expected: "a value"), codingPath: codingPath + [IndexKey(currentIndex)], state: state)
        currentIndex += 1
        return decoder
    }

    /// The current element; a rejection past the end.
    private func element(expected: @autoclosure () -> String) throws(DecodingRejection) -> JSONValue {
        guard !isAtEnd else {
            throw DecodingRejection(
                path: codingPath + [IndexKey(currentIndex)], expected: expected(), value: nil,
                failure: CoercionFailure(.missingValue, "the array has only \(elements.count) elements"))
        }
        return elements[currentIndex]
    }
}
