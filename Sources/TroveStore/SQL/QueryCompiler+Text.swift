import Foundation
import TroveModel
import TrovePredicate

/// Sorting, and text compared with `[c]`/`[d]`: SQLite calls Trove's functions; PostgreSQL reads
/// the ``TextForm`` columns kept beside each text attribute.
extension QueryCompiler {
    // MARK: Sorting

    mutating func orderTerm(_ descriptor: CheckedSortKey) throws -> String {
        let (column, type) = try self.column(along: descriptor.keyPath.steps[...], from: 0)
        var terms: [String]
        switch descriptor.descriptor.comparison {
        case .standard: terms = [collated(column, type)]
        case .caseInsensitive: terms = [try folded(column, .caseInsensitive)]
        case .localizedStandard where dialect == .sqlite: terms = ["\(column) COLLATE trove_localized"]
        case .localizedStandard:
            // The kept sort key, ties broken by the text (as localizedStandardCompare breaks them).
            terms = [try textForm(.localizedSortKey, of: column), column]
        }
        // SQLite puts NULL first in an ascending order; PostgreSQL last unless told.
        let direction = switch (descriptor.descriptor.ascending, dialect) {
        case (true, .sqlite): " ASC"
        case (false, .sqlite): " DESC"
        case (true, .postgres): " ASC NULLS FIRST"
        case (false, .postgres): " DESC NULLS LAST"
        }
        return terms.map { $0 + direction }.joined(separator: ", ")
    }

    // MARK: Text forms

    /// `sql` (a text value) folded with `options`: SQLite calls `trove_fold`; PostgreSQL reads the
    /// ``TextForm`` column kept beside a stored attribute.
    func folded(_ sql: String, _ options: StringOptions) throws -> String {
        guard dialect == .postgres else { return "trove_fold(\(sql), \(options.rawValue))" }
        guard let form = TextForm(options) else { return sql }
        return try textForm(form, of: sql)
    }

    /// PostgreSQL: the ``TextForm`` of the stored text attribute `sql` names, its value where
    /// the form's column holds `NULL`.
    func textForm(_ form: TextForm, of sql: String) throws -> String {
        if let extreme = textExtremes[sql] {
            let selection = "COALESCE(\(quoted(extreme.source.alias)).\(quoted(form.column(of: extreme.source.attribute))), \(extreme.value))"
            return "(" + extreme.template.replacingOccurrences(of: Self.selectionMarker, with: selection) + ")"
        }
        guard let source = textColumns[sql] else {
            throw StoreError(.unsupportedFormat, "[c], [d] and the case-insensitive and localized sorts run on PostgreSQL only on stored"
                + " text attributes, constants, and an aggregate request's text keys and @min/@max of stored text; not on derived values"
                + " or other aggregates; fetch with a simpler predicate and filter or sort in memory")
        }
        return "COALESCE(\(quoted(source.alias)).\(quoted(form.column(of: source.attribute))), \(sql))"
    }

    /// PostgreSQL: the `@min` or `@max` (`function`) of the stored text attribute `value` as the
    /// first value in order, so that its text forms can be read from the same row
    /// (``textForm(_:of:)`` puts them in the selection's place); closes the element scope.
    mutating func textExtreme(_ function: ObjectPredicate.Aggregate, of value: String, source: (alias: String, attribute: String),
                              element: (from: String, link: String), condition: String) -> String {
        let template = closeElementScope(element, selecting: Self.selectionMarker, condition: "(\(condition)) AND \(value) IS NOT NULL")
            + " ORDER BY \(value) \(function == .min ? "ASC" : "DESC") LIMIT 1"
        let sql = "(" + template.replacingOccurrences(of: Self.selectionMarker, with: value) + ")"
        textExtremes[sql] = (template, value, source)
        return sql
    }

