import ArgumentParser
import Foundation
import Trove

/// `trove import STORE INPUT|- --entity NAME`: pours JSON records into an entity of a store,
/// driven by the store's model, and reports what it did.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import JSON records into an entity of a store.",
        discussion: """
            INPUT (or standard input, for -) holds an array of records, one record (an object), \
            or, with --root, an object with the array at a key path; with --ndjson, one record \
            per line. The input is streamed: memory stays flat whatever its size. The store's \
            model drives: unknown keys are ignored and counted, absent keys leave values alone, \
            null clears, values are coerced to their attribute's type, and objects are found by \
            their unique keys or created. A record that cannot be imported whole is rejected with \
            its index, JSON path and reason; the others still land.
            Each batch is saved in one transaction together with a checkpoint: if the import is \
            interrupted (killed, a crash, a power cut), running the same command again resumes \
            just after the last saved batch; --restart starts over. `trove inspect` shows checkpoints. \
            One import of a file runs at a time: a second import of the same file waits for the \
            first to finish (saying so), then starts over, or resumes if the first was killed.
            --dry-run runs the whole import on a copy of the store (in TMPDIR; on PostgreSQL, in \
            a schema of its own in the database) and reports it exactly as a \
            real run would (summary, --rejects and --report files, exit code), leaving the store \
            as it was (no checkpoint either).
            Prints progress (a bar when stderr is a terminal, else a line every few seconds) and \
            a summary on stderr. Exit codes: 0 every record imported; 2 some records rejected \
            (the rest landed), --strict stopped, the input is not JSON (the records before the \
            fault landed), or --root leads nowhere; 1 usage errors (unknown entity, bad \
            --sync-scope, unreadable INPUT); 3 store errors (a missing store is not created: run \
            `trove init` first).
            Example: trove import photos.trove photos.json --entity Photo --root photos.photo --rejects rejects.ndjson
            """)

    @OptionGroup var store: StoreArgument

    @Argument(help: ArgumentHelp("The JSON file to import, or - to read standard input.", valueName: "INPUT|-"))
    var input: String

    @Option(help: ArgumentHelp("The entity the top-level records become (`trove inspect` lists them).", valueName: "NAME"))
    var entity: String

    @Option(help: ArgumentHelp("A dotted key path to the array of records inside the input, such as photos.photo.", valueName: "KEY.PATH"))
    var root: String?

    @Flag(help: "Read INPUT as NDJSON: one record per line (blank lines are skipped).")
    var ndjson = false

    @Option(help: ArgumentHelp("Records per saved batch, 1 to 100000 (default 1000): each batch is one transaction, with the checkpoint, and unique keys are looked up once per batch.",
                               valueName: "N"))
    var batchSize = ImportOptions().batchSize

    @Flag(help: "Start from the first record even if an interrupted import of this input left a checkpoint.")
    var restart = false

    @Flag(help: "Stop at the first rejected record, writing nothing of its batch (earlier batches stay saved).")
    var strict = false

    @Option(help: ArgumentHelp("After the import, delete the objects of the entity that match this predicate and were not in the input (nothing is deleted if any record was rejected).",
                               valueName: "PREDICATE"))
    var syncScope: String?

    @Option(help: ArgumentHelp("Write the rejected records to FILE as NDJSON, one original record a line, to fix and import again (an empty file when none was rejected).",
                               valueName: "FILE"))
    var rejects: String?

    @Option(help: ArgumentHelp("Write the import report to FILE as JSON: counts per entity, coercions, unknown keys, rejections.",
                               valueName: "FILE"))
    var report: String?

    @Flag(help: "Print no summary; errors and rejections are still reported.")
    var quiet = false

    @Flag(help: "Run the whole import and report it (summary, --rejects, --report, exit code) as a real run would, writing nothing to the store: it runs on a copy of the store in the temporary directory (TMPDIR needs room for one).")
    var dryRun = false

    func validate() throws {
        let sizes = ImportOptions.batchSizes
        if !sizes.contains(batchSize) {
            throw ValidationError("--batch-size must be from \(sizes.lowerBound) to \(sizes.upperBound), not \(batchSize)")
        }
        if ndjson && root != nil { throw ValidationError("--root picks an array inside JSON text; NDJSON has one record per line, so give one or the other") }
        if let rejects, let report, rejects == report {
            throw ValidationError("--rejects and --report name the same file, \(rejects); give each its own")
        }
        for (option, path) in [("--rejects", rejects), ("--report", report)] {
            guard let path else { continue }
            if path == input || path == store.store {
                throw ValidationError("\(option) \(path) would overwrite the \(path == input ? "input" : "store"); choose another file")
            }
        }
    }

    func run() throws {
        let location = try store.location
        // A dry run only reads the store, to copy it: an SQLite file opened for reading cannot be written.
        let opened = try location.open(readOnly: dryRun)
        let model = opened.model
        let target = try Selection.entity(named: entity, in: model, of: store)
        if target.isAbstract {
            let concrete = model.entities.filter { !$0.isAbstract && $0.isKind(of: target) }.map(\.name)
            throw CLIFailure(.usage, "\(target.name) is abstract and cannot be imported into; use one of its sub-entities: \(concrete.joined(separator: ", "))")
        }
        let scope = try syncScope.map { try Self.scopePredicate($0, for: target, in: model) }
        let source = try inputSource()
        // Opened before any work, so that a path that cannot be written stops the command here.
        let outputs = try ImportOutputs(rejects: rejects, report: report)

        var options = ImportOptions(batchSize: batchSize, strict: strict, syncScope: scope, dryRun: dryRun)
        if rejects != nil || report != nil { options.onRejected = { try outputs.add($0) } }
        let importer = Importer(context: try Container(store: opened).newBackgroundContext(), options: options)
        let format: RecordFormat = ndjson ? .ndjson : .json(root: root)
        let meter = quiet ? nil : ProgressMeter(input: inputName)
        var outcome: ImportReport
        var stopped: (reason: String, message: String)?
        do {
            outcome = try importer.importStream(source, into: target.name, format: format, resume: restart ? .restart : .resume,
                                                progress: meter.map { meter in { meter.show($0) } })
        } catch let error as ImportError where error.report != nil && [.recordRejected, .invalidJSON].contains(error.code) {
            outcome = error.report ?? ImportReport()
            stopped = (error.code == .recordRejected ? "--strict" : "invalid JSON", error.message)
        } catch {
            meter?.finish()
            // The batches saved before the failure are not imported again on resuming: their
            // rejected records stay in the rejects file.
            outputs.keepRejects()
            throw (error as? ImportError).map(failure(for:)) ?? error
        }
        meter?.finish()

        try outputs.finish(outcome)
        if !quiet {
            let summary = ImportSummary(report: outcome, input: inputName, entity: target.name, root: root,
                                        syncScope: syncScope, stoppedBy: stopped?.reason, rejectsFile: rejects, reportFile: report,
                                        dryRun: dryRun)
            FileHandle.standardError.write(Data(summary.text().utf8))
        }
        if let stopped {
            let advice = stopped.reason == "--strict" ? "fix the record and import again" : "fix the input and import it again"
            throw CLIFailure(.badInput, "\(inputName): \(stopped.message); \(advice)")
        }
        guard outcome.rejectedCount == 0 else {
            let count = outcome.rejectedCount
            let hint = rejects.map { "fix them in \($0) and import that file again" } ?? "--rejects FILE writes them out to fix and import again"
            let verb = count == 1 ? "was" : "were"
            throw CLIFailure(.badInput, "\(inputName): \(count) of \(outcome.recordsRead) records \(verb) rejected and the other \(outcome.recordsImported) imported; \(hint)")
        }
    }

    // MARK: Input and output

    /// How the input is named in messages.
    var inputName: String { input == "-" ? "standard input" : input }

    /// The input to stream.
    /// - Throws: a ``CLIFailure`` with status 1 when INPUT is not a readable file.
    private func inputSource() throws -> ImportInput {
        if input == "-" { return .standardInput }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else {
            throw CLIFailure(.usage, "no input file at \(input); give a JSON file, or - to read standard input")
        }
        guard !isDirectory.boolValue else {
            throw CLIFailure(.usage, "\(input) is a directory; give a JSON file, or - to read standard input")
        }
        guard FileManager.default.isReadableFile(atPath: input) else {
            throw CLIFailure(.usage, "cannot read \(input): permission denied")
        }
        return .file(URL(fileURLWithPath: input))
    }

    // MARK: Errors

    /// The `--sync-scope` predicate, checked against the entity.
    /// - Throws: a ``CLIFailure`` with status 1 and the caret under the column at fault.
    private static func scopePredicate(_ format: String, for entity: Entity, in model: Model) throws -> ObjectPredicate {
        guard !entity.uniqueBy.isEmpty else {
            throw CLIFailure(.usage, "--sync-scope needs \(entity.name) to have a unique key (uniqueBy), to know which objects the input names")
        }
        do {
            let parsed = try ObjectPredicate(format: format, textArguments: [], for: entity, in: model)
            _ = try parsed.checked(for: entity, in: model)
            return parsed
        } catch {
            throw CLIFailure(CLIFailure.status(of: error), "--sync-scope: \(error)")
        }
    }

    /// The exit status and message for an import that could not run.
    private func failure(for error: ImportError) -> CLIFailure {
        switch error.code {
        case .invalidJSON: CLIFailure(.badInput, "\(inputName): \(error.message)")
        case .rootNotFound: CLIFailure(.badInput, "\(inputName): \(error.message)")
        case .unknownEntity, .syncScope, .unreadableInput, .invalidOptions: CLIFailure(.usage, error.message)
        case .unknownTransformer:
            CLIFailure(.badInput, "\(error.message); `trove import` knows only the standard transformers, so import with the library to register others")
        default: CLIFailure(.storeError, error.message)
        }
    }
}
