import ArgumentParser
import Foundation
import Trove

/// `trove query STORE ENTITY`: prints the objects a predicate selects, in an order, as a table,
/// JSON, NDJSON or CSV.
struct QueryCommand: PredicateArgumentsCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print the objects of an entity that match a predicate.",
        discussion: """
            Rows stream as they are read, a batch at a time, so a query over millions of objects \
            keeps memory flat. Each JSON object's keys are the --fields as given; a key path \
            through a to-many relationship gives an array, a missing value is null. Dates print \
            in ISO 8601 UTC with milliseconds, binary in base64.
            Example: trove query photos.trove Photo --where 'views > %@' --arg 100 --sort -views --limit 10 --fields title,whoTook.name
            With --group-by or aggregates in --fields, it prints a row per group instead, computed by the store \
            in one statement: trove query photos.trove Photo --group-by whoTook.name \
            --fields 'whoTook.name,count() as photos,sum(views)' --having 'photos > 1' --sort -photos
            """)

    @OptionGroup var store: StoreArgument
    @OptionGroup var selection: SelectionOptions

    var predicateArguments: [String] {
        get { selection.arguments }
        set { selection.arguments = newValue }
    }

    @Option(parsing: .unconditional,  // so that `--sort -views` reads "-views" as the value
            help: ArgumentHelp("Sort keys, separated by commas: '-' before a key sorts descending, ':ci' after it ignores case (for example name,-views,title:ci).",
                               valueName: "KEY[,-KEY][:ci]..."))
    var sort: String?

    @Option(help: ArgumentHelp("Print at most N objects.", valueName: "N"))
    var limit: Int?

    @Option(help: ArgumentHelp("Skip the first N matching objects.", valueName: "N"))
    var offset: Int?

    @Option(help: ArgumentHelp("The key paths to print, separated by commas, through relationships (for example id,title,whoTook.name,tags.name); every attribute by default.",
                               valueName: "a,b,rel.c"))
    var fields: String?

    @Option(help: "Output format: table for people; json (one array), ndjson (one object per line) or csv for programs.")
    var format: QueryFormat = .table

    @Option(name: .customLong("group-by"),
            help: ArgumentHelp("Group the objects by these key paths (through to-one relationships), separated by commas, and print a row per group: the --fields then list group keys and aggregates — count(), sum(K), avg(K), min(K), max(K), each optionally 'as NAME'.",
                               valueName: "a,rel.b"))
    var groupBy: String?

    @Option(help: ArgumentHelp("Keep only the groups that match this predicate, on aggregate names and one-step group keys (for example 'photos > 2' with count() as photos).",
                               valueName: "predicate"))
    var having: String?

    /// How many objects are read at a time.
    static let batchSize = 500

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more, not \(limit)") }
        if let offset, offset < 0 { throw ValidationError("--offset must be 0 or more, not \(offset)") }
    }

    func run() throws {
        let selected = try Selection(store: store, readOnly: true, entityName: selection.entity,
                                     predicate: selection.predicate, arguments: selection.arguments)
        guard groupBy == nil, !AggregateQuery.hasAggregates(fields) else {
            let query = try AggregateQuery(entity: selected.entity.name, predicate: selected.fetchRequest.predicate, groupBy: groupBy,
                                           fields: fields, having: having, sort: sort, limit: limit, offset: offset)
            return try query.run(in: try Container(store: selected.store).newBackgroundContext(), format: format)
        }
        if having != nil {
            throw CLIFailure(.usage, "--having filters groups: use it with --group-by or aggregate --fields (count(), sum(K) …); filter objects with --where")
        }
        let model = selected.store.model
        let columns = try QueryField.fields(fields, of: selected.entity, in: model)

        var request = selected.fetchRequest
        request.sortDescriptors = try selected.sortKeys(sort)
        request.fetchLimit = limit ?? 0
        request.fetchOffset = offset ?? 0
        request.fetchBatchSize = Self.batchSize
        request.relationshipKeyPathsForPrefetching = QueryField.prefetchPaths(of: columns)

        let context = try Container(store: selected.store).newBackgroundContext()
        var printer = RowPrinter(format: format, fields: columns)
        for object in try context.fetch(request) {
            try printer.print(try columns.map { try $0.value(of: object) })
        }
        try printer.finish()
    }
}
