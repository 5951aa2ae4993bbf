import ArgumentParser
import Foundation
import Trove

/// `trove inspect STORE`: shows a store's entities, row counts, model hash and metadata.
struct InspectCommand: ParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a store's entities, attributes, relationships, row counts and metadata.",
        discussion: "Reads the model the store keeps; needs no model file and changes nothing.")

    @OptionGroup var store: StoreArgument

    @Option(help: "Output format: text for people, json for programs.")
    var format: Format = .text

    func run() throws {
        // For reading only: needs no write access to the store, its folder or the disk.
        let report = try StoreReport(store: try store.open(readOnly: true), path: store.name)
        let output = format == .json ? report.json().serialized(pretty: true) : report.text()
        FileHandle.standardOutput.write(Data((output + "\n").utf8))
    }
}
