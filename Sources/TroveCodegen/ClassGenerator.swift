public import TroveModel

/// Writes the Swift source of a model's typed classes: pure, no I/O (model in, files out).
///
/// For each entity `Photo` it writes two files, mogenerator's split:
/// - `Photo+Generated.swift`, the machine class `_Photo` (a subclass of `ManagedObject`, or of
///   the parent entity's class for a sub-entity) with a typed property per attribute and
///   relationship, Xcode's to-many mutators, `entityName`, `generatedSignature` and
///   `modelKeyPath(for:)`. It is regenerated every time: its first line says so.
/// - `Photo.swift`, the human class `class Photo: _Photo {}`, where the app's own code goes. It
///   is written once; ``GeneratedFile/isOverwritten`` is `false` so writers keep an existing one.
///
/// and one file listing every class, for the container (see ``classListName(forModelFile:)``):
/// ```swift
/// let container = try Container(model: model, url: url, classes: PhotosModelClasses.all)
/// ```
///
/// An attribute's property is optional exactly when ``Attribute/hasOptionalProperty``. A
/// non-optional property whose value is nil (a required attribute not yet set, or a fault
/// that could not be filled) reads as a fixed empty value: `""` for strings, `0` for numbers,
/// `false`, `Date(timeIntervalSince1970: 0)`, empty `Data`, the nil UUID
/// (`00000000-0000-0000-0000-000000000000`), the URL `file:///`, the character U+0000 and
/// `JSONValue.null`.
///
/// Names that are Swift keywords (`default`, `class`) are escaped with backquotes. Names the
/// generated code cannot use are refused with a ``CodeGenerationError`` listing them all: a
/// property named like a `ManagedObject` member (`entity`, `context`, `objectID`,
/// `description`, …) or `Type`/`Protocol`/`Self`/`self`, an entity named like a type the
/// generated code uses (`Date`, `Set`, `ManagedObject`, …), or two members of one class with
/// one name (a property `addToPhotos` next to the mutator of `photos`).
public struct ClassGenerator: Sendable {
    /// Who writes the files, which decides what their comments tell the reader.
    public enum Origin: Sendable, Hashable {
        /// `trove generate`: the human files belong to the app once written.
        case command
        /// The `TroveGenerator` build plugin: every file is made at build time.
        case buildPlugin
    }

    /// The access level of the generated declarations.
    public enum Access: String, Sendable, Hashable, CaseIterable {
        /// For classes used inside the module that holds them (an app).
        case `internal`
        /// For classes a library target shares with its clients.
        case `public`
    }

    /// The model the classes are generated from.
    public let model: Model
    /// The model file's name (`model.json`), quoted in the files' first line.
    public let source: String
    /// The name of the enum whose `all` lists every class (``classListName(forModelFile:)``).
    public let classListName: String
    /// The access level of every generated declaration.
    public let access: Access
    /// Who writes the files.
    public let origin: Origin

    /// A generator for `model`, read from the file named `source`.
    public init(model: Model, source: String, classListName: String, access: Access = .internal, origin: Origin = .command) {
        self.model = model
        self.source = source
        self.classListName = classListName
        self.access = access
        self.origin = origin
    }

    /// The name of the class-list enum for a model file: the file's name without its
    /// extensions (`.json`, `.trove-model`), in upper camel case, with `Model` appended unless
    /// it ends so already, then `Classes`: `photos.json` → `PhotosModelClasses`,
    /// `Photos.trove-model.json` → `PhotosModelClasses`, `model.json` → `ModelClasses`,
    /// `my-library.json` → `MyLibraryModelClasses`.
    public static func classListName(forModelFile fileName: String) -> String {
        var base = Substring(fileName.split(separator: "/").last ?? "")
        for suffix in [".json", ".trove-model"] where base.hasSuffix(suffix) {
            base = base.dropLast(suffix.count)
        }
        let words = base.split(whereSeparator: { !($0.isASCII && ($0.isLetter || $0.isNumber)) })
        var name = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if name.isEmpty || name.first?.isNumber == true { name = "Trove" + name }
        if !name.hasSuffix("Model") { name += "Model" }
        return name + "Classes"
    }

