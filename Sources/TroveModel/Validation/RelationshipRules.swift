/// A relationship's `destination` names a declared entity.
enum RelationshipDestinationRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var findings: [ModelIssue] = []
        for (e, entity) in model.entities.enumerated() {
            for (r, relationship) in entity.relationships.enumerated() where model.indexByName[relationship.destination] == nil {
                let hint = Suggestion.didYouMean(relationship.destination, among: model.entities.map(\.name))
                findings.append(ModelIssue(
                    path: ModelPath.relationship(e, r) + ".destination",
                    message: "\(model.label(entity: e, relationship: r)): destination '\(relationship.destination)'"
                        + " is not an entity of the model\(hint.isEmpty ? "; declare it or fix the name" : hint)"))
            }
        }
        return findings
    }
}

/// `ordered`, `minCount`, `maxCount` and an `importPolicy` other than `replace` are for to-many
/// relationships only; counts are non-negative and `minCount` ≤ `maxCount`.
enum RelationshipCardinalityRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var findings: [ModelIssue] = []
        for (e, entity) in model.entities.enumerated() {
            for (r, relationship) in entity.relationships.enumerated() {
                let path = ModelPath.relationship(e, r)
                let label = model.label(entity: e, relationship: r)
                func report(_ key: String, _ message: String) {
                    findings.append(ModelIssue(path: path + "." + key, message: "\(label): \(message)"))
                }
                if !relationship.isToMany {
                    let toManyOnly = "applies only to to-many relationships; remove it or set \"toMany\": true"
                    if relationship.isOrdered { report("ordered", "ordered \(toManyOnly)") }
                    if relationship.minCount != nil { report("minCount", "minCount \(toManyOnly)") }
                    if relationship.maxCount != nil { report("maxCount", "maxCount \(toManyOnly)") }
                    if relationship.importPolicy != .replace {
                        report("importPolicy", "importPolicy \(relationship.importPolicy.rawValue) \(toManyOnly)")
                    }
                    continue
                }
                for (key, count) in [("minCount", relationship.minCount), ("maxCount", relationship.maxCount)] {
                    if let count, count < 0 { report(key, "\(key) \(count) is negative; use 0 or more") }
                }
                if let minCount = relationship.minCount, let maxCount = relationship.maxCount, minCount > maxCount {
                    report("minCount", "minCount \(minCount) is greater than maxCount \(maxCount); swap them or fix one")
                }
            }
        }
        return findings
    }
}

/// `referenceKey` names a stored attribute of the destination (inherited ones included).
enum RelationshipReferenceKeyRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var findings: [ModelIssue] = []
        for (e, entity) in model.entities.enumerated() {
            for (r, relationship) in entity.relationships.enumerated() {
                guard let key = relationship.referenceKey, let d = model.indexByName[relationship.destination] else { continue }
                let attributes = model.attributes(ofEntityAt: d)
                let path = ModelPath.relationship(e, r) + ".referenceKey"
                if let attribute = attributes.first(where: { $0.name == key }) {
                    guard !attribute.isStored else { continue }
                    findings.append(ModelIssue(
                        path: path,
                        message: "\(model.label(entity: e, relationship: r)): referenceKey '\(key)' is a"
                            + " \(attribute.isTransient ? "transient" : "derived") attribute of \(model.label(entity: d)), which"
                            + " the store keeps no value of to match; name a stored attribute"))
                    continue
                }
                let hint = Suggestion.didYouMean(key, among: attributes.map(\.name))
                findings.append(ModelIssue(
                    path: path,
                    message: "\(model.label(entity: e, relationship: r)): referenceKey '\(key)' is not an attribute of"
                        + " \(model.label(entity: d))\(hint.isEmpty ? "; name one of its attributes" : hint)"))
            }
        }
        return findings
    }
}

/// `inverse` names a relationship of the destination (inherited ones included) that leads back
/// to this entity (or an ancestor) and, if it names an inverse, names this relationship. A
/// relationship without an inverse gets a warning.
enum RelationshipInverseRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var findings: [ModelIssue] = []
        for (e, entity) in model.entities.enumerated() {
            for (r, relationship) in entity.relationships.enumerated() {
                let path = ModelPath.relationship(e, r) + ".inverse"
                let label = model.label(entity: e, relationship: r)
                guard let inverseName = relationship.inverse else {
                    findings.append(ModelIssue(
                        path: path,
                        message: "\(label) has no inverse; Trove cannot keep the other side consistent."
                            + " Add a relationship on '\(relationship.destination)' that points back and name it in \"inverse\"",
                        severity: .warning))
                    continue
                }
                guard let d = model.indexByName[relationship.destination] else { continue }
                let candidates = model.relationships(ofEntityAt: d)
                guard let inverse = candidates.first(where: { $0.name == inverseName }) else {
                    let hint = Suggestion.didYouMean(inverseName, among: candidates.map(\.name))
                    findings.append(ModelIssue(
                        path: path,
                        message: "\(label): inverse '\(inverseName)' is not a relationship of \(model.label(entity: d))"
                            + (hint.isEmpty ? "; declare it there or fix the name" : hint)))
                    continue
                }
                if !model.isSelfOrAncestor(inverse.destination, ofEntityAt: e) {
                    findings.append(ModelIssue(
                        path: path,
                        message: "\(label): inverse '\(inverseName)' of \(model.label(entity: d)) leads to"
                            + " '\(inverse.destination)', not back to '\(entity.name)'; name a relationship that points back"))
                } else if let back = inverse.inverse, back != relationship.name {
                    findings.append(ModelIssue(
                        path: path,
                        message: "\(label): inverse '\(inverseName)' of \(model.label(entity: d)) names '\(back)' as its"
                            + " inverse, not '\(relationship.name)'; make the two relationships name each other"))
                }
            }
        }
        return findings
    }
}
