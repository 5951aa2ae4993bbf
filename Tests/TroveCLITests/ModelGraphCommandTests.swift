import Foundation
import Testing
import Trove
import TroveTesting

/// `trove model graph` (issue 21, item 6): DOT, Mermaid and SVG from a model file or a store.
@Suite struct ModelGraphCommandTests {
    let dir: TemporaryDirectory
    static let model = ImportCommandTests.sampleModel.path
    /// Graphviz's `dot` on PATH, if there is one.
    static let dot = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/dot" }.first(where: FileManager.default.isExecutableFile(atPath:))

    init() throws {
        dir = try TemporaryDirectory()
    }

    func run(_ arguments: String..., environment: [String: String] = [:]) throws -> CLIRunner.Result {
        try CLIRunner.run(arguments, in: dir.url, environment: environment)
    }

    @Test func aModelFileAndItsStoreDrawTheSame() throws {
        let dot = try run("model", "graph", Self.model)
        #expect(dot.status == 0 && dot.stderr.isEmpty, "\(dot.stderr)")
        #expect(dot.stdout.hasPrefix("digraph Model {\n"))
        #expect(dot.stdout.contains(#"  "Photographer" -> "Photo" [label="photos (to-many, cascade)\nwhoTook (to-one, nullify)""#))
        let mermaid = try run("model", "graph", Self.model, "--format", "mermaid")
        #expect(mermaid.stdout.hasPrefix("classDiagram\n"))
        #expect(mermaid.stdout.contains(#"  Photographer "0..1" -- "*" Photo : photos (to-many, cascade) / whoTook (to-one, nullify)"#))

        #expect(try run("init", "photos.trove", "--model", Self.model).status == 0)
        #expect(try run("model", "graph", "photos.trove").stdout == dot.stdout)
        let written = try run("model", "graph", "photos.trove", "--format", "mermaid", "--output", "photos.mmd")
        #expect(written.status == 0 && written.stdout.isEmpty)
        #expect(try String(decoding: Data(contentsOf: dir.file("photos.mmd")), as: UTF8.self) == mermaid.stdout)
    }

    @Test(.enabled(if: dot != nil, "needs Graphviz (apt-get install graphviz)"))
    func svgIsDrawnByGraphviz() throws {
        let svg = try run("model", "graph", Self.model, "--format", "svg", "--output", "photos.svg")
        #expect(svg.status == 0, "\(svg.stderr)")
        let text = try String(decoding: Data(contentsOf: dir.file("photos.svg")), as: UTF8.self)
        #expect(text.contains("<svg") && text.contains(">Photographer<") && text.contains(">photos (to&#45;many, cascade)<"))
    }

    @Test func svgWithoutGraphvizNamesThePackage() throws {
        let svg = try run("model", "graph", Self.model, "--format", "svg", environment: ["PATH": dir.url.path])
        #expect(svg.status == 1 && svg.stdout.isEmpty)
        #expect(svg.stderr.contains("--format svg needs Graphviz's `dot`, which is not on PATH") && svg.stderr.contains("apt-get install graphviz"))
    }

    @Test func badSourcesAreClearErrors() throws {
        try Data(#"{"entities": [{"name": "A", "colour": 1}]}"#.utf8).write(to: dir.file("bad.json"))
        let bad = try run("model", "graph", "bad.json")
        #expect(bad.status == 2 && bad.stderr.contains("colour"), "\(bad.stderr)")
        let missing = try run("model", "graph", "missing.json")
        #expect(missing.status == 1 && missing.stderr.contains("no model file at missing.json"))
        let noStore = try run("model", "graph", "missing.trove")
        #expect(noStore.status == 3 && noStore.stderr.contains("no store at"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("missing.trove").path), "nothing is created")
    }
}