    /// Every file: per entity its machine and human file, in model order, then the class list.
    /// - Throws: ``CodeGenerationError`` listing every name the generated code cannot use.
    public func files() throws(CodeGenerationError) -> [GeneratedFile] {
        let problems = NameCheck(model: model, classListName: classListName).problems()
        guard problems.isEmpty else { throw CodeGenerationError(problems: problems) }
        var files: [GeneratedFile] = []
        for entity in model.entities {
            files.append(GeneratedFile(name: "\(entity.name)+Generated.swift", contents: machineFile(entity), isOverwritten: true))
            files.append(GeneratedFile(name: "\(entity.name).swift", contents: humanFile(entity), isOverwritten: origin == .buildPlugin))
        }
        files.append(GeneratedFile(name: "\(classListName).swift", contents: classListFile(), isOverwritten: true))
        return files
    }

    // MARK: Files

    /// The first line of every overwritten file.
    private func header(_ entity: Entity?) -> String {
        switch origin {
        case .command:
            let own = entity.map { " Your code goes in \($0.name).swift." } ?? ""
            return "// Generated by `trove generate` from \(source): do not edit, this file is overwritten.\(own)\n"
        case .buildPlugin:
            return "// Generated by the TroveGenerator build plugin from \(source) at build time: do not edit.\n"
        }
    }

    /// `public ` or nothing, before each declaration.
    var modifier: String { access == .public ? "public " : "" }

    /// The imports of a file whose declarations use Foundation's types when `usesFoundation`:
    /// a public file imports publicly only what its public declarations show.
    private func imports(usesFoundation: Bool, usesTrove: Bool) -> String {
        let foundation = access == .public && usesFoundation ? "public import Foundation" : "import Foundation"
        let trove = access == .public && usesTrove ? "public import Trove" : "import Trove"
        return "\(foundation)\n\(trove)\n"
    }

    private func humanFile(_ entity: Entity) -> String {
        let doc: String
        switch origin {
        case .command:
            doc = """
                /// An object of entity '\(entity.name)'. Add your own code here: `trove generate` never overwrites this file.
                """
        case .buildPlugin:
            doc = """
                // Generated by the TroveGenerator build plugin from \(source) at build time, because the target has no \(entity.name).swift of its own.

                /// An object of entity '\(entity.name)'. To add code, put `class \(entity.name): _\(entity.name) {}` in a file \(entity.name).swift of the target.
                """
        }
        return """
            \(origin == .buildPlugin ? "" : "// \(entity.name).swift: written once by `trove generate` from \(source); this file is yours to edit.\n")\
            \(imports(usesFoundation: false, usesTrove: false))
            \(doc)
            \(modifier)class \(entity.name): _\(entity.name) {}

            """
    }

    private func classListFile() -> String {
        let list = model.entities.map { "            \($0.name).self," }.joined(separator: "\n")
        return """
            \(header(nil))\
            \(imports(usesFoundation: false, usesTrove: true))
            /// The classes generated from \(source), one per entity: pass them to the container.
            ///
            /// ```swift
            /// let container = try Container(model: model, url: url, classes: \(classListName).all)
            /// ```
            \(modifier)enum \(classListName) {
                /// Every entity's class, in model order.
                \(modifier)static var all: [any EntityClass.Type] {
                    [
            \(list)
                    ]
                }
            }

            """
    }

    private func machineFile(_ entity: Entity) -> String {
        var writer = MachineClassWriter(entity: entity, model: model, modifier: modifier)
        let body = writer.classDeclaration()
        return header(entity) + imports(usesFoundation: writer.usesFoundation, usesTrove: writer.usesTrove) + "\n" + body
    }
}

/// One file the generator writes.
public struct GeneratedFile: Sendable, Hashable {
    /// The file's name (`Photo+Generated.swift`), in the output folder.
    public let name: String
    /// The file's Swift source.
    public let contents: String
    /// Whether an existing file of this name is replaced (`false` for a human file, which
    /// belongs to the app once written).
    public let isOverwritten: Bool

    /// A file named `name` holding `contents`.
    public init(name: String, contents: String, isOverwritten: Bool) {
        self.name = name
        self.contents = contents
        self.isOverwritten = isOverwritten
    }
}

/// The model has names the generated code cannot use; ``problems`` lists them all.
public struct CodeGenerationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Each problem, naming the entity and property and what to do.
    public let problems: [String]

    /// An error listing `problems`.
    public init(problems: [String]) {
        self.problems = problems
    }

    public var description: String {
        let lines = problems.map { "  - \($0)" }.joined(separator: "\n")
        return "classes cannot be generated from this model (\(problems.count) problem\(problems.count == 1 ? "" : "s")):\n\(lines)"
    }
}
