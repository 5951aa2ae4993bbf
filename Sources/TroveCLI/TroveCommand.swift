import ArgumentParser
import Foundation
import Trove
import TroveContext
import TrovePostgres

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
        } catch {
            if let failure = error as? CLIFailure ?? CLIFailure(error) {
                report("trove: \(failure.message)")
                Foundation.exit(failure.status.rawValue)
            }
            // Help, version, and usage errors from the argument parser.
            let code = exitCode(for: error)
            guard code == .success else {
                report(fullMessage(for: error))
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }

    /// Writes `message` on stderr, any password of a `postgres://` URL in it hidden: the
    /// argument parser quotes arguments, and a driver's error might quote a URL.
    private static func report(_ message: String) {
        FileHandle.standardError.write(Data((hidingPasswords(in: message) + "\n").utf8))
    }

    /// `text` with the password of every `postgres://USER:PASSWORD@` in it replaced by `***`.
    static func hidingPasswords(in text: String) -> String {
        text.replacing(/(postgres(?:ql)?:\/\/[^\s:@\/]*:)\S*@/.ignoresCase()) { match in "\(match.output.1)***@" }
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
    @Argument(help: ArgumentHelp(
        "The store: an SQLite file, a document package (a Name.trove folder holding Document.json), or a PostgreSQL database, postgres://USER@HOST:PORT/DATABASE (what the URL leaves out, the password too, comes from PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE; no password is ever printed).",
        valueName: "store"))
    var store: String

    /// Where the store is.
    /// - Throws: ``StoreError`` (exit 3) for a URL that is neither a file path nor PostgreSQL's.
    var location: StoreLocation {
        get throws { try StoreLocation(store) }
    }

    /// The argument as messages show it: a URL's password hidden.
    var name: String { PostgresLocation.redacted(store) }

    /// Opens the store with the model it keeps (see ``StoreLocation/open(readOnly:)``).
    func open(readOnly: Bool) throws -> any PersistentStore {
        try location.open(readOnly: readOnly)
    }
}
