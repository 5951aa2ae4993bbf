public import Foundation

/// A value passed for a format specifier (`%@`, `%d`, `%K`, …) or bound to a `$VARIABLE`.
///
/// Every ``AttributeValueConvertible`` type listed below, ``AttributeValue``, ``ObjectID``,
/// managed objects (as their ``ObjectID``), optionals (nil is `nil`) and arrays or sets of these
/// conform. A `String` given for `%K` is read as a key path; anywhere else it is a string value.
/// To pass your own ``AttributeValueConvertible`` type, declare `extension MyType: PredicateArgument {}`.
///
/// An argument is read once, when the predicate is made (so the protocol does not require
/// `Sendable`: an object, which stays in its context, is an argument too).
public protocol PredicateArgument {
    /// The argument as a value or a list of values.
    var predicateArgumentValue: PredicateArgumentValue { get }
}

/// What a ``PredicateArgument`` stands for.
public enum PredicateArgumentValue: Sendable, Hashable {
    // Not `indirect`: a list's array holds its items out of line already, and an indirect enum
    // put each value of a 100-value `IN` list in a box of its own.
    /// A single value.
    case value(AttributeValue)
    /// A list, for `IN` and `BETWEEN`.
    case list([PredicateArgumentValue])
    /// An object, by its identity: compared with a relationship or `SELF` (`whoTook == %@`).
    case object(ObjectID)

    package var expression: ObjectPredicate.Expression {
        switch self {
        case .value(let v): .value(v)
        case .list(let items): .list(items.map { $0.expression })
        case .object(let id): .object(id)
        }
    }
}

extension PredicateArgumentValue: PredicateArgument {
    /// The value itself: an argument already read.
    public var predicateArgumentValue: PredicateArgumentValue { self }
}

extension PredicateArgument where Self: AttributeValueConvertible {
    public var predicateArgumentValue: PredicateArgumentValue { .value(attributeValue) }
}

extension AttributeValue: PredicateArgument {}

extension ObjectID: PredicateArgument {
    /// The object this ID names: ``PredicateArgumentValue/object(_:)``.
    public var predicateArgumentValue: PredicateArgumentValue { .object(self) }
}

extension Optional: PredicateArgument where Wrapped: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue {
        map { $0.predicateArgumentValue } ?? .value(.null)
    }
}

// The lists map with closures: a key path such as `\.predicateArgumentValue` in generic code is
// applied at run time, about 500 instructions an element.
extension Array: PredicateArgument where Element: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue {
        // Lists of strings and integers, the usual `IN %@` arguments, are read without the
        // generic map, which called each element's witness (about 500 instructions a value).
        if Element.self == String.self {
            return .list(unsafeBitCast(self, to: [String].self).map { .value(.string($0)) })
        }
        if Element.self == Int.self {
            return .list(unsafeBitCast(self, to: [Int].self).map { .value(.integer(Int64($0))) })
        }
        if Element.self == Int64.self {
            return .list(unsafeBitCast(self, to: [Int64].self).map { .value(.integer($0)) })
        }
        return .list(map { $0.predicateArgumentValue })
    }
}

extension Set: PredicateArgument where Element: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue { .list(map { $0.predicateArgumentValue }) }
}

extension String: PredicateArgument {}
extension Int: PredicateArgument {}
extension Int64: PredicateArgument {}
extension Int32: PredicateArgument {}
extension Int16: PredicateArgument {}
extension Double: PredicateArgument {}
extension Float: PredicateArgument {}
extension Decimal: PredicateArgument {}
extension Bool: PredicateArgument {}
extension Date: PredicateArgument {}
extension Data: PredicateArgument {}
extension UUID: PredicateArgument {}
extension URL: PredicateArgument {}
extension Character: PredicateArgument {}
extension JSONValue: PredicateArgument {}
