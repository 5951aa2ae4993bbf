// The TroveGenerator build plugin's tool: writes a model file's typed classes at build time.
//
//     TroveGeneratorTool MODEL.json OUTPUT_DIR CLASS_LIST_FILE [ENTITY_WITH_OWN_FILE...]
//
// writes, in OUTPUT_DIR, NAME+Generated.swift for every entity, NAME.swift for every entity not
// listed after CLASS_LIST_FILE (the target declares those classes itself), and the class list
// as CLASS_LIST_FILE. The plugin names these outputs before the build runs; this tool writes
// exactly them. Problems go to stderr in the compiler's `file: error: message` form, exit 1.
import Foundation
import TroveCodegen
import TroveModel

/// Reports `message` as an error on `file` the way build logs show them, and exits.
func fail(_ file: String, _ message: String) -> Never {
    FileHandle.standardError.write(Data("\(file): error: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 3 else {
    fail("TroveGeneratorTool", "usage: TroveGeneratorTool MODEL.json OUTPUT_DIR CLASS_LIST_FILE [ENTITY_WITH_OWN_FILE...]")
}
let modelPath = arguments[arguments.startIndex]
let output = URL(fileURLWithPath: arguments[arguments.startIndex + 1], isDirectory: true)
let classListFile = arguments[arguments.startIndex + 2]
let ownHumanFiles = Set(arguments.dropFirst(3).map { "\($0).swift" })

let modelURL = URL(fileURLWithPath: modelPath)
let model: Model
do {
    model = try Model(contentsOf: modelURL)
} catch {
    fail(modelPath, "\(error)")
}
let fileName = modelURL.lastPathComponent
let classListName = ClassGenerator.classListName(forModelFile: fileName)
let generator = ClassGenerator(model: model, source: fileName, classListName: classListName, origin: .buildPlugin)
do {
    let files = try generator.files()
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    for file in files where !ownHumanFiles.contains(file.name) {
        let name = file.name == "\(classListName).swift" ? classListFile : file.name
        let url = output.appendingPathComponent(name)
        // Unchanged files keep their date, so the compiler does not build them again.
        if (try? Data(contentsOf: url)) == Data(file.contents.utf8) { continue }
        try Data(file.contents.utf8).write(to: url, options: .atomic)
    }
} catch {
    fail(modelPath, "\(error)")
}
