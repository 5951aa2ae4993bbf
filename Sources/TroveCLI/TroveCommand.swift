import ArgumentParser
import Foundation
import Trove
import TroveContext

/// The `trove` command: create, inspect, import into and query Trove stores.
@main
struct TroveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trove",
        abstract: "Keep an object graph in a Trove store, pour JSON into it, and generate its typed classes.",
        discussion: """
            Exit codes: 0 success, 1 usage error, 2 bad input, 3 store error, 4 conflict.
            Data goes to stdout; progress and diagnostics go to stderr.
            """,
        version: "0.1.0",
        subcommands: [InitCommand.self, InspectCommand.self, ImportCommand.self, QueryCommand.self, ExportCommand.self, CountCommand.self, DeleteCommand.self, MigrateCommand.self,
                      GenerateCommand.self, ModelCommand.self])

    /// Runs the command, mapping every failure to the exit codes of DESIGN.md's contract.
    static func main() {
        do {
            let (arguments, values) = PredicateArguments.split(Array(CommandLine.arguments.dropFirst()))
            var command = try parseAsRoot(arguments)
            if let values, var takingArguments = command as? any PredicateArgumentsCommand {
                takingArguments.predicateArguments = values
                command = takingArguments
            }
            try command.run()
        } catch let failure as CLIFailure {
            FileHandle.standardError.write(Data("trove: \(failure.message)\n".utf8))
            Foundation.exit(failure.status.rawValue)
        } catch {
            if let failure = CLIFailure(error) {
                FileHandle.standardError.write(Data("trove: \(failure.message)\n".utf8))
                Foundation.exit(failure.status.rawValue)
            }
            // Help, version, and usage errors from the argument parser.
            let code = exitCode(for: error)
            guard code == .success else {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}

/// The exit codes of the command-line contract.
enum ExitStatus: Int32 {
    case success = 0
    case usage = 1
    case badInput = 2
    case storeError = 3
    case conflict = 4
}

/// A failure to report on stderr with its exit status.
struct CLIFailure: Error {
    let status: ExitStatus
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// A predicate that does not parse or fit is a usage error; one past Trove's limits, or
    /// whose `MATCHES` could not be decided, is bad input.
    static func status(of error: ObjectPredicateError) -> ExitStatus {
        error.code == .tooLarge || error.code == .regexGaveUp ? .badInput : .usage
    }

    /// The failure for one of Trove's errors; `nil` for errors of the argument parser.
    init?(_ error: any Error) {
        switch error {
        case let error as StoreError: self.init(.storeError, error.message)
        case let error as ConflictError: self.init(.conflict, error.description)
        case let error as ModelError: self.init(.badInput, error.description)
        case let error as TroveContext.ValidationError: self.init(.badInput, error.description)
        case let error as ObjectError: self.init(.badInput, error.message)
        case let error as ObjectPredicateError: self.init(Self.status(of: error), error.description)
        case is ArgumentParser.ValidationError, is CleanExit, is ExitCode: return nil
        default:
            guard String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") else {
                self.init(.storeError, "\(error)")
                return
            }
            return nil
        }
    }
}

/// Where a store lives: the `STORE` argument every subcommand takes.
struct StoreArgument: ParsableArguments {
    @Argument(help: "The store file (SQLite), or a document package (a Name.trove folder holding Document.json).")
    var store: String

    /// The store file: the argument, or the store inside the document package it names.
    var url: URL { Document.storeURL(for: URL(fileURLWithPath: store)) }
}
