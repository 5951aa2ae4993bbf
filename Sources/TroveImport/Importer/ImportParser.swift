import TroveModel

/// Reads records into ``ImportNode`` trees: the model drives, each attribute and relationship
/// looked up in the record under its remote keys and coerced. Pure: nothing is changed, so a
/// record that fails anywhere is rejected whole.
struct ImportParser {
    let hooks: ImportHooks
    let mapping: (Entity) throws -> EntityMapping

    /// The node for a record, or `nil` when a before-record hook skipped it.
    func parse(_ json: JSONValue, as entity: Entity, path: String) throws -> ImportNode? {
        let mapping = try mapping(entity)
        var json = json
        if let before = hooks.before[entity.name] {
            do {
                guard let rewritten = try before(json) else { return nil }
                json = rewritten
            } catch {
                throw Rejection(path: path, value: json, expected: "a record the hook accepts", reason: "the before-record hook of \(entity.name) refused it: \(error)")
            }
        }
        guard case .object(let members) = json else {
            throw Rejection(path: path, value: json, expected: "an object", reason: "a \(entity.name) record must be a JSON object, not \(json.kindName == "array" ? "an" : "a") \(json.kindName)")
        }
        let node = ImportNode(mapping: mapping, path: path, source: .value(json))
        let handlers = hooks.keyHandlers[entity.name] ?? [:]
        if handlers.isEmpty {
            for key in members.keys where !Self.isKnown(key, mapping.knownKeys) {
                node.unknownKeys.append(key)
            }
        } else {
            // Handlers run in key order, so that imports are reproducible.
            for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                if let handler = handlers[key] {
                    node.handled.append((handler, value))
                } else if !Self.isKnown(key, mapping.knownKeys) {
                    node.unknownKeys.append(key)
                }
            }
        }
        try fill(node, path: path,
                 attribute: { Self.lookup(members, $0.keyPaths, skipping: handlers) },
                 relationship: { Self.lookup(members, $0.keyPaths, skipping: handlers).map { (.json($0), $1) } })
        return node
    }

    /// A value found in a record for an attribute or relationship: JSON, or the nested object
    /// of a to-one relationship read already (by the ``RecordScanner``), or why it could not be.
    enum Found {
        case json(JSONValue)
        case object(Result<ImportNode, any Error>)
    }

    /// Sets a node's values, key and relationships from the record's value (and the key path
    /// it was found under) for each attribute and relationship; `nil` for those the record
    /// does not hold.
    func fill(_ node: ImportNode, path: String,
              attribute found: (EntityMapping.AttributeMapping) -> (JSONValue, String)?,
              relationship foundLink: (EntityMapping.RelationshipMapping) -> (Found, String)?) throws {
        let mapping = node.mapping
        node.values.reserveCapacity(mapping.attributes.count)
        for attribute in mapping.attributes {
            guard let (value, keyPath) = found(attribute) else { continue }
            if case .null = value {
                guard attribute.attribute.isOptional else {
                    throw Rejection(path: Self.join(path, keyPath), value: value, expected: attribute.attribute.type.rawValue,
                                    reason: "\(mapping.entity.name).\(attribute.attribute.name) is required and cannot be null")
                }
                node.values.append((attribute.index, .null))
                continue
            }
            switch attribute.coercer.coerce(value).flatMap({ Self.fit($0, attribute.attribute, from: value) }) {
            case .success(let coerced):
                node.values.append((attribute.index, coerced.value))
                if coerced.kind != .none { node.coercions.append(coerced.kind) }
            case .failure(let rejection):
                throw Rejection(path: Self.join(path, keyPath), value: value, expected: rejection.expected.rawValue,
                                reason: "\(mapping.entity.name).\(attribute.attribute.name): \(rejection.why)")
            }
        }

        var newObjectValues = mapping.defaults
        for (index, value) in node.values { newObjectValues[index] = value }
        node.newObjectValues = newObjectValues
        node.key = Self.key(of: node, root: mapping.rootName)
        if !mapping.uniqueKeys.isEmpty && node.key == nil {
            let names = mapping.entity.uniqueBy.map { $0.joined(separator: " + ") }.joined(separator: " or ")
            throw Rejection(path: path, value: try node.record, expected: "its unique key (\(names))",
                            reason: "a \(mapping.entity.name) record needs its unique key \(names) to be found or created")
        }

        for relationship in mapping.relationships {
            guard let (found, keyPath) = foundLink(relationship) else { continue }
            let value: JSONValue
            switch found {
            case .json(let json): value = json
            case .object(let read):
                // Only to-one relationships' objects are read ahead.
                node.toOne.append((relationship.index, .node(try read.get())))
                continue
            }
            let at = Self.join(path, keyPath)
            if relationship.relationship.isToMany {
                switch value {
                case .null: node.toMany.append((relationship.index, []))
                case .array(let elements):
                    let targets = try elements.enumerated().map { i, element in
                        try target(element, of: relationship, path: "\(at)[\(i)]")
                    }
                    node.toMany.append((relationship.index, targets.compactMap { $0 }))
                default:
                    throw Rejection(path: at, value: value, expected: "an array",
                                    reason: "\(mapping.entity.name).\(relationship.relationship.name) is to-many and takes an array of objects or keys")
                }
            } else {
                switch value {
                case .null: node.toOne.append((relationship.index, nil))
                case .array:
                    throw Rejection(path: at, value: value, expected: "an object or a key",
                                    reason: "\(mapping.entity.name).\(relationship.relationship.name) is to-one and takes one object or key")
                default:
                    if let target = try target(value, of: relationship, path: at) {
                        node.toOne.append((relationship.index, target))
                    }
                }
            }
        }
    }

    /// A nested object or a scalar reference, as the relationship's destination.
    private func target(_ value: JSONValue, of relationship: EntityMapping.RelationshipMapping, path: String) throws -> ImportTarget? {
        let destination = relationship.destination
        switch value {
        case .object:
            return try parse(value, as: destination, path: path).map(ImportTarget.node)
        case .string, .number, .bool:
            guard let reference = relationship.referenceKey else {
                throw Rejection(path: path, value: value, expected: "an object",
                                reason: "\(destination.name) has no single-attribute unique key (or referenceKey) to find it by \(value.kindName)")
            }
            switch reference.coercer.coerce(value).flatMap({ Self.fit($0, destination.attributes[reference.index], from: value) }) {
            case .success(let coerced):
                return .reference(UniqueKey(root: destination.rootName, attributes: [reference.index], values: [coerced.value]),
                                  destination: destination)
            case .failure(let rejection):
                throw Rejection(path: path, value: value, expected: rejection.expected.rawValue,
                                reason: "a reference to \(destination.name) by \(destination.attributes[reference.index].name): \(rejection.why)")
            }
        default:
            throw Rejection(path: path, value: value, expected: "an object or a key", reason: "expected an object or a key for \(destination.name)")
        }
    }

    /// A coerced value as its attribute holds it (a transformer may return a value of another
    /// type, or an integer too wide), so that applying it cannot fail.
    private static func fit(_ coerced: CoercedValue, _ attribute: Attribute, from json: JSONValue) -> Result<CoercedValue, CoercionRejection> {
        switch attribute.checked(coerced.value) {
        case .success(let value):
            return .success(CoercedValue(value, kind: coerced.kind))
        case .failure(let problem):
            let reason: CoercionRejection.Reason = if case .outOfRange = problem { .outOfRange } else { .wrongKind }
            return .failure(CoercionRejection(expected: attribute.type, value: json, failure: CoercionFailure(reason, "\(problem)")))
        }
    }

    /// The node's key: the values of the first uniqueness constraint it has all of.
    static func key(of node: ImportNode, root: String) -> UniqueKey? {
        constraints: for constraint in node.mapping.uniqueKeys {
            var keyValues: [AttributeValue] = []
            keyValues.reserveCapacity(constraint.count)
            for position in constraint {
                // The last value set wins, as applying the node would leave it.
                guard let value = node.values.last(where: { $0.index == position })?.value, !value.isNull else { continue constraints }
                keyValues.append(value)
            }
            return UniqueKey(root: root, attributes: constraint, values: keyValues)
        }
        return nil
    }

    /// The first candidate key path present in the record, with its value (`null` included: a
    /// key present with null ends the search) and the path as written.
    static func lookup(_ members: JSONObject, _ keyPaths: [[String]], skipping handled: [String: ImportHooks.KeyHandler]) -> (JSONValue, String)? {
        for keyPath in keyPaths {
            guard let first = keyPath.first, handled.isEmpty || handled[first] == nil else { continue }
            if keyPath.count == 1 {
                if let value = members[first] { return (value, first) }
                continue
            }
            var current: JSONValue = .object(members)
            var found = true
            for key in keyPath {
                guard case .object(let object) = current, let next = object[key] else {
                    found = false
                    break
                }
                current = next
            }
            if found { return (current, keyPath.joined(separator: ".")) }
        }
        return nil
    }


    /// Whether `key` is one of `known`, byte for byte.
    private static func isKnown(_ key: String, _ known: Set<String>) -> Bool {
        guard let index = known.firstIndex(of: key) else { return false }
        return known[index].hasSameBytes(as: key)
    }

    static func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }
}

extension CoercionRejection {
    /// Why the value was rejected, in words: the detail, or for a value of the wrong kind
    /// (which has none: `true` into an integer) that this kind never becomes this type.
    var why: String {
        guard detail.isEmpty else { return detail }
        let kind = ["object", "array"].contains(got) ? "an \(got)" : "a \(got)"
        return "\(kind) is never converted to \(expected.rawValue)"
    }
}
