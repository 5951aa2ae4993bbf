import Foundation
import Testing
import Trove
import TroveCodegen
import TroveTesting

/// The committed classes of the test models (the targets PhotosClasses, GraphClasses and
/// MediaClasses) are exactly what the generator writes now.
///
/// After a change to the generator or to a model, regenerate them with
/// `TROVE_REGENERATE_CLASSES=1 swift test --filter CommittedClassesTests`, and review the diff.
@Suite struct CommittedClassesTests {
    /// One model whose classes are committed.
    struct Fixture: Sendable, CustomTestStringConvertible {
        let folder: String
        let source: String
        let classListName: String
        let model: @Sendable () throws -> Model
        var testDescription: String { folder }
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let fixtures = [
        Fixture(folder: "Examples/Photos/Classes", source: "model.json", classListName: ClassGenerator.classListName(forModelFile: "model.json")) {
            try Model(contentsOf: packageRoot.appendingPathComponent("Examples/Photos/model.json"))
        },
        Fixture(folder: "Tests/GeneratedClasses/Graph", source: "SampleModels.graph()", classListName: "GraphModelClasses") { try SampleModels.graph() },
        Fixture(folder: "Tests/GeneratedClasses/Media", source: "SampleModels.media()", classListName: "MediaModelClasses") { try SampleModels.media() },
    ]

    @Test(arguments: fixtures) func theCommittedClassesAreWhatTheGeneratorWrites(_ fixture: Fixture) throws {
        let folder = Self.packageRoot.appendingPathComponent(fixture.folder)
        let generator = ClassGenerator(model: try fixture.model(), source: fixture.source, classListName: fixture.classListName, access: .public)
        let files = try generator.files()
        if ProcessInfo.processInfo.environment["TROVE_REGENERATE_CLASSES"] == "1" {
            for old in try FileManager.default.contentsOfDirectory(atPath: folder.path) where old.hasSuffix(".swift") {
                try FileManager.default.removeItem(at: folder.appendingPathComponent(old))
            }
            for file in files {
                try Data(file.contents.utf8).write(to: folder.appendingPathComponent(file.name))
            }
        }
        let committed = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(committed.sorted() == files.map(\.name).sorted(), "the files in \(fixture.folder)")
        for file in files {
            let text = try? String(contentsOf: folder.appendingPathComponent(file.name), encoding: .utf8)
            #expect(text == file.contents, "\(fixture.folder)/\(file.name) differs from what the generator writes: regenerate (see CommittedClassesTests)")
        }
    }

    /// The documentation's examples keep their own internal Photos classes (their `Photo.swift`
    /// holds the life-cycle example); the machine files among them are the generator's output.
    @Test func theDocumentationsMachineFilesAreWhatTheGeneratorWrites() throws {
        let folder = Self.packageRoot.appendingPathComponent("Tests/DocumentationTests/PhotosClasses")
        let model = try Model(contentsOf: Self.packageRoot.appendingPathComponent("Examples/Photos/model.json"))
        let generator = ClassGenerator(model: model, source: "model.json",
                                       classListName: ClassGenerator.classListName(forModelFile: "model.json"), access: .internal)
        let machine = try generator.files().filter { $0.name.hasSuffix("+Generated.swift") }
        #expect(machine.count == 3)
        for file in machine {
            let text = try? String(contentsOf: folder.appendingPathComponent(file.name), encoding: .utf8)
            #expect(text == file.contents, "Tests/DocumentationTests/PhotosClasses/\(file.name) differs from what `trove generate Examples/Photos/model.json` writes: copy the generated file there")
        }
    }
}
