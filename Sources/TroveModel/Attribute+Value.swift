import Foundation

/// Why a value does not fit an attribute.
public enum AttributeValueProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value is of another kind than the attribute's type takes.
    case typeMismatch(expected: AttributeType, got: String)
    /// An integer outside the range of the attribute's width.
    case outOfRange(expected: AttributeType, value: Int64)
    /// A floating-point value that a store cannot hold (NaN).
    case notANumber
    /// A string given for a `character` attribute that is not exactly one character.
    case notOneCharacter(String)

    public var description: String {
        switch self {
        case .typeMismatch(let expected, let got): "expected a value of type \(expected.rawValue), got \(got)"
        case .outOfRange(let expected, let value): "\(value) is out of range for \(expected.rawValue)"
        case .notANumber: "NaN cannot be stored"
        case .notOneCharacter(let s): "a character attribute takes exactly one character, got \"\(s)\""
        }
    }
}

extension Attribute {
    /// The value as this attribute holds it, or why it does not fit.
    ///
    /// Widening that loses nothing is done: an integer into `double`, `float` or `decimal`, a
    /// double into `decimal` (by its shortest decimal form), a one-character string into
    /// `character`; a `float` attribute keeps `Float` precision. ``AttributeValue/null`` always
    /// fits here (whether nil is allowed is checked at save).
    public func checked(_ value: AttributeValue) -> Result<AttributeValue, AttributeValueProblem> {
        type.checked(value)
    }
}

extension AttributeType {
    /// The value as an attribute of this type stores it, or why it cannot be one: what
    /// ``Attribute/checked(_:)`` does, for callers that have the type alone (no copy of the
    /// attribute).
    public func checked(_ value: AttributeValue) -> Result<AttributeValue, AttributeValueProblem> {
        let type = self
        switch (type, value) {
        case (_, .null):
            return .success(.null)
        case (.string, .string), (.boolean, .boolean), (.date, .date), (.binary, .binary),
             (.uuid, .uuid), (.uri, .uri), (.character, .character), (.json, .json), (.decimal, .decimal):
            return .success(value)
        case (.integer64, .integer):
            return .success(value)
        case (.integer16, .integer(let i)), (.integer32, .integer(let i)):
            // Compared directly: a range held in an optional is copied through its generic witnesses.
            let fits = type == .integer16 ? Int64(Int16.min) <= i && i <= Int64(Int16.max) : Int64(Int32.min) <= i && i <= Int64(Int32.max)
            return fits ? .success(value) : .failure(.outOfRange(expected: type, value: i))
        case (.double, .double(let d)):
            return d.isNaN ? .failure(.notANumber) : .success(value)
        case (.float, .double(let d)):
            return d.isNaN ? .failure(.notANumber) : .success(.double(Double(Float(d))))
        case (.double, .integer(let i)):
            return .success(.double(Double(i)))
        case (.float, .integer(let i)):
            return .success(.double(Double(Float(i))))
        case (.decimal, .integer(let i)):
            return .success(.decimal(Decimal(i)))
        case (.decimal, .double(let d)):
            guard d.isFinite, let decimal = Decimal(string: String(d), locale: Locale(identifier: "en_US_POSIX")) else {
                return .failure(.notANumber)
            }
            return .success(.decimal(decimal))
        case (.character, .string(let s)):
            guard s.count == 1, let c = s.first else { return .failure(.notOneCharacter(s)) }
            return .success(.character(c))
        default:
            return .failure(.typeMismatch(expected: type, got: value.kindName))
        }
    }
}

extension Attribute {
    /// Whether a save checks this attribute's value: it is required, or has a min, max or regex.
    package var isCheckedAtSave: Bool {
        !isOptional || minimum != nil || maximum != nil || regex != nil
    }

    /// This attribute with its default, min and max as ``checked(_:)`` normalizes them (an
    /// integer default of a `double` attribute becomes a double), so that equal models compare
    /// equal however their values were written. Values that do not fit are left as they are.
    func normalized() -> Attribute {
        var attribute = self
        attribute.defaultValue = (try? checked(defaultValue).get()) ?? defaultValue
        attribute.minimum = minimum.map { (try? boundValue($0).get()) ?? $0 }
        attribute.maximum = maximum.map { (try? boundValue($0).get()) ?? $0 }
        return attribute
    }
}
