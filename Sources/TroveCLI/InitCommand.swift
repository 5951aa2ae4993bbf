import ArgumentParser
import Foundation
import Trove

/// `trove init STORE --model MODEL.json`: creates a store from a model file.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a new store from a model file.",
        discussion: """
            Fails without touching anything if STORE exists or the model has a problem (all problems are listed). \
            For a postgres:// URL, creates the database when the server has none of that name (the user needs the \
            right to create databases then), and the store's tables in it; a database that holds a store, or other \
            tables, is refused (exit 3).
            Example: trove init postgres://trove@db.example.com:5432/photos --model model.json
            """)

    @OptionGroup var store: StoreArgument

    @Option(name: .long, help: ArgumentHelp("The model file (JSON) that describes the entities.", valueName: "MODEL.json"))
    var model: String

    func run() throws {
        let location = try store.location
        let loaded: Model
        do {
            loaded = try Model(contentsOf: URL(fileURLWithPath: model))
        } catch {
            throw CLIFailure(.badInput, "\(model): \(error)\nfix the model file and run `trove init` again")
        }
        for warning in loaded.warnings {
            FileHandle.standardError.write(Data("trove: warning: \(model): \(warning)\n".utf8))
        }
        let created = try location.create(model: loaded, name: store.name)
        let summary = "created \(store.name): \(created.model.entities.count) entities, model hash \(created.model.versionHash)\n"
        FileHandle.standardError.write(Data(summary.utf8))
    }
}
