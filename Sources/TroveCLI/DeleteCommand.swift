import ArgumentParser
import Foundation
import Trove

/// `trove delete STORE ENTITY --where PREDICATE`: deletes the objects a predicate selects,
/// applying delete rules, as one batch delete (SQL, without loading the objects).
struct DeleteCommand: PredicateArgumentsCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete the objects of an entity that match a predicate.",
        discussion: """
            Runs as one batch delete in the store, without loading the objects, all or nothing. \
            Each relationship's delete rule applies: cascade deletes related objects too \
            (recursively), nullify unlinks them, deny stops the whole delete while a related \
            object would remain (exit 2, naming it). Prints how many objects were deleted on \
            stderr. --where is required; --where TRUEPREDICATE deletes every object of the entity.
            """)

    @OptionGroup var store: StoreArgument

    @Argument(help: ArgumentHelp("The entity whose objects to delete.", valueName: "entity"))
    var entity: String

    @Option(name: .customLong("where"),
            help: ArgumentHelp("A predicate in Apple's format syntax selecting the objects to delete.", valueName: "PREDICATE"))
    var predicate: String

    @Option(name: .customLong("arg"), parsing: .unconditionalSingleValue,  // so that `--arg -5` is a value
            help: ArgumentHelp("A value for the next %@ of --where, read as the type of the key it is compared with. Repeat for each %@; a value may start with '-' (--arg -5).",
                               valueName: "VALUE"))
    var predicateArguments: [String] = []

    @Flag(help: "Delete nothing: print the objects that would be deleted (with those delete rules reach) on stdout.")
    var dryRun = false

    func run() throws {
        let selected = try Selection(store: store, readOnly: false, entityName: entity, predicate: predicate, arguments: predicateArguments)
        let context = try Container(store: selected.store).newBackgroundContext()
        guard !dryRun else { return try preview(selected, in: context) }
        let request = BatchDeleteRequest(entityName: selected.fetchRequest.entityName, predicate: selected.fetchRequest.predicate,
                                         includesSubentities: selected.fetchRequest.includesSubentities)
        let result: BatchResult
        do {
            result = try context.execute(request)
        } catch let error as TroveContext.ValidationError {
            throw CLIFailure(.badInput, "\(error.description)\nnothing was deleted")
        }
        let summary = Self.summary(matched: result.count, of: selected.entity.name, reached: result.count + result.cascadedObjectIDs.count)
        FileHandle.standardError.write(Data("deleted \(summary)\n".utf8))
    }

    /// `--dry-run`: the objects the delete would remove, found by deleting them in a context
    /// that is never saved.
    private func preview(_ selected: Selection, in context: ObjectContext) throws {
        let matches = Array(try context.fetch(selected.fetchRequest))
        for object in matches { try context.delete(object) }
        let summary = Self.summary(matched: matches.count, of: selected.entity.name, reached: context.deletedObjects.count)
        let matched = Set(matches.map(\.objectID))
        let others = context.deletedObjects.map(\.objectID).filter { !matched.contains($0) }
            .sorted { ($0.entityName, $0.primaryKey ?? 0) < ($1.entityName, $1.primaryKey ?? 0) }
        let lines = (matches.map(\.objectID) + others).map { "\($0)\n" }.joined()
        FileHandle.standardOutput.write(Data(lines.utf8))
        try Self.checkDenyRules(of: context.deletedObjects)
        FileHandle.standardError.write(Data("would delete \(summary) (dry run: nothing deleted)\n".utf8))
    }

    /// "2 Photographer objects and 3 related objects by delete rules".
    static func summary(matched: Int, of entityName: String, reached: Int) -> String {
        var text = "\(matched) \(entityName) object\(matched == 1 ? "" : "s")"
        let more = reached - matched
        if more > 0 { text += " and \(more) related object\(more == 1 ? "" : "s") by delete rules" }
        return text
    }

    /// What a save would say of `deny` rules, without saving: a deleted object whose `deny`
    /// relationship still holds objects that are not deleted.
    /// - Throws: the ``TroveContext/ValidationError`` the save would throw (exit 2).
    static func checkDenyRules(of deleted: Set<ManagedObject>) throws {
        var failures: [TroveContext.ValidationError.Failure] = []
        for object in deleted.sorted(by: { $0.objectID.description < $1.objectID.description }) {
            for relationship in object.entity.relationships where relationship.deleteRule == .deny {
                let related = relationship.isToMany
                    ? try object.relatedObjects(forKey: relationship.name)
                    : try object.relatedObject(forKey: relationship.name).map { [$0] } ?? []
                let blocking = related.filter { !$0.isDeleted }
                guard !blocking.isEmpty else { continue }
                failures.append(.init(
                    objectID: object.objectID, key: relationship.name, rule: .deny,
                    message: "cannot delete: \(relationship.name) still holds \(blocking.map(\.objectID.description).joined(separator: ", ")) and its delete rule is deny; remove them first"))
            }
        }
        if !failures.isEmpty { throw CLIFailure(.badInput, TroveContext.ValidationError(failures: failures).description) }
    }
}
