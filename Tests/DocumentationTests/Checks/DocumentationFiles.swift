import Foundation

/// The repository's documentation and the example sources it is checked against.
enum DocumentationFiles {
    /// The repository's root folder.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .standardizedFileURL

    /// The documentation folder, relative to the root.
    static let catalog = "Sources/Trove/Trove.docc"
    /// The folder of the compiled examples (the test target), relative to the root.
    static let examples = "Tests/DocumentationTests"

    /// The README and every article of the catalog, as paths relative to the root.
    static func markdownPaths() throws -> [String] {
        ["README.md"] + (try files(in: catalog, ending: ".md"))
    }

    /// The example sources, as paths relative to the root.
    static func examplePaths() throws -> [String] {
        try files(in: examples, ending: ".swift")
    }

    /// The text of the file at `path` (relative to the root).
    static func text(of path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Whether a file or folder exists at `path` (relative to the root).
    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
    }

    private static func files(in folder: String, ending suffix: String) throws -> [String] {
        let names = try FileManager.default.subpathsOfDirectory(atPath: root.appendingPathComponent(folder).path)
        return names.filter { $0.hasSuffix(suffix) }.sorted().map { "\(folder)/\($0)" }
    }
}

/// A fenced code block of a Markdown file.
struct FencedBlock {
    /// The file it is in, relative to the repository's root.
    var path: String
    /// The line of its opening fence (from 1).
    var line: Int
    /// The fence's language (`swift`, `sh`, `json`, or empty).
    var language: String
    /// Its lines, without the fences.
    var lines: [String]

    /// The fenced blocks of `text` (a file at `path`), in order.
    static func blocks(in text: String, path: String) -> [FencedBlock] {
        var blocks: [FencedBlock] = []
        var open: FencedBlock?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = open {
                if trimmed == "```" {
                    blocks.append(block)
                    open = nil
                } else {
                    block.lines.append(String(line))
                    open = block
                }
            } else if trimmed.hasPrefix("```") {
                open = FencedBlock(path: path, line: number + 1, language: String(trimmed.dropFirst(3)), lines: [])
            }
        }
        return blocks
    }

    /// The lines that must appear in an example, in order and one after the other: each
    /// trimmed, without the leading `import` lines and blank lines (an example's imports sit
    /// at the top of its file).
    var codeLines: [String] {
        let trimmed = lines.map { $0.trimmingCharacters(in: .whitespaces) }
        return Array(trimmed.drop { $0.isEmpty || $0.hasPrefix("import ") })
    }
}

/// An example source, as trimmed lines, with the conditions each line is compiled under.
struct ExampleSource {
    var path: String
    var lines: [String]
    /// For each line, the `#if` condition it sits under that names a feature not landed yet
    /// (`PENDING_…`), or `nil` when the line is compiled.
    var pending: [String?]

    init(path: String, text: String) {
        self.path = path
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var stack: [String?] = []
        pending = lines.map { line in
            if line.hasPrefix("#if ") {
                let condition = String(line.dropFirst(4))
                stack.append(condition.hasPrefix("PENDING_") ? condition : nil)
            } else if line == "#endif" {
                _ = stack.popLast()
            }
            return stack.compactMap { $0 }.first
        }
    }

    /// Where `block` appears in this source: the index of its first line, or `nil`.
    func firstIndex(of block: [String]) -> Int? {
        guard !block.isEmpty, block.count <= lines.count else { return nil }
        return (0...(lines.count - block.count)).first { start in
            lines[start..<(start + block.count)].elementsEqual(block)
        }
    }

    /// How many of `block`'s first lines appear one after the other from some line of this
    /// source, and from which: for a message that shows the first line that differs.
    func longestPrefix(of block: [String]) -> (length: Int, start: Int) {
        var best = (length: 0, start: 0)
        for start in lines.indices {
            var length = 0
            while length < block.count, start + length < lines.count, lines[start + length] == block[length] { length += 1 }
            if length > best.length { best = (length, start) }
        }
        return best
    }
}
