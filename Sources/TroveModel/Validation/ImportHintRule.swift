/// Import hints are usable: `dateFormat` only on date attributes and never an empty pattern,
/// `transformer` and `remoteName` not empty, every `remoteKey` a non-empty key or dotted path.
enum ImportHintRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var findings: [ModelIssue] = []
        for (e, entity) in model.entities.enumerated() {
            if entity.remoteName?.isEmpty == true {
                findings.append(ModelIssue(
                    path: ModelPath.entity(e) + ".remoteName",
                    message: "\(model.label(entity: e)): remoteName is empty; give the entity's name in JSON or remove it"))
            }
            for (a, attribute) in entity.attributes.enumerated() {
                let path = ModelPath.attribute(e, a)
                let label = model.label(entity: e, attribute: a)
                findings += remoteKeyFindings(attribute.remoteKeys, path: path, label: label)
                if let format = attribute.dateFormat {
                    if attribute.type != .date {
                        findings.append(ModelIssue(
                            path: path + ".dateFormat",
                            message: "\(label): dateFormat applies only to date attributes, not \(attribute.type.rawValue); remove it"))
                    } else if format.name.isEmpty {
                        findings.append(ModelIssue(
                            path: path + ".dateFormat",
                            message: "\(label): dateFormat is empty; use iso8601, epochSeconds, epochMilliseconds"
                                + " or a pattern such as \"yyyy-MM-dd HH:mm:ss\""))
                    }
                }
                if attribute.transformer?.isEmpty == true {
                    findings.append(ModelIssue(
                        path: path + ".transformer",
                        message: "\(label): transformer is empty; give the name of a registered transformer or remove it"))
                }
            }
            for (r, relationship) in entity.relationships.enumerated() {
                findings += remoteKeyFindings(
                    relationship.remoteKeys, path: ModelPath.relationship(e, r), label: model.label(entity: e, relationship: r))
            }
        }
        return findings
    }

    private static func remoteKeyFindings(_ keys: [String], path: String, label: String) -> [ModelIssue] {
        keys.enumerated().compactMap { i, key in
            guard key.isEmpty || key.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
                return nil
            }
            let keyPath = keys.count == 1 ? path + ".remoteKey" : path + ".remoteKey[\(i)]"
            return ModelIssue(
                path: keyPath,
                message: "\(label): remoteKey \(AttributeValue.string(key)) has an empty key; give a JSON key"
                    + " or a dotted path such as \"owner.id\"")
        }
    }
}
