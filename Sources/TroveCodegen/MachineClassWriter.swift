import TroveModel

/// Writes an entity's machine class `_Name`: its class members, then a property per attribute
/// and relationship the entity declares itself (a sub-entity's class inherits the rest).
struct MachineClassWriter {
    let entity: Entity
    let model: Model
    /// `public ` or nothing.
    let modifier: String
    /// Whether a declaration written so far shows one of Foundation's types.
    private(set) var usesFoundation = false
    /// Whether a declaration written so far shows one of Trove's types (`ManagedObject`,
    /// `EntityClass`, `JSONValue`): a sub-entity's class may show none.
    private(set) var usesTrove = false

    init(entity: Entity, model: Model, modifier: String) {
        self.entity = entity
        self.model = model
        self.modifier = modifier
    }

    /// The parent entity, whose class this one subclasses.
    private var parent: Entity? { entity.parent.flatMap { model.entity(named: $0) } }

    /// How many of the attributes and relationships come from the parent.
    private var inherited: (attributes: Int, relationships: Int) {
        (parent?.attributes.count ?? 0, parent?.relationships.count ?? 0)
    }

    mutating func classDeclaration() -> String {
        let name = entity.name
        let override = parent == nil ? "" : "override "
        let superclass = parent.map(\.name) ?? "ManagedObject, EntityClass"
        usesTrove = parent == nil
        var lines: [String] = []
        lines.append("/// The generated half of ``\(name)``, entity '\(name)'\(parent.map { " (a sub-entity of '\($0.name)')" } ?? ""): a typed property per attribute and relationship.")
        lines.append("///")
        lines.append("/// Regenerated from the model: do not edit. The app's own code goes in `\(name)`.")
        lines.append("\(modifier)class _\(name): \(superclass) {")
        lines.append("    /// The entity's name, `\"\(name)\"`.")
        lines.append("    \(override)\(modifier)class var entityName: String { \"\(name)\" }")
        lines.append("    /// The entity's shape this class was generated from: registering it with a model whose")
        lines.append("    /// entity '\(name)' has another shape is refused.")
        lines.append("    \(override)\(modifier)class var generatedSignature: String { \"\(entity.classSignature)\" }")
        lines.append("")
        lines += keyPathMap()
        let attributes = entity.attributes.enumerated().dropFirst(inherited.attributes)
        if !attributes.isEmpty {
            lines.append("")
            lines.append("    // MARK: Attributes")
            for (index, attribute) in attributes {
                lines.append("")
                lines += property(of: attribute, at: index)
            }
        }
        let relationships = entity.relationships.enumerated().dropFirst(inherited.relationships)
        if !relationships.isEmpty {
            lines.append("")
            lines.append("    // MARK: Relationships")
            for (index, relationship) in relationships {
                lines.append("")
                lines += property(of: relationship, at: index)
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Key paths

    /// `modelKeyPath(for:)`: every property of the entity (inherited ones too, with this class
    /// as the root), and one level through each to-one relationship.
    private func keyPathMap() -> [String] {
        let root = entity.name
        var cases: [String] = []
        for attribute in entity.attributes {
            cases.append("case \\\(root).\(swiftName(attribute.name)): \"\(attribute.name)\"")
        }
        for relationship in entity.relationships {
            cases.append("case \\\(root).\(swiftName(relationship.name)): \"\(relationship.name)\"")
        }
        for relationship in entity.relationships where !relationship.isToMany {
            guard let destination = model.entity(named: relationship.destination) else { continue }
            let names = destination.attributes.map(\.name) + destination.relationships.map(\.name)
            for name in names {
                cases.append("case \\\(root).\(swiftName(relationship.name))?.\(swiftName(name)): \"\(relationship.name).\(name)\"")
            }
        }
        let fallback = parent == nil ? "nil" : "super.modelKeyPath(for: keyPath)"
        return [
            "    /// The model key path a Swift key path of `\(root)` stands for (`\\\(root).\(exampleKeyPath.swift)` is",
            "    /// `\"\(exampleKeyPath.model)\"`), or `nil`: how typed predicates and sorts find their keys.",
            "    \(parent == nil ? "" : "override ")\(modifier)class func modelKeyPath(for keyPath: AnyKeyPath) -> String? {",
            "        switch keyPath {",
        ] + cases.map { "        \($0)" } + [
            "        default: \(fallback)",
            "        }",
            "    }",
        ]
    }

    /// A key path to quote in the doc comment: through a to-one relationship when there is one.
    private var exampleKeyPath: (swift: String, model: String) {
        for relationship in entity.relationships where !relationship.isToMany {
            if let destination = model.entity(named: relationship.destination),
               let name = destination.attributes.first?.name ?? destination.relationships.first?.name {
                return ("\(swiftName(relationship.name))?.\(swiftName(name))", "\(relationship.name).\(name)")
            }
        }
        let name = entity.attributes.first?.name ?? entity.relationships.first?.name ?? "self"
        return (swiftName(name), name)
    }

    // MARK: Properties

    private mutating func property(of attribute: Attribute, at index: Int) -> [String] {
        let type = swiftType(of: attribute.type)
        if [.date, .binary, .uuid, .uri, .decimal].contains(attribute.type) { usesFoundation = true }
        if attribute.type == .json { usesTrove = true }
        let name = swiftName(attribute.name)
        var facts = [attribute.type.rawValue]
        if !attribute.isOptional { facts.append("required") }
        if !attribute.defaultValue.isNull {
            facts.append("default \(attribute.defaultValue)".split(whereSeparator: \.isNewline).joined(separator: " "))
        }
        if attribute.isTransient { facts.append("transient: in memory only") }
        if let derivation = attribute.derivation { facts.append("derived from `\(derivation)` by the store, read-only") }
        let getter = attribute.hasOptionalProperty ? "attribute(at: \(index))" : "attribute(at: \(index)) ?? \(emptyValue(of: attribute.type))"
        let nilReads = attribute.hasOptionalProperty ? "`nil` when it has no value" : "reads as `\(emptyValue(of: attribute.type))` while it has no value"
        let declaration = "    /// Attribute '\(attribute.name)' (\(facts.joined(separator: ", "))); \(nilReads)."
        let property = "    \(modifier)var \(name): \(type)\(attribute.hasOptionalProperty ? "?" : "")"
        guard !attribute.isDerived else {
            return [declaration, "\(property) { \(getter) }"]
        }
        return [
            declaration,
            "\(property) {",
            "        get { \(getter) }",
            "        set { setAttribute(newValue, at: \(index)) }",
            "    }",
        ]
    }

    private func property(of relationship: Relationship, at index: Int) -> [String] {
        let name = swiftName(relationship.name)
        let destination = relationship.destination
        let inverse = relationship.inverse.map { ", inverse '\($0)'" } ?? ", no inverse"
        guard relationship.isToMany else {
            return [
                "    /// To-one relationship '\(relationship.name)' to '\(destination)'\(inverse); setting it keeps the inverse.",
                "    \(modifier)var \(name): \(destination)? {",
                "        get { relatedObject(at: \(index)) }",
                "        set { setRelatedObject(newValue, at: \(index)) }",
                "    }",
            ]
        }
        let capitalized = relationship.name.prefix(1).uppercased() + relationship.name.dropFirst()
        var lines: [String]
        if relationship.isOrdered {
            lines = [
                "    /// Ordered to-many relationship '\(relationship.name)' to '\(destination)'\(inverse); setting it keeps the inverses.",
                "    \(modifier)var \(name): [\(destination)] {",
                "        get { relatedObjects(at: \(index)) }",
                "        set { setRelatedObjects(newValue, at: \(index)) }",
                "    }",
            ]
        } else {
            lines = [
                "    /// To-many relationship '\(relationship.name)' to '\(destination)'\(inverse); setting it keeps the inverses.",
                "    \(modifier)var \(name): Set<\(destination)> {",
                "        get { Set(relatedObjects(at: \(index)) as [\(destination)]) }",
                "        set { setRelatedObjects(newValue, at: \(index)) }",
                "    }",
            ]
        }
        lines += [
            "",
            "    /// Adds `value` to '\(relationship.name)'\(relationship.isOrdered ? ", at the end" : "").",
            "    \(modifier)func addTo\(capitalized)(_ value: \(destination)) { addRelatedObject(value, at: \(index)) }",
            "",
            "    /// Removes `value` from '\(relationship.name)' (it is unlinked, not deleted).",
            "    \(modifier)func removeFrom\(capitalized)(_ value: \(destination)) { removeRelatedObject(value, at: \(index)) }",
        ]
        if relationship.isOrdered {
            lines += [
                "",
                "    /// Inserts `value` into '\(relationship.name)' at `position` (or moves it there); a position out of range",
                "    /// changes nothing and makes the context's next save throw.",
                "    \(modifier)func insertInto\(capitalized)(_ value: \(destination), at position: Int) { insertRelatedObject(value, atPosition: position, at: \(index)) }",
                "",
                "    /// Removes the object at `position` from '\(relationship.name)' (it is unlinked, not deleted); a position out",
                "    /// of range changes nothing and makes the context's next save throw.",
                "    \(modifier)func removeFrom\(capitalized)(at position: Int) { removeRelatedObject(atPosition: position, at: \(index)) }",
            ]
        }
        return lines
    }
}

// MARK: Swift spelling

/// The Swift type of an attribute's property.
func swiftType(of type: AttributeType) -> String {
    switch type {
    case .string: "String"
    case .integer16: "Int16"
    case .integer32: "Int32"
    case .integer64: "Int64"
    case .double: "Double"
    case .float: "Float"
    case .decimal: "Decimal"
    case .boolean: "Bool"
    case .date: "Date"
    case .binary: "Data"
    case .uuid: "UUID"
    case .uri: "URL"
    case .character: "Character"
    case .json: "JSONValue"
    }
}

/// What a non-optional property reads while its attribute is nil.
func emptyValue(of type: AttributeType) -> String {
    switch type {
    case .string: "\"\""
    case .integer16, .integer32, .integer64, .double, .float, .decimal: "0"
    case .boolean: "false"
    case .date: "Date(timeIntervalSince1970: 0)"
    case .binary: "Data()"
    case .uuid: "UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))"
    case .uri: "URL(fileURLWithPath: \"/\")"
    case .character: "\"\\u{0}\""
    case .json: ".null"
    }
}

/// `name` as a Swift identifier: backquoted when it is a keyword.
func swiftName(_ name: String) -> String {
    swiftKeywords.contains(name) ? "`\(name)`" : name
}

/// Swift's keywords that need backquotes as a member name or in a key path.
let swiftKeywords: Set<String> = [
    "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
    "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "private", "precedencegroup",
    "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch",
    "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
    "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "super", "throws", "true",
    "try", "async", "some", "any", "each",
]
