import ArgumentParser
import Foundation
import Trove

/// `trove count STORE ENTITY`: prints how many objects a predicate selects.
struct CountCommand: PredicateArgumentsCommand {
    static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Print the number of objects of an entity that match a predicate.",
        discussion: "Prints the number alone. The store counts; no object is read.")

    @OptionGroup var store: StoreArgument
    @OptionGroup var selection: SelectionOptions

    var predicateArguments: [String] {
        get { selection.arguments }
        set { selection.arguments = newValue }
    }

    func run() throws {
        let selected = try Selection(store: store, readOnly: true, entityName: selection.entity,
                                     predicate: selection.predicate, arguments: selection.arguments)
        let count = try Container(store: selected.store).newBackgroundContext().count(for: selected.fetchRequest)
        FileHandle.standardOutput.write(Data("\(count)\n".utf8))
    }
}
