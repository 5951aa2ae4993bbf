import ArgumentParser
import Foundation
import Trove

/// `trove init STORE --model MODEL.json`: creates a store from a model file.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a new store from a model file.",
        discussion: "Fails without touching anything if STORE exists or the model has a problem (all problems are listed).")

    @OptionGroup var store: StoreArgument

    @Option(name: .long, help: ArgumentHelp("The model file (JSON) that describes the entities.", valueName: "MODEL.json"))
    var model: String

    func run() throws {
        let storeURL = store.url
        guard !FileManager.default.fileExists(atPath: storeURL.path) else {
            throw CLIFailure(.storeError, "\(store.store) already exists; remove it or choose another path")
        }
        let loaded: Model
        do {
            loaded = try Model(contentsOf: URL(fileURLWithPath: model))
        } catch {
            throw CLIFailure(.badInput, "\(model): \(error)\nfix the model file and run `trove init` again")
        }
        for warning in loaded.warnings {
            FileHandle.standardError.write(Data("trove: warning: \(model): \(warning)\n".utf8))
        }
        let created = try SQLiteStore(url: storeURL, model: loaded)
        let summary = "created \(store.store): \(created.model.entities.count) entities, model hash \(created.model.versionHash)\n"
        FileHandle.standardError.write(Data(summary.utf8))
    }
}
