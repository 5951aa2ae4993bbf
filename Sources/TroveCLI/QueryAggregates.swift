import Foundation
import Trove

/// `trove query … --group-by K,… --fields 'K,count(),sum(views) as total' [--having P]`: the
/// values of groups of objects, computed by the store in one statement.
struct AggregateQuery {
    /// One `--fields` item: a group key, or an aggregate call with an optional `as NAME`.
    enum Item {
        case key(String)
        case aggregate(AggregateField)

        var name: String {
            switch self {
            case .key(let path): path
            case .aggregate(let field): field.name
            }
        }
    }

    let request: AggregateRequest
    /// The printed columns, in the order of `--fields`.
    let items: [Item]

    /// Whether `--fields` asks for aggregates (then the query groups even without `--group-by`).
    static func hasAggregates(_ fields: String?) -> Bool {
        guard let fields else { return false }
        // A key path holds no parenthesis and no space: an item with one is an aggregate call,
        // or a named one (or a wrong one, which parsing the fields reports).
        return split(fields).contains { $0.contains("(") || $0.range(of: " as ", options: .caseInsensitive) != nil }
    }

    /// The request `--group-by`, `--fields`, `--having`, `--sort`, `--limit` and `--offset` make.
    /// - Throws: ``CLIFailure`` (usage) for a field that is neither a group key nor an aggregate
    ///   call, or a having-predicate or sort that does not parse.
    init(entity: String, predicate: ObjectPredicate?, groupBy: String?, fields: String?, having: String?,
         sort: String?, limit: Int?, offset: Int?) throws {
        let keys = groupBy.map(Self.split) ?? []
        if let empty = keys.firstIndex(of: "") {
            throw CLIFailure(.usage, "--group-by: empty key at position \(empty + 1); separate key paths with single commas")
        }
        let items = try fields.map { try Self.split($0).map(Self.parse) } ?? keys.map(Item.key) + [.aggregate(.count())]
        for case .key(let path) in items where !keys.contains(path) {
            throw CLIFailure(.usage, "--fields: '\(path)' is not grouped; add it to --group-by, or aggregate it (count(), sum(\(path)), min(\(path)) …)")
        }
        var request = AggregateRequest(entityName: entity, predicate: predicate, groupBy: keys,
                                       aggregates: items.compactMap { if case .aggregate(let field) = $0 { field } else { nil } })
        do {
            request.having = try having.map { try ObjectPredicate(format: $0) }
        } catch {
            throw CLIFailure(.usage, "--having: \(error)")
        }
        do {
            request.sortDescriptors = try sort.map { try SortKey.parse($0) } ?? []
        } catch {
            throw CLIFailure(.usage, "--sort: \(error)")
        }
        request.fetchLimit = limit ?? 0
        request.fetchOffset = offset ?? 0
        self.request = request
        self.items = items
    }

    /// Runs the request in `context` and prints each group as `format` says.
    func run(in context: ObjectContext, format: QueryFormat) throws {
        let results = try context.fetchAggregates(request)
        // The columns typed as the results: the checked request knows each one's type.
        let checked = try context.checked(request)
        let model = checked.resultsModel
        let fields = try items.map { item in
            guard let index = request.resultKeys.firstIndex(of: item.name) else {
                throw CLIFailure(.usage, "--fields: '\(item.name)' is not a result of the query")
            }
            let attribute = checked.results.attributes[index]
            return QueryField(name: item.name, path: try ResolvedKeyPath(resolving: attribute.name, from: checked.results, in: model), attribute: attribute)
        }
        var printer = RowPrinter(format: format, fields: fields)
        for result in results {
            try printer.print(items.map { .one(result[$0.name] ?? .null) })
        }
        try printer.finish()
    }

    private static func split(_ list: String) -> [String] {
        list.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// `path`, `count()`, `sum(views)`, `avg(whoTook.age) as mean`.
    private static func parse(_ text: String) throws -> Item {
        guard !text.isEmpty else {
            throw CLIFailure(.usage, "--fields: an empty field; separate fields with single commas, as in --fields 'whoTook.name,count(),sum(views)'")
        }
        var expression = text, name: String?
        if let range = text.range(of: " as ", options: [.caseInsensitive, .backwards]) {
            expression = text[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
            name = text[range.upperBound...].trimmingCharacters(in: .whitespaces)
        }
        guard let open = expression.firstIndex(of: "("), expression.hasSuffix(")") else {
            guard name == nil else {
                throw CLIFailure(.usage, "--fields: '\(text)': only aggregates take a name (count() as n); a group key is named by its key path")
            }
            return .key(expression)
        }
        let word = expression[..<open].lowercased()
        let argument = expression[expression.index(after: open)..<expression.index(before: expression.endIndex)].trimmingCharacters(in: .whitespaces)
        guard let function = ObjectPredicate.Aggregate(rawValue: "@" + word) else {
            throw CLIFailure(.usage, "--fields: '\(word)' in '\(text)' is not an aggregate; use count(), sum(K), avg(K), min(K) or max(K)")
        }
        if function == .count, !argument.isEmpty {
            throw CLIFailure(.usage, "--fields: count() counts objects and takes no key path, not '\(argument)'")
        }
        if function != .count, argument.isEmpty {
            throw CLIFailure(.usage, "--fields: \(word)() needs a key path, as in \(word)(views)")
        }
        return .aggregate(AggregateField(function, argument, name))
    }
}
