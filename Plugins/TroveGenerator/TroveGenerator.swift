import Foundation
import PackagePlugin

/// Generates typed classes at build time from every `*.trove-model.json` file of a target.
///
/// For a model file `Photos.trove-model.json` with entities `Photographer` and `Photo`, the
/// target gets (internal access):
/// - `Photographer+Generated.swift` and `Photo+Generated.swift`: the machine classes
///   `_Photographer` and `_Photo`, as `trove generate` writes them;
/// - `Photographer.swift` and `Photo.swift`: the classes `class Photo: _Photo {}`, **unless the
///   target has a file of that name**: declare `class Photo: _Photo { … }` in your own
///   `Photo.swift` to add code to the class, and the plugin leaves it to you;
/// - `PhotosModelClasses`, the list of every class: `Container(…, classes: PhotosModelClasses.all)`.
///
/// Nothing is written to the package: the files live in the build folder and are compiled
/// with the target. `trove generate` stays for apps that commit their classes.
@main
struct TroveGenerator: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let ownFiles = Set(target.sourceFiles(withSuffix: "swift").map { $0.url.lastPathComponent })
        let tool = try context.tool(named: "TroveGeneratorTool")
        return try target.sourceFiles(withSuffix: ".trove-model.json").map { file in
            let modelName = file.url.lastPathComponent
            let output = context.pluginWorkDirectoryURL.appending(path: String(modelName.dropLast(".trove-model.json".count)))
            let entities = try entityNames(in: file.url)
            let own = entities.filter { ownFiles.contains("\($0).swift") }
            let classList = "\(modelName.dropLast(".json".count))-classes.swift"
            var outputs = entities.map { output.appending(path: "\($0)+Generated.swift") }
            outputs += entities.filter { !own.contains($0) }.map { output.appending(path: "\($0).swift") }
            outputs.append(output.appending(path: classList))
            return .buildCommand(
                displayName: "Generating Trove classes from \(modelName)",
                executable: tool.url,
                arguments: [file.url.path, output.path, classList] + own,
                inputFiles: [file.url],
                outputFiles: outputs)
        }
    }

    /// The entity names in a model file, read here because the outputs must be named before
    /// the tool runs; the tool reports every other problem of the file.
    private func entityNames(in url: URL) throws -> [String] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        guard let entities = (json as? [String: Any])?["entities"] as? [[String: Any]] else {
            throw GeneratorError("\(url.path): a model file is an object whose \"entities\" is a list of entities")
        }
        return entities.compactMap { $0["name"] as? String }
    }
}

/// A model file the plugin cannot read.
struct GeneratorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
