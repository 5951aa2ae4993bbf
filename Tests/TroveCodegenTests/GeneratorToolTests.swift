import Foundation
import Testing
import Trove
import TroveTesting

/// The build plugin's tool, run as the plugin runs it (Photomania builds with the plugin itself).
@Suite struct GeneratorToolTests {
    let dir: TemporaryDirectory
    let model: URL
    let output: URL

    init() throws {
        dir = try TemporaryDirectory()
        model = dir.file("Photos.trove-model.json")
        output = dir.file("out")
        try SampleModels.photos().fileData().write(to: model)
    }

    /// Runs the tool built next to the test bundle.
    func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("TroveGeneratorTool").path), folder.pathComponents.count > 1 {
            folder.deleteLastPathComponent()
        }
        let process = Process()
        process.executableURL = folder.appendingPathComponent("TroveGeneratorTool")
        process.arguments = arguments
        let stderr = Pipe()
        process.standardError = stderr
        try process.run()
        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, message)
    }

    func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
    }

    @Test func itWritesEveryFileButTheHumanFilesTheTargetHas() throws {
        let result = try run([model.path, output.path, "Photos.trove-model-classes.swift", "Photographer"])
        #expect(result.status == 0 && result.stderr.isEmpty)
        #expect(try names() == ["Photo+Generated.swift", "Photo.swift", "Photographer+Generated.swift", "Photos.trove-model-classes.swift"])
        let photo = try String(contentsOf: output.appendingPathComponent("Photo.swift"), encoding: .utf8)
        #expect(photo.contains("because the target has no Photo.swift of its own"))
        #expect(photo.contains("\nclass Photo: _Photo {}\n"))
        let list = try String(contentsOf: output.appendingPathComponent("Photos.trove-model-classes.swift"), encoding: .utf8)
        #expect(list.contains("enum PhotosModelClasses {"))
    }

    @Test func aBadModelIsReportedAsTheBuildShowsErrors() throws {
        try Data(#"{ "entities": [ { "name": "Photo", "attributes": [ { "name": "entity", "type": "string" } ] } ] }"#.utf8).write(to: model)
        let result = try run([model.path, output.path, "Photos.trove-model-classes.swift"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("\(model.path): error: classes cannot be generated from this model (1 problem):\n  - entity 'Photo', attribute 'entity'"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}
