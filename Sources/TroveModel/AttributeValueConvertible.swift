public import Foundation

/// A Swift type that an attribute value can be read as, for typed access such as
/// `try object.value(forKey: "views", as: Int.self)`.
public protocol AttributeValueConvertible: Sendable {
    /// The value as an ``AttributeValue``.
    var attributeValue: AttributeValue { get }
    /// The Swift value held by `value`, or `nil` when `value` is of another kind (or out of
    /// this type's range).
    init?(attributeValue value: AttributeValue)
}

extension String: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .string(self) }
    public init?(attributeValue value: AttributeValue) {
        guard case .string(let s) = value else { return nil }
        self = s
    }
}

extension Int64: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .integer(self) }
    public init?(attributeValue value: AttributeValue) {
        guard case .integer(let i) = value else { return nil }
        self = i
    }
}

extension Int: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
    public init?(attributeValue value: AttributeValue) {
        guard case .integer(let i) = value, let v = Int(exactly: i) else { return nil }
        self = v
    }
}

extension Int32: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
    public init?(attributeValue value: AttributeValue) {
        guard case .integer(let i) = value, let v = Int32(exactly: i) else { return nil }
        self = v
    }
}

extension Int16: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
    public init?(attributeValue value: AttributeValue) {
        guard case .integer(let i) = value, let v = Int16(exactly: i) else { return nil }
        self = v
    }
}

extension Double: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .double(self) }
    public init?(attributeValue value: AttributeValue) {
        guard case .double(let d) = value else { return nil }
        self = d
    }
}

extension Float: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .double(Double(self)) }
    public init?(attributeValue value: AttributeValue) {
        guard case .double(let d) = value else { return nil }
        self = Float(d)
    }
}

extension Decimal: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .decimal(self) }
    public init?(attributeValue value: AttributeValue) {
        guard case .decimal(let d) = value else { return nil }
        self = d
    }
}

extension Bool: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .boolean(self) }
    public init?(attributeValue value: AttributeValue) {
        guard case .boolean(let b) = value else { return nil }
        self = b
    }
}

extension Date: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .date(self) }
    public init?(attributeValue value: AttributeValue) {
        guard case .date(let d) = value else { return nil }
        self = d
    }
}

extension Data: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .binary(self) }
    public init?(attributeValue value: AttributeValue) {
        guard case .binary(let d) = value else { return nil }
        self = d
    }
}

extension UUID: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .uuid(self) }
    public init?(attributeValue value: AttributeValue) {
        guard case .uuid(let u) = value else { return nil }
        self = u
    }
}

extension URL: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .uri(self) }
    public init?(attributeValue value: AttributeValue) {
        guard case .uri(let u) = value else { return nil }
        self = u
    }
}

extension Character: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .character(self) }
    public init?(attributeValue value: AttributeValue) {
        guard case .character(let c) = value else { return nil }
        self = c
    }
}

extension JSONValue: AttributeValueConvertible {
    public var attributeValue: AttributeValue { .json(self) }
    public init?(attributeValue value: AttributeValue) {
        guard case .json(let j) = value else { return nil }
        self = j
    }
}

extension AttributeValue: AttributeValueConvertible {
    /// The value itself, so that APIs taking any ``AttributeValueConvertible`` take an
    /// ``AttributeValue`` too (`try object.setValue(AttributeValue.null, forKey: "title")`).
    public var attributeValue: AttributeValue { self }
    /// Any value, itself.
    public init?(attributeValue value: AttributeValue) {
        self = value
    }
}
