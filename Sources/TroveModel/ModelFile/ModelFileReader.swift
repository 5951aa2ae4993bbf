/// Walks the JSON of a model file and builds the declared entities, gathering every structural
/// problem (unknown keys, wrong JSON kinds, unknown enumeration values, missing keys).
///
/// Semantic checks (names, references, defaults) are left to ``ModelValidator``, which sees the
/// same declaration order as the file and so reports the same paths.
struct ModelFileReader {
    /// Every structural problem found so far, in the order found.
    private(set) var issues: [ModelIssue] = []

    static let modelKeys = ["keyStyle", "entities"]
    static let entityKeys = ["name", "attributes", "relationships", "uniqueBy", "remoteName", "parent", "abstract", "renamedFrom"]
    static let attributeKeys = [
        "name", "type", "optional", "default", "remoteKey", "dateFormat", "transformer", "min", "max", "regex",
        "transient", "derivation", "renamedFrom",
    ]
    static let relationshipKeys = [
        "name", "destination", "toMany", "inverse", "deleteRule", "ordered", "optional", "remoteKey", "minCount",
        "maxCount", "importPolicy", "referenceKey", "renamedFrom",
    ]

    /// The key style and entities `json` declares; check ``issues`` before using them.
    mutating func read(_ json: JSONValue) -> (keyStyle: KeyStyle, entities: [Entity]) {
        guard let top = object(json, path: ModelPath.root, label: "the model file") else { return (.exact, []) }
        let model = Node(members: top, path: "", label: "the model file")
        checkKeys(of: model, known: Self.modelKeys)
        let keyStyle = choice(KeyStyle.self, "keyStyle", in: model) ?? .exact
        guard let list = value("entities", in: model, required: true) else { return (keyStyle, []) }
        let entities = elements(list, path: "entities", label: model.label).enumerated().compactMap { e, element in
            object(element, path: ModelPath.entity(e), label: "entity \(e)")
                .map { entity(Node(members: $0, path: ModelPath.entity(e), label: "")) }
        }
        return (keyStyle, entities)
    }

    // MARK: Declarations

    private mutating func entity(_ node: Node) -> Entity {
        var node = node
        let name = string("name", in: node.labelled("the entity at \(node.path)"), required: true)
        node.label = name.map { "entity '\($0)'" } ?? "the entity at \(node.path)"
        checkKeys(of: node, known: Self.entityKeys)
        var entity = Entity(
            name ?? "", parent: string("parent", in: node), abstract: bool("abstract", in: node) ?? false,
            uniqueBy: uniqueBy(in: node), remoteName: string("remoteName", in: node),
            renamedFrom: string("renamedFrom", in: node))
        if let list = value("attributes", in: node) {
            entity.attributes = members(list, key: "attributes", of: node) { $0.attribute($1) }
        }
        if let list = value("relationships", in: node) {
            entity.relationships = members(list, key: "relationships", of: node) { $0.relationship($1) }
        }
        return entity
    }

    private mutating func attribute(_ node: Node) -> Attribute {
        let type = choice(AttributeType.self, "type", in: node, required: true)
        var attribute = Attribute(
            string("name", in: node, required: true) ?? "", type ?? .string,
            optional: bool("optional", in: node) ?? true, regex: string("regex", in: node),
            remoteKey: remoteKeys(in: node), dateFormat: string("dateFormat", in: node).map(DateFormat.init(name:)),
            transformer: string("transformer", in: node), transient: bool("transient", in: node) ?? false,
            derivation: string("derivation", in: node), renamedFrom: string("renamedFrom", in: node))
        if type != nil {
            attribute.defaultValue = value("default", in: node).map { attribute.fileValue(from: $0, isBound: false) } ?? .null
            attribute.minimum = value("min", in: node).map { attribute.fileValue(from: $0, isBound: true) }
            attribute.maximum = value("max", in: node).map { attribute.fileValue(from: $0, isBound: true) }
        }
        return attribute
    }

    private mutating func relationship(_ node: Node) -> Relationship {
        Relationship(
            string("name", in: node, required: true) ?? "", to: string("destination", in: node, required: true) ?? "",
            toMany: bool("toMany", in: node) ?? false, ordered: bool("ordered", in: node) ?? false,
            inverse: string("inverse", in: node), deleteRule: choice(DeleteRule.self, "deleteRule", in: node) ?? .nullify,
            optional: bool("optional", in: node) ?? true, minCount: integer("minCount", in: node),
            maxCount: integer("maxCount", in: node), remoteKey: remoteKeys(in: node),
            importPolicy: choice(ImportPolicy.self, "importPolicy", in: node) ?? .replace,
            referenceKey: string("referenceKey", in: node), renamedFrom: string("renamedFrom", in: node))
    }

    /// Reads the objects listed under `key` of an entity, each with its keys checked.
    private mutating func members<T>(
        _ list: JSONValue, key: String, of entity: Node, read: (inout Self, Node) -> T
    ) -> [T] {
        let kind = key == "attributes" ? "attribute" : "relationship"
        return elements(list, path: "\(entity.path).\(key)", label: entity.label).enumerated().compactMap { i, element in
            let path = "\(entity.path).\(key)[\(i)]"
            guard let members = object(element, path: path, label: "\(kind) \(i) of \(entity.label)") else { return nil }
            var node = Node(members: members, path: path, label: "")
            let name = members["name"]?.stringValue
            node.label = (name.map { "\(kind) '\($0)'" } ?? "the \(kind) at \(path)") + " of \(entity.label)"
            checkKeys(of: node, known: kind == "attribute" ? Self.attributeKeys : Self.relationshipKeys)
            return read(&self, node)
        }
    }

