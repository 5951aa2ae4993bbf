/// Each `uniqueBy` constraint is non-empty, names stored attributes of the entity (inherited
/// ones included; not transient or derived ones) and names none twice.
enum UniqueByRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var findings: [ModelIssue] = []
        for (e, entity) in model.entities.enumerated() {
            let attributes = model.attributes(ofEntityAt: e)
            let names = attributes.map(\.name)
            for (c, constraint) in entity.uniqueBy.enumerated() {
                let path = ModelPath.entity(e) + ".uniqueBy[\(c)]"
                if constraint.isEmpty {
                    findings.append(ModelIssue(
                        path: path,
                        message: "\(model.label(entity: e)): uniqueBy constraint \(c) is empty; name at least one attribute"))
                }
                for (n, name) in constraint.enumerated() {
                    let message: String
                    if !names.contains(name) {
                        let hint = Suggestion.didYouMean(name, among: names)
                        message = "uniqueBy names '\(name)', which is not an attribute of the entity"
                            + (hint.isEmpty ? "; name one of its attributes" : hint)
                    } else if let attribute = attributes.first(where: { $0.name == name }), !attribute.isStored {
                        message = "uniqueBy names '\(name)', which is \(attribute.isTransient ? "transient" : "derived"):"
                            + " the store keeps no value of it to compare; name stored attributes only"
                    } else if constraint[..<n].contains(name) {
                        message = "uniqueBy names '\(name)' twice in one constraint; remove the repeat"
                    } else {
                        continue
                    }
                    findings.append(ModelIssue(path: path + "[\(n)]", message: "\(model.label(entity: e)): \(message)"))
                }
            }
        }
        return findings
    }
}
