package import TroveModel
package import TrovePredicate

/// A form of a text attribute's value that a store without Trove's string functions (PostgreSQL)
/// keeps in a column beside the value, written at each save, so that `[c]`, `[d]`, `[cd]` and
/// the case-insensitive and localized sorts run in its SQL with ``PredicateText``'s answers.
///
/// A form's column holds `NULL` where the form equals the value (ASCII lower-case text, the
/// most common, costs nothing): a statement reads `COALESCE(form, value)`.
package enum TextForm: String, CaseIterable, Sendable {
    case caseFolded = "c"
    case diacriticFolded = "d"
    case folded = "cd"
    case localizedSortKey = "sort"

    /// The form `[c]`, `[d]` or `[cd]` compare; `nil` without options.
    package init?(_ options: StringOptions) {
        switch (options.contains(.caseInsensitive), options.contains(.diacriticInsensitive)) {
        case (true, true): self = .folded
        case (true, false): self = .caseFolded
        case (false, true): self = .diacriticFolded
        case (false, false): return nil
        }
    }

    /// Whether attributes of `type` keep text forms (the types `[c]` and `[d]` apply to).
    package static func applies(to type: AttributeType) -> Bool {
        type == .string || type == .character || type == .uri
    }

    /// The column keeping this form of `attribute`'s values: the name and a `~`, which no
    /// attribute name holds.
    package func column(of attribute: String) -> String {
        "\(attribute)~\(rawValue)"
    }

    /// Every form of `value`, in ``allCases``' order, each `.null` where it equals the value
    /// (all of them when the value is not text). The three folds are made in one pass, and the
    /// sort key from the `[cd]` fold (folding is the costly part of a save's text).
    package static func values(of value: AttributeValue) -> [AttributeValue] {
        guard let text = value.text else { return allCases.map { _ in .null } }
        let folds = PredicateText.folds(of: text, [.caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]])
        return allCases.map { form in
            let formed: String
            switch form {
            case .caseFolded: formed = folds[0]
            case .diacriticFolded: formed = folds[1]
            case .folded: formed = folds[2]
            case .localizedSortKey: formed = PredicateText.localizedStandardSortKey(folded: folds[2])
            }
            return formed.utf8.elementsEqual(text.utf8) ? .null : .string(formed)
        }
    }
}
