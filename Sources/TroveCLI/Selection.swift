import ArgumentParser
import Foundation
import Trove

/// `ENTITY [--where PREDICATE] [--arg VALUE]...`: which objects `query` and `count` work on.
struct SelectionOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The entity whose objects to select (`trove inspect` lists them).", valueName: "entity"))
    var entity: String

    @Option(name: .customLong("where"),
            help: ArgumentHelp("A predicate in Apple's format syntax, such as \"views > %@ AND title CONTAINS[c] %@\".", valueName: "PREDICATE"))
    var predicate: String?

    @Option(name: .customLong("arg"), parsing: .unconditionalSingleValue,  // so that `--arg -5` is a value
            help: ArgumentHelp("A value for the next %@ of --where, read as the type of the key it is compared with (ISO 8601 for dates, true/false for booleans). Repeat for each %@; a value may start with '-' (--arg -5).",
                               valueName: "VALUE"))
    var arguments: [String] = []
}

/// A store opened for a command, the entity named on the command line, and the predicate
/// checked against it.
struct Selection {
    let store: any PersistentStore
    let entity: Entity
    let predicate: ObjectPredicate?

    /// Opens the store at `path` — for reading only when `readOnly` (`query`, `count`), so a
    /// store that cannot be written is still read — and resolves `entityName`, `predicate` and
    /// its `arguments`.
    /// - Throws: the store's error (exit 3), or a ``CLIFailure`` with status 1 for an unknown
    ///   entity, `--arg`s without `--where`, or a predicate that does not parse, fit the
    ///   entity, or take its arguments
    ///   (status 2 for one past ``PredicateLimits``).
    init(store path: StoreArgument, readOnly: Bool, entityName: String, predicate format: String?, arguments: [String]) throws {
        if format == nil, !arguments.isEmpty {
            throw CLIFailure(.usage, "--arg fills the %@ placeholders of --where; give a --where PREDICATE with one %@ per --arg")
        }
        store = try path.open(readOnly: readOnly)
        let model = store.model
        entity = try Self.entity(named: entityName, in: model, of: path)
        guard let format else {
            predicate = nil
            return
        }
        do {
            let parsed = try ObjectPredicate(format: format, textArguments: arguments, for: entity, in: model)
            _ = try parsed.checked(for: entity, in: model)
            predicate = parsed
        } catch {
            throw CLIFailure(CLIFailure.status(of: error), "--where: \(error)")
        }
    }

    /// The entity of `model` called `name`.
    /// - Throws: a ``CLIFailure`` with status 1 naming the entities the store has, and the
    ///   one meant when only the letter case differs.
    static func entity(named name: String, in model: Model, of path: StoreArgument) throws -> Entity {
        guard let entity = model.entity(named: name) else {
            let names = model.entities.map(\.name)
            let close = names.first { $0.lowercased() == name.lowercased() }.map { "did you mean '\($0)'? " } ?? ""
            throw CLIFailure(.usage, "\(path.name) has no entity '\(name)'; \(close)its entities are: \(names.joined(separator: ", "))")
        }
        return entity
    }

    /// The sort keys of a `--sort` list, checked against the entity; none without one.
    /// - Throws: a ``CLIFailure`` with status 1 for a list that does not parse or names a key
    ///   the entity does not have.
    func sortKeys(_ list: String?) throws -> [SortKey] {
        guard let list else { return [] }
        do {
            let keys = try SortKey.parse(list)
            for key in keys { _ = try key.checked(for: entity, in: store.model) }
            return keys
        } catch {
            let text = error.code == .syntax ? error.description : error.message
            throw CLIFailure(CLIFailure.status(of: error), "--sort: \(text)")
        }
    }

    /// A fetch request for the selected objects.
    var fetchRequest: FetchRequest {
        FetchRequest(entityName: entity.name, predicate: predicate)
    }
}
