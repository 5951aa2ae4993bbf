import TroveModel
import TrovePredicate

/// An ICU regular expression (as `MATCHES` reads it, see ``PredicateText/matches(_:regex:options:)``)
/// in PostgreSQL's advanced syntax, for the part of the language both engines read alike:
/// literals, `.`, bracket classes of characters and ranges, groups, alternation, and the
/// quantifiers `*` `+` `?` `{n}` `{n,}` `{n,m}` (lazy ones too: a whole-string match does not
/// depend on greediness). Both match Unicode scalars. Everything else — `\d` `\w` `\s` `\b`
/// `\p{…}` and other escapes of letters, anchors, `(?…)` groups and flags, possessive
/// quantifiers, set operations and POSIX classes in brackets — is refused with
/// ``StoreError/Code/unsupportedFormat`` naming it, since the two engines read it differently
/// (``QueryCompiler/postgresMatches(_:folded:type:pattern:_:)`` then matches in Swift).
enum PostgresRegex {
    /// ICU's `.`: any scalar but a line terminator.
    private static let anyButLineEnd = #"[^\n\v\f\r\u0085\u2028\u2029]"#

    /// `pattern` as a PostgreSQL regular expression matching the whole string.
    static func wholeMatch(_ pattern: String) throws -> String {
        var scalars = Array(pattern.unicodeScalars)[...]
        var sql = "^(?:"
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "\\":
                sql += try escape(&scalars)
            case ".":
                sql += anyButLineEnd
            case "[":
                sql += try bracket(&scalars)
            case "(":
                if scalars.first == "?" {
                    guard scalars.dropFirst().first == ":" else { throw refusal("a (?…) group or flag") }
                    scalars.removeFirst(2)
                }
                sql += "(?:"
            case ")", "|":
                sql.unicodeScalars.append(scalar)
            case "*", "+", "?", "{":
                sql += try quantifier(scalar, &scalars)
            case "^", "$":
                throw refusal("the anchor \(scalar) (MATCHES matches the whole string: leave it out)")
            case "]", "}":
                sql += "\\" + String(scalar)
            default:
                sql.unicodeScalars.append(scalar)
            }
        }
        return sql + ")$"
    }

    /// After a backslash: an escaped punctuation mark, `\n`, `\t`, `\r`; other escapes are refused.
    private static func escape(_ scalars: inout ArraySlice<Unicode.Scalar>) throws -> String {
        guard let next = scalars.popFirst() else { throw refusal("a backslash at the end") }
        switch next {
        case "n", "t", "r": return "\\" + String(next)
        case _ where next.isASCII && !next.properties.isAlphabetic && !("0"..."9").contains(next) && next.value > 0x20:
            return "\\" + String(next)
        default: throw refusal("the escape \\\(next)")
        }
    }

    /// A bracket class after its `[`: characters, escaped characters and ranges, maybe negated.
    private static func bracket(_ scalars: inout ArraySlice<Unicode.Scalar>) throws -> String {
        var sql = "["
        if scalars.first == "^" {
            scalars.removeFirst()
            sql += "^"
        }
        var members = 0
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "]":
                guard members > 0 else { throw refusal("an empty bracket class or one starting with ]") }
                return sql + "]"
            case "[", "&":
                throw refusal("a nested set, set operation or POSIX class in brackets")
            case "\\":
                guard let next = scalars.popFirst() else { throw refusal("a backslash at the end") }
                guard next.isASCII, !next.properties.isAlphabetic, !("0"..."9").contains(next) else {
                    throw refusal("the escape \\\(next) in brackets")
                }
                sql += "\\" + String(next)
            default:
                sql.unicodeScalars.append(scalar)
            }
            members += 1
        }
        throw refusal("a bracket class without its ]")
    }

    /// A quantifier (its first scalar already read), a lazy one's `?` dropped; a possessive
    /// one is refused.
    private static func quantifier(_ first: Unicode.Scalar, _ scalars: inout ArraySlice<Unicode.Scalar>) throws -> String {
        var sql = String(first)
        if first == "{" {
            while let scalar = scalars.popFirst() {
                guard scalar == "}" || scalar == "," || ("0"..."9").contains(scalar) else { throw refusal("a { that is not a quantifier") }
                sql.unicodeScalars.append(scalar)
                if scalar == "}" { break }
            }
            guard sql.hasSuffix("}"), sql.count > 2 else { throw refusal("a { that is not a quantifier") }
        }
        if scalars.first == "?" { scalars.removeFirst() }
        if scalars.first == "+" { throw refusal("a possessive quantifier") }
        return sql
    }

    private static func refusal(_ construct: String) -> StoreError {
        StoreError(.unsupportedFormat, "MATCHES in a PostgreSQL statement reads a subset of ICU's regular expressions, which \(construct) is not in")
    }
}
