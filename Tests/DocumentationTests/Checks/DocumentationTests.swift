import Foundation
import Testing
import Trove

/// The README and the DocC catalog (`Sources/Trove/Trove.docc`) stay true: every Swift example
/// in them is compiled and run (it appears, line for line, in `Tests/DocumentationTests/Examples`),
/// every model file in them loads, and nothing in them points outside the repository.
@Suite struct DocumentationTests {
    /// Each ```swift block, without its `import` lines, appears line for line (indentation
    /// aside) in an example source: those are compiled and run as tests. A block inside an
    /// `#if PENDING_…` region there waits for a feature that has not landed.
    @Test func everySwiftBlockIsACompiledExample() throws {
        let sources = try DocumentationFiles.examplePaths().map { ExampleSource(path: $0, text: try DocumentationFiles.text(of: $0)) }
        try #require(!sources.isEmpty, "no example sources in \(DocumentationFiles.examples)")
        var checked = 0
        for path in try DocumentationFiles.markdownPaths() {
            for block in FencedBlock.blocks(in: try DocumentationFiles.text(of: path), path: path) where block.language == "swift" {
                let lines = block.codeLines
                checked += 1
                if sources.contains(where: { $0.firstIndex(of: lines) != nil }) { continue }
                Issue.record(Comment(rawValue: Self.mismatch(of: block, lines: lines, in: sources)))
            }
        }
        #expect(checked >= 20, "found only \(checked) Swift blocks; is the catalog where \(DocumentationFiles.catalog) says?")
    }

    /// Every ```json block of the catalog that declares entities is a model file that loads
    /// without warnings.
    @Test func everyModelFileInTheDocumentationLoads() throws {
        var checked = 0
        for path in try DocumentationFiles.markdownPaths() {
            for block in FencedBlock.blocks(in: try DocumentationFiles.text(of: path), path: path)
            where block.language == "json" && block.lines.contains(where: { $0.contains("\"entities\"") }) {
                checked += 1
                do {
                    let model = try Model(fileData: Data(block.lines.joined(separator: "\n").utf8))
                    #expect(model.warnings.isEmpty, "\(block.path):\(block.line): \(model.warnings)")
                } catch {
                    Issue.record("\(block.path):\(block.line): the model file does not load: \(error)")
                }
            }
        }
        #expect(checked >= 1)
    }

    /// Links are relative paths to files of the repository; no web address, nothing outside.
    @Test func linksStayInsideTheRepository() throws {
        for path in try DocumentationFiles.markdownPaths() {
            let text = try DocumentationFiles.text(of: path)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for outside in ["http://", "https://", "../shared", "DESIGN.md", "STYLE.md"] where line.contains(outside) {
                    Issue.record("\(path):\(number + 1): points outside the repository (\(outside)): \(line)")
                }
            }
            let folder = (path as NSString).deletingLastPathComponent
            for target in Self.linkTargets(in: text) where !target.hasPrefix("doc:") && !target.hasPrefix("#") {
                let file = String(target.split(separator: "#", maxSplits: 1).first ?? "")
                var resolved = ((folder as NSString).appendingPathComponent(file) as NSString).standardizingPath
                if folder.hasSuffix(".docc"), !DocumentationFiles.exists(resolved) {
                    // DocC finds an image by its name among the catalog's resources.
                    resolved = ((folder as NSString).appendingPathComponent("Resources/" + file) as NSString).standardizingPath
                }
                #expect(!resolved.hasPrefix("..") && DocumentationFiles.exists(resolved),
                        "\(path): the link \(target) leads to no file of the repository")
            }
        }
    }

    /// The README is a front page: at most 12 KB, opening with the two commands that work on
    /// a fresh machine.
    @Test func theReadmeIsAFrontPage() throws {
        let text = try DocumentationFiles.text(of: "README.md")
        #expect(text.utf8.count <= 12 * 1024, "README.md has \(text.utf8.count) bytes; at most 12 KiB: move the rest to the catalog")
        let first = try #require(FencedBlock.blocks(in: text, path: "README.md").first)
        #expect(first.lines.map { $0.split(separator: " ").prefix(1).joined() } == ["./scripts/demo", "./scripts/test"])
        for script in ["scripts/demo", "scripts/test"] {
            #expect(FileManager.default.isExecutableFile(atPath: DocumentationFiles.root.appendingPathComponent(script).path))
        }
        // The test command is swift test (with a PostgreSQL server around it), and CI runs it.
        #expect(try DocumentationFiles.text(of: "scripts/test").contains("\nswift test \"$@\""))
        #expect(try DocumentationFiles.text(of: ".ci/run").contains("\nscripts/test\n"))
    }

    /// The landing page lists every article of the catalog, and the README links to each.
    @Test func everyArticleIsListed() throws {
        let landing = try DocumentationFiles.text(of: "\(DocumentationFiles.catalog)/Trove.md")
        let readme = try DocumentationFiles.text(of: "README.md")
        let articles = try DocumentationFiles.markdownPaths().filter { $0.hasPrefix(DocumentationFiles.catalog) && !$0.hasSuffix("/Trove.md") }
        #expect(articles.count >= 12)
        for path in articles {
            let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            #expect(landing.contains("<doc:\(name)>"), "Trove.md's topics do not list \(path)")
            #expect(readme.contains("](\(path))"), "the README does not link to \(path)")
        }
    }

    /// The targets of the Markdown links `[text](target)` in `text`.
    static func linkTargets(in text: String) -> [String] {
        var targets: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "](") {
            let after = rest[open.upperBound...]
            guard let close = after.firstIndex(of: ")") else { break }
            targets.append(String(after[..<close]))
            rest = after[close...]
        }
        return targets
    }

    /// What differs between `block` and the example source that comes closest to it.
    static func mismatch(of block: FencedBlock, lines: [String], in sources: [ExampleSource]) -> String {
        let best = sources.map { ($0, $0.longestPrefix(of: lines)) }.max { $0.1.length < $1.1.length }
        var message = "\(block.path):\(block.line): this ```swift block appears in no file of \(DocumentationFiles.examples), so it is not compiled; copy it into an example test (see the catalog's article on documentation)."
        if let (source, match) = best, match.length > 0, match.length < lines.count {
            let found = match.start + match.length < source.lines.count ? source.lines[match.start + match.length] : "(end of file)"
            message += " Closest: \(source.path):\(match.start + 1), whose line \(match.start + match.length + 1) is `\(found)` where the block has `\(lines[match.length])`."
        }
        return message
    }
}
