import ArgumentParser
import Foundation
import Trove
import TroveCodegen

/// `trove generate MODEL.json --output DIR`: writes the model's typed classes.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write typed classes for a model's entities.",
        discussion: """
            Per entity NAME: NAME+Generated.swift (the class _NAME, overwritten every time) and
            NAME.swift (the class NAME, for your code: written once, never overwritten); and a file
            listing every class for the container. Prints one line per file: wrote, unchanged, or
            kept (exists). Exit codes: 1 bad options or output folder, 2 a model problem or a name
            the classes cannot use (all are listed, nothing is written), 3 a file cannot be written.
            """)

    @Argument(help: ArgumentHelp("The model file (JSON) that describes the entities.", valueName: "MODEL.json"))
    var model: String

    @Option(name: .long, help: ArgumentHelp("The folder to write the classes to (created if missing).", valueName: "DIR"))
    var output: String

    @Option(name: .long, help: ArgumentHelp("The access level of the classes: internal for an app, public for a library target.",
                                            valueName: "internal|public"))
    var access = ClassGenerator.Access.internal.rawValue

    func validate() throws {
        guard ClassGenerator.Access(rawValue: access) != nil else {
            throw ValidationError("--access must be internal or public, not '\(access)'")
        }
    }

    func run() throws {
        let modelURL = URL(fileURLWithPath: model)
        let loaded: Model
        do {
            loaded = try Model(contentsOf: modelURL)
        } catch {
            throw CLIFailure(.badInput, "\(model): \(error)\nfix the model file and run `trove generate` again")
        }
        for warning in loaded.warnings {
            FileHandle.standardError.write(Data("trove: warning: \(model): \(warning)\n".utf8))
        }
        let fileName = modelURL.lastPathComponent
        let generator = ClassGenerator(model: loaded, source: fileName,
                                       classListName: ClassGenerator.classListName(forModelFile: fileName),
                                       access: ClassGenerator.Access(rawValue: access) ?? .internal)
        let files: [GeneratedFile]
        do {
            files = try generator.files()
        } catch {
            throw CLIFailure(.badInput, "\(model): \(error)\nrename them in the model file and run `trove generate` again")
        }
        let folder = try outputFolder()
        var report = ""
        for file in files {
            let url = folder.appendingPathComponent(file.name)
            let path = (output as NSString).appendingPathComponent(file.name)
            if FileManager.default.fileExists(atPath: url.path) {
                guard file.isOverwritten else {
                    report += "kept \(path) (exists; never overwritten)\n"
                    continue
                }
                if (try? Data(contentsOf: url)) == Data(file.contents.utf8) {  // unreadable: written again below
                    report += "unchanged \(path)\n"
                    continue
                }
            }
            do {
                try Data(file.contents.utf8).write(to: url, options: .atomic)
            } catch {
                FileHandle.standardOutput.write(Data(report.utf8))
                throw CLIFailure(.storeError, "cannot write \(path): \(error.localizedDescription)")
            }
            report += "wrote \(path)\n"
        }
        FileHandle.standardOutput.write(Data(report.utf8))
    }

    /// The output folder, created if missing.
    private func outputFolder() throws -> URL {
        let url = URL(fileURLWithPath: output, isDirectory: true)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CLIFailure(.usage, "--output \(output) is a file, not a folder; give a folder for the classes")
            }
            return url
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw CLIFailure(.storeError, "cannot create the folder \(output): \(error.localizedDescription)")
        }
        return url
    }
}
