/// Paths into a model file, as ``ModelIssue/path`` spells them: `entities[1].attributes[2].default`.
///
/// Indices are declaration positions, which are also positions in the file.
enum ModelPath {
    /// The path of the whole document, used for problems not tied to one place (bad JSON syntax).
    static let root = "$"

    static func entity(_ e: Int) -> String {
        "entities[\(e)]"
    }

    static func attribute(_ e: Int, _ a: Int) -> String {
        "entities[\(e)].attributes[\(a)]"
    }

    static func relationship(_ e: Int, _ r: Int) -> String {
        "entities[\(e)].relationships[\(r)]"
    }

    /// `base` followed by the member `key`: `.key` for identifiers, `["key"]` otherwise; a bare key
    /// when `base` is empty (the top level).
    static func member(_ base: String, _ key: String) -> String {
        let isIdentifier = key.first.map { $0.isASCII && ($0.isLetter || $0 == "_") } == true
            && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        if isIdentifier { return base.isEmpty ? key : "\(base).\(key)" }
        var quoted = ""
        JSONValue.writeString(key, to: &quoted)
        return "\(base)[\(quoted)]"
    }

    /// `findings` in model order: by path, comparing indices as numbers; findings with equal paths
    /// keep their order.
    static func sortedInModelOrder(_ findings: [ModelIssue]) -> [ModelIssue] {
        findings.enumerated()
            .map { (key: sortKey($1.path), offset: $0, issue: $1) }
            .sorted { lhs, rhs in
                lhs.key.lexicographicallyPrecedes(rhs.key) || (lhs.key == rhs.key && lhs.offset < rhs.offset)
            }
            .map(\.issue)
    }

    /// A path split into parts that sort in model order: numbers (zero-padded) and names.
    private static func sortKey(_ path: String) -> [String] {
        path.split(whereSeparator: { "[].".contains($0) }).map { part in
            guard part.allSatisfy(\.isNumber) else { return String(part) }
            return String(repeating: "0", count: max(0, 12 - part.count)) + part
        }
    }
}
