import ArgumentParser
import Foundation
import Trove

/// `trove export STORE ENTITY`: prints objects as the JSON records `trove import` reads back.
struct ExportCommand: PredicateArgumentsCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print objects as the JSON records trove import reads back as the same objects.",
        discussion: """
            Each attribute is written under its remote key (the first one; else its name in the \
            model's keyStyle; a dotted key becomes nested objects), in the form the import reads \
            back unchanged: dates in the attribute's dateFormat or ISO 8601 UTC with milliseconds, \
            decimals exact, binary in base64. Relationships: keys (default) names each related \
            object by its unique key — a value, or an object of a compound key's attributes; \
            to-many as arrays, ordered ones in order; left out when the destination has no unique \
            key. nested writes related objects as records, --depth levels deep (then keys); none \
            leaves relationships out. Objects stream a batch at a time: memory stays flat.
            Example: trove export photos.trove Photo --where 'views > %@' --arg 100 --format ndjson > photos.ndjson
            """)

    @OptionGroup var store: StoreArgument
    @OptionGroup var selection: SelectionOptions

    var predicateArguments: [String] {
        get { selection.arguments }
        set { selection.arguments = newValue }
    }

    @Option(parsing: .unconditional,  // so that `--sort -views` reads "-views" as the value
            help: ArgumentHelp("Sort keys, separated by commas: '-' before a key sorts descending, ':ci' after it ignores case (for example name,-views).",
                               valueName: "KEY[,-KEY][:ci]..."))
    var sort: String?

    @Option(help: "Output format: json (one array) or ndjson (one record per line, for trove import --ndjson).")
    var format: ExportFormatArgument = .json

    @Option(help: "How relationships are written: keys (the related objects' unique keys), nested (their records), or none.")
    var relationships: ExportRelationshipsArgument = .keys

    @Option(help: ArgumentHelp("With --relationships nested, how many levels of related objects are nested (1 to 16).", valueName: "N"))
    var depth: Int = 1

    func validate() throws {
        guard ExportOptions.depths.contains(depth) else {
            throw ValidationError("--depth must be from \(ExportOptions.depths.lowerBound) to \(ExportOptions.depths.upperBound), not \(depth)")
        }
    }

    func run() throws {
        let selected = try Selection(store: store, readOnly: true, entityName: selection.entity,
                                     predicate: selection.predicate, arguments: selection.arguments)
        var request = selected.fetchRequest
        request.sortDescriptors = try selected.sortKeys(sort)
        let context = try Container(store: selected.store).newBackgroundContext()
        let exporter = Exporter(context: context, options: ExportOptions(relationships: relationships.value, depth: depth))
        try exporter.export(request, format: format.value) { try FileHandle.standardOutput.write(contentsOf: $0) }
    }
}

/// `--format` of `trove export`.
enum ExportFormatArgument: String, ExpressibleByArgument, CaseIterable {
    case json, ndjson

    var value: ExportFormat { self == .json ? .json : .ndjson }
}

/// `--relationships` of `trove export`.
enum ExportRelationshipsArgument: String, ExpressibleByArgument, CaseIterable {
    case nested, keys, none

    var value: ExportOptions.Relationships {
        switch self {
        case .nested: .nested
        case .keys: .keys
        case .none: .none
        }
    }
}