    /// `uniqueBy`: a list of names is one constraint, a list of lists is several.
    private mutating func uniqueBy(in node: Node) -> [[String]] {
        guard let json = value("uniqueBy", in: node) else { return [] }
        let path = ModelPath.member(node.path, "uniqueBy")
        let items = elements(json, path: path, label: node.label)
        if items.allSatisfy({ $0.stringValue != nil }) {
            return items.isEmpty ? [] : [items.compactMap(\.stringValue)]
        }
        return items.enumerated().compactMap { c, item in
            guard case .array(let names) = item, names.allSatisfy({ $0.stringValue != nil }) else {
                report(path + "[\(c)]", "\(node.label): uniqueBy must be a list of attribute names, or a list of such"
                    + " lists for several constraints, not a mix; found \(describe(item))")
                return nil
            }
            return names.compactMap(\.stringValue)
        }
    }

    /// `remoteKey`: one key (or dotted path) or a list of alternatives.
    private mutating func remoteKeys(in node: Node) -> [String] {
        guard let json = value("remoteKey", in: node) else { return [] }
        if case .string(let key) = json { return [key] }
        let path = ModelPath.member(node.path, "remoteKey")
        guard case .array(let keys) = json, keys.allSatisfy({ $0.stringValue != nil }) else {
            report(path, "\(node.label): \"remoteKey\" must be a string or a list of strings, not \(describe(json))")
            return []
        }
        return keys.compactMap(\.stringValue)
    }

    // MARK: Keys and kinds

    /// An object's members, and how to name the object in messages.
    struct Node {
        let members: JSONObject
        let path: String
        var label: String

        func labelled(_ label: String) -> Node {
            Node(members: members, path: path, label: label)
        }
    }

    private mutating func checkKeys(of node: Node, known: [String]) {
        for key in node.members.keys.sorted() where !known.contains(key) {
            let suggestion = Suggestion.closest(to: key, among: known)
            let hint = suggestion.map { "; did you mean \"\($0)\"?" } ?? "; known keys: \(known.joined(separator: ", "))"
            var quoted = ""
            JSONValue.writeString(key, to: &quoted)
            report(ModelPath.member(node.path, key), "unknown key \(quoted) in \(node.label)\(hint)")
        }
    }

    private mutating func value(_ key: String, in node: Node, required: Bool = false) -> JSONValue? {
        guard let value = node.members[key] else {
            if required {
                report(ModelPath.member(node.path, key), "\(node.label) has no \"\(key)\"; add it")
            }
            return nil
        }
        return value
    }

    private mutating func string(_ key: String, in node: Node, required: Bool = false) -> String? {
        guard let json = value(key, in: node, required: required) else { return nil }
        guard case .string(let s) = json else { return wrongKind(key, in: node, expected: "a string", found: json) }
        return s
    }

    private mutating func bool(_ key: String, in node: Node) -> Bool? {
        guard let json = value(key, in: node) else { return nil }
        guard case .bool(let b) = json else { return wrongKind(key, in: node, expected: "true or false", found: json) }
        return b
    }

    private mutating func integer(_ key: String, in node: Node) -> Int? {
        guard let json = value(key, in: node) else { return nil }
        guard let i = json.int64Value.flatMap({ Int(exactly: $0) }) else {
            return wrongKind(key, in: node, expected: "an integer", found: json)
        }
        return i
    }

    /// A value of an enumeration spelled by its raw value, with the allowed values listed when unknown.
    private mutating func choice<T: RawRepresentable & CaseIterable>(
        _: T.Type, _ key: String, in node: Node, required: Bool = false
    ) -> T? where T.RawValue == String {
        guard let text = string(key, in: node, required: required) else { return nil }
        if let value = T(rawValue: text) { return value }
        let allowed = T.allCases.map(\.rawValue)
        let hint = Suggestion.closest(to: text, among: allowed).map { " (did you mean \"\($0)\"?)" } ?? ""
        report(ModelPath.member(node.path, key), "\(node.label): unknown \(key) \(JSONValue.string(text).serialized())\(hint);"
            + " use one of: \(allowed.joined(separator: ", "))")
        return nil
    }

    private mutating func object(_ json: JSONValue, path: String, label: String) -> JSONObject? {
        guard case .object(let members) = json else {
            report(path, "\(label) must be a JSON object, not \(describe(json))")
            return nil
        }
        return members
    }

    private mutating func elements(_ json: JSONValue, path: String, label: String) -> [JSONValue] {
        guard case .array(let elements) = json else {
            let key = path.split(separator: ".").last.map(String.init) ?? path
            report(path, "\(label): \"\(key)\" must be a list, not \(describe(json))")
            return []
        }
        return elements
    }

    private mutating func wrongKind<T>(_ key: String, in node: Node, expected: String, found: JSONValue) -> T? {
        report(ModelPath.member(node.path, key), "\(node.label): \"\(key)\" must be \(expected), not \(describe(found))")
        return nil
    }

    /// "the string \"yes\"", "the number 3", "an object", … for messages.
    private func describe(_ json: JSONValue) -> String {
        switch json {
        case .object: "an object"
        case .array: "a list"
        case .null: "null"
        default: "the \(json.kindName) \(json.serialized())"
        }
    }

    private mutating func report(_ path: String, _ message: String) {
        issues.append(ModelIssue(path: path, message: message))
    }
}
