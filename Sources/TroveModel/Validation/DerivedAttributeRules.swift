/// A transient attribute is not also derived, and carries no import hints (the importer never
/// sets it).
enum TransientAttributeRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var findings: [ModelIssue] = []
        for (e, entity) in model.entities.enumerated() {
            for (a, attribute) in entity.attributes.enumerated() where attribute.isTransient {
                let path = ModelPath.attribute(e, a)
                let label = model.label(entity: e, attribute: a)
                if attribute.isDerived {
                    findings.append(ModelIssue(
                        path: path + ".transient",
                        message: "\(label) is both transient and derived; a derived attribute is computed by the store,"
                            + " a transient one kept in memory: remove \"transient\" or \"derivation\""))
                }
                for key in attribute.importHintKeys {
                    findings.append(ModelIssue(
                        path: path + "." + key,
                        message: "\(label) is transient: the importer never sets it, so \(key) has no use; remove it"))
                }
            }
        }
        return findings
    }
}

/// A derived attribute's `derivation` is one the store can compute (see
/// ``Attribute/derivation``), gives values of the attribute's type, and the attribute has no
/// default, rules or import hints (it is computed, never set).
enum DerivedAttributeRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var findings: [ModelIssue] = []
        for (e, entity) in model.entities.enumerated() {
            for (a, attribute) in entity.attributes.enumerated() {
                guard let derivation = attribute.derivation, !attribute.isTransient else { continue }
                let path = ModelPath.attribute(e, a)
                let label = model.label(entity: e, attribute: a)
                var keys = attribute.importHintKeys
                if !attribute.defaultValue.isNull { keys.insert("default", at: 0) }
                if attribute.minimum != nil { keys.append("min") }
                if attribute.maximum != nil { keys.append("max") }
                if attribute.regex != nil { keys.append("regex") }
                if !attribute.isOptional { keys.append("optional") }
                for key in keys {
                    findings.append(ModelIssue(
                        path: path + "." + key,
                        message: "\(label) is derived: the store computes it and nothing sets or checks it,"
                            + " so \(key) has no use; remove it"))
                }
                switch resultType(of: derivation, fromEntityAt: e, in: model) {
                case .failure(let problem):
                    findings.append(ModelIssue(path: path + ".derivation", message: "\(label): derivation '\(derivation)' \(problem.text)"))
                case .success(let type) where !type.fits(in: attribute.type):
                    findings.append(ModelIssue(
                        path: path + ".type",
                        message: "\(label): derivation '\(derivation)' gives \(type.rawValue) values, which"
                            + " \(attribute.type.withArticle) attribute cannot hold; declare it \(type.rawValue)"))
                case .success:
                    break
                }
            }
        }
        return findings
    }

    /// What is wrong with a derivation, completing "derivation 'x' …".
    struct Problem: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// The type of the values `derivation` gives for the entity at `e`.
    static func resultType(of derivation: String, fromEntityAt e: Int, in model: DeclaredModel) -> Result<AttributeType, Problem> {
        let keys = derivation.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !keys.contains(where: \.isEmpty) else {
            return .failure(Problem("is not a key path: it has an empty key; write one such as photos.@count or whoTook.name"))
        }
        let functions = keys.indices.filter { keys[$0].hasPrefix("@") }
        guard let f = functions.first else {
            guard keys.count > 1 else {
                return .failure(Problem("names a key of the entity itself; derive through a relationship, as in whoTook.name or photos.@count"))
            }
            return storedAttribute(along: keys[...], fromEntityAt: e, in: model).map(\.type)
        }
        let supported = AggregateFunction.allCases.map(\.rawValue)
        guard let function = AggregateFunction(rawValue: keys[f]) else {
            return .failure(Problem("uses '\(keys[f])', which is not a function; use one of \(supported.joined(separator: ", "))"))
        }
        guard functions.count == 1 else {
            return .failure(Problem("has more than one function; a derivation aggregates once"))
        }
        guard f == 1 else {
            return .failure(Problem(f == 0
                ? "starts with \(function.rawValue), which must follow a to-many relationship of the entity, as in photos.\(function.rawValue)"
                : "aggregates '\(keys[..<f].joined(separator: "."))'; aggregate a to-many relationship of the entity itself, as in photos.\(function.rawValue)"))
        }
        let entityName = model.entities[e].name
        guard let relationship = model.relationships(ofEntityAt: e).first(where: { $0.name == keys[0] }) else {
            let names = model.relationships(ofEntityAt: e).filter(\.isToMany).map(\.name)
            return .failure(Problem("names '\(keys[0])', which is not a relationship of \(entityName)"
                + (Suggestion.closest(to: keys[0], among: names).map { "; did you mean '\($0)'?" } ?? "")))
        }
        guard relationship.isToMany else {
            return .failure(Problem("applies \(function.rawValue) to '\(relationship.name)', a to-one relationship; aggregate a to-many one, or read its attribute as \(relationship.name).KEY"))
        }
        guard let element = model.indexByName[relationship.destination] else {
            return .failure(Problem("goes through '\(relationship.name)', whose destination \(relationship.destination) is not in the model"))
        }
        let key = keys[(f + 1)...]
        if function == .count {
            return key.isEmpty ? .success(.integer64)
                : .failure(Problem("names a key after @count, which counts objects; write \(relationship.name).@count"))
        }
        guard !key.isEmpty else {
            return .failure(Problem("needs the attribute to aggregate after \(function.rawValue), as in \(relationship.name).\(function.rawValue).KEY"))
        }
        return storedAttribute(along: key, fromEntityAt: element, in: model).flatMap { attribute in
            aggregated(function, of: attribute.type).map(Result.success) ?? .failure(Problem(
                "applies \(function.rawValue) to \(attribute.type.rawValue) attribute '\(attribute.name)', which it cannot aggregate"))
        }
    }

    /// The stored attribute that `keys` reach from the entity at `e` through to-one relationships.
    private static func storedAttribute(along keys: ArraySlice<String>, fromEntityAt e: Int, in model: DeclaredModel) -> Result<Attribute, Problem> {
        var current = e
        for (i, key) in zip(keys.indices, keys) {
            let entityName = model.entities[current].name
            let isLast = i == keys.index(before: keys.endIndex)
            if let attribute = model.attributes(ofEntityAt: current).first(where: { $0.name == key }) {
                guard isLast else {
                    return .failure(Problem("goes on after '\(key)', an attribute of \(entityName); an attribute must come last"))
                }
                guard attribute.isStored else {
                    return .failure(Problem("reads '\(key)' of \(entityName), which is \(attribute.isTransient ? "transient" : "derived");"
                        + " a derivation reads stored attributes only"))
                }
                return .success(attribute)
            }
            if let relationship = model.relationships(ofEntityAt: current).first(where: { $0.name == key }) {
                if relationship.isToMany {
                    return .failure(Problem("goes through '\(key)', a to-many relationship of \(entityName), without aggregating it;"
                        + " use \(key).@count, or \(key).@sum, @avg, @min or @max of one of its attributes"))
                }
                guard !isLast else {
                    return .failure(Problem("ends at '\(key)', a relationship of \(entityName); name one of its attributes, as in \(key).KEY"))
                }
                guard let next = model.indexByName[relationship.destination] else {
                    return .failure(Problem("goes through '\(key)', whose destination \(relationship.destination) is not in the model"))
                }
                current = next
                continue
            }
            let names = model.attributes(ofEntityAt: current).map(\.name) + model.relationships(ofEntityAt: current).map(\.name)
            return .failure(Problem("names '\(key)', which is not a key of \(entityName)"
                + (Suggestion.closest(to: key, among: names).map { "; did you mean '\($0)'?" } ?? "")))
        }
        return .failure(Problem("is empty; write a key path such as photos.@count or whoTook.name"))
    }

    /// The type `function` gives over values of `type` (as the predicate language types it), or
    /// `nil` when it does not apply.
    private static func aggregated(_ function: AggregateFunction, of type: AttributeType) -> AttributeType? {
        switch function {
        case .count: .integer64
        case .sum where type.isInteger: .integer64
        case .sum, .avg: type == .decimal ? .decimal : (type.isNumeric ? .double : nil)
        case .min, .max: type.isNumeric || type == .date || type == .string ? type : nil
        }
    }
}

extension Attribute {
    /// The import hints the attribute has, as model-file keys.
    var importHintKeys: [String] {
        var keys: [String] = []
        if !remoteKeys.isEmpty { keys.append("remoteKey") }
        if dateFormat != nil { keys.append("dateFormat") }
        if transformer != nil { keys.append("transformer") }
        return keys
    }
}

extension AttributeType {
    /// Whether an attribute of type `declared` holds every value of this type: the same type,
    /// or a wider integer.
    func fits(in declared: AttributeType) -> Bool {
        guard self != declared else { return true }
        guard let mine = integerRange, let theirs = declared.integerRange else { return false }
        return theirs.lowerBound <= mine.lowerBound && mine.upperBound <= theirs.upperBound
    }
}
