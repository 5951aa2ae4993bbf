import ArgumentParser
import Foundation
import Trove
import TroveCodegen

/// `trove model`: commands about a model itself.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Show a model (from a model file or a store).",
        subcommands: [GraphCommand.self])
}

/// `trove model graph MODEL.json|STORE`: a picture of the model, as DOT, SVG or Mermaid.
struct GraphCommand: ParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case dot, svg, mermaid
    }

    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Draw a model: entities with their attributes, relationships, sub-entities.",
        discussion: """
            Reads a model file (a path ending in .json) or the model a store keeps (a store file, \
            a document package, or a postgres:// URL; opened for reading only). Each entity is a box listing its own \
            attributes as name: type (? marks an optional one, unique keys are underlined and \
            listed); a relationship and its inverse are one line labelled with both names, kinds \
            and delete rules, with the cardinality at each end (one arrowhead to-one, two \
            to-many); a sub-entity points to its parent with a hollow arrowhead.
            --format dot (the default) prints Graphviz DOT; svg runs Graphviz's `dot` (found on \
            PATH; Debian's package graphviz) to draw it; mermaid prints a Mermaid class diagram, \
            which GitHub renders in a ```mermaid block.
            Exit codes: 0 drawn; 1 usage errors, `dot` missing or failing; 2 a model file that \
            is not valid; 3 a store that cannot be read.
            Example: trove model graph Examples/Photos/model.json --format svg --output photos.svg
            """)

    @Argument(help: ArgumentHelp("A model file (.json), or a store: a store file, a document package or a postgres:// URL.", valueName: "MODEL.json|STORE"))
    var source: String

    @Option(help: "Output: dot (Graphviz text), svg (drawn by Graphviz's dot), or mermaid (a class diagram).")
    var format: Format = .dot

    @Option(help: ArgumentHelp("Write the picture to FILE instead of standard output.", valueName: "FILE"))
    var output: String?

    func validate() throws {
        if let output, output == source {
            throw ValidationError("--output \(output) would overwrite the model; choose another file")
        }
    }

    func run() throws {
        let text: String
        switch format {
        case .dot: text = ModelGraph.dot(try model())
        case .mermaid: text = ModelGraph.mermaid(try model())
        case .svg: text = try Self.draw(ModelGraph.dot(try model()))
        }
        let data = Data(text.utf8)
        guard let output else {
            FileHandle.standardOutput.write(data)
            return
        }
        do {
            try data.write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw CLIFailure(.usage, "cannot write \(output): \(error.localizedDescription); give a path in a folder you can write")
        }
    }

    /// The model of the model file, or the one the store keeps.
    private func model() throws -> Model {
        let url = URL(fileURLWithPath: source)
        guard url.pathExtension.lowercased() == "json", !source.contains("://") else {
            return try StoreLocation(source).open(readOnly: true).model
        }
        guard FileManager.default.fileExists(atPath: source) else {
            throw CLIFailure(.usage, "no model file at \(source); give a model file (.json) or a store")
        }
        return try Model(contentsOf: url)
    }

    /// The SVG Graphviz's `dot` draws from `dot` text.
    /// - Throws: a ``CLIFailure`` (usage) when `dot` is not on PATH or fails.
    static func draw(_ text: String) throws -> String {
        let searched = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        guard let path = searched.map({ URL(fileURLWithPath: $0).appendingPathComponent("dot").path })
            .first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw CLIFailure(.usage, "--format svg needs Graphviz's `dot`, which is not on PATH (\(searched.joined(separator: ":"))); install Debian's package graphviz (apt-get install graphviz), or print --format dot and draw it elsewhere")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-Tsvg"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw CLIFailure(.usage, "cannot run \(path): \(error.localizedDescription)")
        }
        // Written from another thread, so that a large drawing filling the output pipe cannot
        // block the writing of the input.
        let writer = Thread { [handle = input.fileHandleForWriting] in
            handle.write(Data(text.utf8))
            try? handle.close()
        }
        writer.start()
        let svg = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CLIFailure(.usage, "\(path) -Tsvg failed (exit \(process.terminationStatus)): \(String(decoding: message, as: UTF8.self))")
        }
        return String(decoding: svg, as: UTF8.self)
    }
}
