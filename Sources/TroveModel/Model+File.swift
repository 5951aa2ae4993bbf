public import Foundation

/// Reading and writing model files (DESIGN.md, "Contract 1 — the model file").
extension Model {
    /// Loads a model from the JSON text of a model file.
    ///
    /// The text must be strict JSON (RFC 8259). Every problem is reported at once, each with its
    /// path in the file (`entities[1].attributes[0].tyep`): a syntax error (path `$`, with line and
    /// column), unknown keys (with the closest known key), values of the wrong JSON kind, unknown
    /// types, delete rules, import policies or key styles (with the allowed values). When the file
    /// is well formed, the model is checked as ``init(keyStyle:entities:)`` checks one built in code.
    /// - Throws: ``ModelError`` listing every problem found.
    public init(fileData: Data) throws(ModelError) {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: fileData)
        } catch {
            throw ModelError(issues: [ModelIssue(path: ModelPath.root, message: "\(error); fix the JSON syntax")])
        }
        var reader = ModelFileReader()
        let (keyStyle, entities) = reader.read(json)
        guard reader.issues.isEmpty else { throw ModelError(issues: ModelPath.sortedInModelOrder(reader.issues)) }
        try self.init(keyStyle: keyStyle, entities: entities)
    }

    /// Loads a model from a model file; see ``init(fileData:)``.
    /// - Throws: ``ModelError`` listing every problem found, or with one issue at path `$` when the
    ///   file cannot be read, is not a regular file (a folder, a device such as `/dev/null`) or is
    ///   empty.
    public init(contentsOf url: URL) throws(ModelError) {
        let path = url.path
        func unreadable(_ reason: String) -> ModelError {
            ModelError(issues: [ModelIssue(path: ModelPath.root, message: "cannot read the model file \(path): \(reason)")])
        }
        let resolved = url.resolvingSymlinksInPath().path
        // The type is looked at first: reading a device or a folder fails with misleading words.
        // When it cannot be had, reading the file says why.
        if let type = (try? FileManager.default.attributesOfItem(atPath: resolved))?[.type] as? FileAttributeType,
           type != .typeRegular {
            let kind = type == .typeDirectory ? "a folder"
                : type == .typeCharacterSpecial || type == .typeBlockSpecial ? "a device" : "not a regular file"
            throw unreadable("it is \(kind), not a model file; give the path of a model file (JSON with an \"entities\" list)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path)
                ? error.localizedDescription : "there is no such file; check the path"
            throw unreadable(reason)
        }
        guard !data.isEmpty else {
            throw unreadable("it is empty, not a model file; a model file is JSON with an \"entities\" list")
        }
        try self.init(fileData: data)
    }

    /// The model as the text of a model file: canonical JSON (keys sorted, two-space indent,
    /// only keys whose value differs from the default) ending with a newline.
    ///
    /// Each entity lists the properties and unique keys it declares, not the inherited ones, so
    /// `Model(fileData: model.fileData())` equals `model`, and equal models give equal bytes.
    public func fileData() -> Data {
        var top: JSONObject = ["entities": .array(entities.map(declarationJSON))]
        if keyStyle != .exact { top["keyStyle"] = .string(keyStyle.rawValue) }
        return Data((JSONValue.object(top).serialized(pretty: true) + "\n").utf8)
    }

    // MARK: Writing

    /// The entity as declared: its resolved lists without the prefix inherited from its parent.
    private func declarationJSON(_ entity: Entity) -> JSONValue {
        let inherited = entity.parent.flatMap { self.entity(named: $0) }
        let attributes = entity.attributes.dropFirst(inherited?.attributes.count ?? 0)
        let relationships = entity.relationships.dropFirst(inherited?.relationships.count ?? 0)
        let uniqueBy = Array(entity.uniqueBy.dropFirst(inherited?.uniqueBy.count ?? 0))
        var json: JSONObject = ["name": .string(entity.name)]
        if !attributes.isEmpty { json["attributes"] = .array(attributes.map(Model.declarationJSON)) }
        if !relationships.isEmpty { json["relationships"] = .array(relationships.map(Model.declarationJSON)) }
        if uniqueBy.count == 1 {
            json["uniqueBy"] = .array(uniqueBy[0].map(JSONValue.string))
        } else if uniqueBy.count > 1 {
            json["uniqueBy"] = .array(uniqueBy.map { .array($0.map(JSONValue.string)) })
        }
        if let remoteName = entity.remoteName { json["remoteName"] = .string(remoteName) }
        if let parent = entity.parent { json["parent"] = .string(parent) }
        if entity.isAbstract { json["abstract"] = true }
        if let renamedFrom = entity.renamedFrom { json["renamedFrom"] = .string(renamedFrom) }
        return .object(json)
    }

    private static func declarationJSON(_ attribute: Attribute) -> JSONValue {
        var json: JSONObject = ["name": .string(attribute.name), "type": .string(attribute.type.rawValue)]
        if !attribute.isOptional { json["optional"] = false }
        if let value = attribute.defaultValue.fileJSON { json["default"] = value }
        if let value = attribute.minimum?.fileJSON { json["min"] = value }
        if let value = attribute.maximum?.fileJSON { json["max"] = value }
        if let regex = attribute.regex { json["regex"] = .string(regex) }
        if let remoteKey = remoteKeyJSON(attribute.remoteKeys) { json["remoteKey"] = remoteKey }
        if let format = attribute.dateFormat { json["dateFormat"] = .string(format.name) }
        if let transformer = attribute.transformer { json["transformer"] = .string(transformer) }
        if attribute.isTransient { json["transient"] = true }
        if let derivation = attribute.derivation { json["derivation"] = .string(derivation) }
        if let renamedFrom = attribute.renamedFrom { json["renamedFrom"] = .string(renamedFrom) }
        return .object(json)
    }

    private static func declarationJSON(_ relationship: Relationship) -> JSONValue {
        var json: JSONObject = [
            "name": .string(relationship.name), "destination": .string(relationship.destination),
        ]
        if relationship.isToMany { json["toMany"] = true }
        if relationship.isOrdered { json["ordered"] = true }
        if let inverse = relationship.inverse { json["inverse"] = .string(inverse) }
        if relationship.deleteRule != .nullify { json["deleteRule"] = .string(relationship.deleteRule.rawValue) }
        if !relationship.isOptional { json["optional"] = false }
        if let count = relationship.minCount { json["minCount"] = .integer(Int64(count)) }
        if let count = relationship.maxCount { json["maxCount"] = .integer(Int64(count)) }
        if let remoteKey = remoteKeyJSON(relationship.remoteKeys) { json["remoteKey"] = remoteKey }
        if relationship.importPolicy != .replace { json["importPolicy"] = .string(relationship.importPolicy.rawValue) }
        if let key = relationship.referenceKey { json["referenceKey"] = .string(key) }
        if let renamedFrom = relationship.renamedFrom { json["renamedFrom"] = .string(renamedFrom) }
        return .object(json)
    }

    /// One key as a string, alternatives as a list, none as no key at all.
    private static func remoteKeyJSON(_ keys: [String]) -> JSONValue? {
        switch keys.count {
        case 0: nil
        case 1: .string(keys[0])
        default: .array(keys.map(JSONValue.string))
        }
    }
}