    /// PostgreSQL: the ``TextForm`` columns of a group's key or of the `@min`/`@max` of a stored
    /// text attribute (`value`), selected as `name~form` so that the results' `[c]`, `[d]` and
    /// string sorts read them. A group's rows share its key, so any row's forms are the key's;
    /// an extreme's are those of a row holding it (the first in byte order, as `min`/`max` pick).
    mutating func groupTextForms(of value: String, function: ObjectPredicate.Aggregate?, as name: String) throws -> [String] {
        guard dialect == .postgres, textColumns[value] != nil else { return [] }
        let order: String
        switch function {
        case nil: order = ""
        case .min?: order = " ASC"
        case .max?: order = " DESC"
        default: return []
        }
        groupTextForms.insert(name)
        return try TextForm.allCases.map { form in
            let formed = try textForm(form, of: value)
            let sql = function == nil ? "min(\(formed))"
                : "(array_agg(\(formed) ORDER BY \(value)\(order)) FILTER (WHERE \(value) IS NOT NULL))[1]"
            return "\(sql) AS \(quoted(form.column(of: name)))"
        }
    }

    /// Stands for the selection of a statement written before its selection is known.
    private static let selectionMarker = "\u{1}selection\u{1}"
}

// MARK: MATCHES on PostgreSQL

extension QueryCompiler {
    /// PostgreSQL: `operand` (of type `type`; `folded` is it folded with the comparison's
    /// options) matched against the ICU regular expression `pattern`, with the answers of
    /// ``PredicateText/matches(_:regex:options:)``.
    ///
    /// The part of ICU's syntax that PostgreSQL reads alike runs as PostgreSQL's `~`
    /// (``PostgresRegex``), `[d]` against the folded text. The rest — `[c]` (ICU folds case as
    /// PostgreSQL's collations do not) and what ``PostgresRegex`` refuses — runs on a stored text
    /// attribute by reading its distinct texts first (``readTexts``), matching them with
    /// ``PredicateText`` (as SQLite does, row by row), and testing `operand` against those that
    /// match. Elsewhere (a derived value, an aggregate, no ``readTexts``) it is refused.
    mutating func postgresMatches(_ operand: String, folded: String, type: AttributeType?, pattern: String,
                                  _ comparison: CheckedPredicate.Comparison) throws -> String {
        let options = comparison.options
        let reason: String
        if options.contains(.caseInsensitive) {
            reason = "MATCHES[c] does not run in a PostgreSQL statement (ICU folds case as PostgreSQL's collations do not)"
        } else {
            do {
                let regex = try PostgresRegex.wholeMatch(PredicateText.fold(pattern, options: options))
                return "(\(folded) ~ \(bind(.string(regex), type, [])))"
            } catch let error as StoreError {
                reason = error.message
            }
        }
        if case .value(let value) = comparison.left {
            // A constant matched against a constant.
            guard let text = value.text else { return "FALSE" }
            return try PredicateText.matches(text, regex: pattern, options: options) ? "TRUE" : "FALSE"
        }
        guard let readTexts, case .keyPath(let path) = comparison.left, let last = path.steps.last,
              let attribute = last.attribute, attribute.isStored, TextForm.applies(to: attribute.type) else {
            throw StoreError(.unsupportedFormat, "\(reason), and only a stored text attribute's values can be matched in Swift first;"
                + " rewrite the pattern, or fetch with the rest of the predicate and filter with MATCHES in memory")
        }
        let table = try schema.layout(of: last.entityName).table
        let column = quoted(attribute.name)
        let texts = try readTexts("SELECT DISTINCT \(column) FROM \(quoted(table)) WHERE \(column) IS NOT NULL")
        let matching = try texts.filter { try PredicateText.matches($0, regex: pattern, options: options) }
        guard !matching.isEmpty else { return "FALSE" }
        // One parameter however many texts match: a JSON array.
        let list = String(decoding: try JSONSerialization.data(withJSONObject: matching), as: UTF8.self)
        return "(\(operand) IN (SELECT jsonb_array_elements_text(CAST(\(bind(.string(list), .string, [])) AS jsonb))))"
    }
}
