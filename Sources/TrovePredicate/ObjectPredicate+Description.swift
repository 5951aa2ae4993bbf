import Foundation

extension ObjectPredicate: CustomStringConvertible {
    /// The predicate in canonical format: keywords in capitals, `==` for `=`, strings in double
    /// quotes, dates as `CAST(seconds, "NSDate")`, parentheses only where precedence needs them.
    ///
    /// Parsing the description gives an equal predicate, except that a `Double` constant reads
    /// back as a decimal and a UUID, URL, character or JSON constant as a string (checking
    /// against the model makes those equal again), and that an object prints as `<Photo/42>`,
    /// which does not parse: pass it as an argument.
    public var description: String { root.description }
}

extension ObjectPredicate.Node: CustomStringConvertible {
    /// The node in canonical format.
    public var description: String {
        switch self {
        case .constant(let value): value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let operand): "NOT " + operand.described(inside: .not)
        case .and(let parts): parts.map { $0.described(inside: .and) }.joined(separator: " AND ")
        case .or(let parts): parts.map { $0.described(inside: .or) }.joined(separator: " OR ")
        case .comparison(let comparison): comparison.description
        }
    }

    private enum Level: Int { case or, and, not }

    private var level: Level? {
        switch self {
        case .or: .or
        case .and: .and
        default: nil
        }
    }

    /// The description, parenthesized when this node binds more loosely than its parent.
    private func described(inside parent: Level) -> String {
        guard let level, level.rawValue <= parent.rawValue else { return description }
        return "(" + description + ")"
    }
}

extension ObjectPredicate.Comparison: CustomStringConvertible {
    /// The comparison in canonical format.
    public var description: String {
        let modifierText = modifier == .direct ? "" : modifier.rawValue + " "
        return modifierText + left.description + " " + op.rawValue + options.formatSuffix + " " + right.description
    }
}

extension ObjectPredicate.Expression: CustomStringConvertible {
    /// The operand in canonical format.
    public var description: String {
        switch self {
        case .value(let value): Self.literal(value)
        case .list(let items): "{" + items.map(\.description).joined(separator: ", ") + "}"
        case .keyPath(let path): Self.formatted(path)
        case .object(let id): "<\(id)>"
        case .variable(let name): "$" + name
        case .aggregate(let function, let collection, let key):
            ([collection.description, function.rawValue] + key.map(Self.formattedKey)).joined(separator: ".")
        case .subquery(let collection, let variable, let predicate):
            "SUBQUERY(\(Self.formatted(collection)), $\(variable), \(predicate.description))"
        }
    }

    private static func formatted(_ path: ObjectPredicate.KeyPath) -> String {
        if path.keys.isEmpty, path.variable == nil { return "SELF" }
        return ((path.variable.map { ["$" + $0] } ?? []) + path.keys.map(formattedKey)).joined(separator: ".")
    }

    /// A key as written in a format: `#` before a reserved word.
    private static func formattedKey(_ key: String) -> String {
        PredicateParser.isReserved(key) ? "#" + key : key
    }

    private static func literal(_ value: AttributeValue) -> String {
        switch value {
        case .null: "nil"
        case .string(let s): quoted(s)
        case .integer(let i): String(i)
        case .double(let d): String(d)
        case .decimal(let d): d.description
        case .boolean(let b): b ? "TRUE" : "FALSE"
        case .date(let d): "CAST(\(d.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .binary(let d): quoted(d.base64EncodedString())
        case .uuid(let u): quoted(u.uuidString)
        case .uri(let u): quoted(u.absoluteString)
        case .character(let c): quoted(String(c))
        case .json(let j): quoted(j.serialized())
        }
    }

    /// `s` in double quotes, with `"`, `\` and control characters escaped.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\u{0}": out += "\\0"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
