/// Entity, attribute and relationship names are identifiers (`[A-Za-z][A-Za-z0-9_]*`); a leading
/// `_` is reserved for Trove's own columns.
package enum IdentifierRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var findings: [ModelIssue] = []
        for (e, entity) in model.entities.enumerated() {
            if let problem = problem(with: entity.name) {
                findings.append(ModelIssue(path: ModelPath.entity(e) + ".name", message: "entity name \(problem)"))
            }
            if let old = entity.renamedFrom, let problem = problem(with: old) {
                findings.append(ModelIssue(path: ModelPath.entity(e) + ".renamedFrom", message: "renamedFrom \(problem) (in \(model.label(entity: e)))"))
            }
            for (a, attribute) in entity.attributes.enumerated() {
                if let problem = problem(with: attribute.name) {
                    findings.append(ModelIssue(
                        path: ModelPath.attribute(e, a) + ".name",
                        message: "attribute name \(problem) (in \(model.label(entity: e)))"))
                }
                if let old = attribute.renamedFrom, let problem = problem(with: old) {
                    findings.append(ModelIssue(
                        path: ModelPath.attribute(e, a) + ".renamedFrom",
                        message: "renamedFrom \(problem) (in \(model.label(entity: e, attribute: a)))"))
                }
            }
            for (r, relationship) in entity.relationships.enumerated() {
                if let problem = problem(with: relationship.name) {
                    findings.append(ModelIssue(
                        path: ModelPath.relationship(e, r) + ".name",
                        message: "relationship name \(problem) (in \(model.label(entity: e)))"))
                }
                if let old = relationship.renamedFrom, let problem = problem(with: old) {
                    findings.append(ModelIssue(
                        path: ModelPath.relationship(e, r) + ".renamedFrom",
                        message: "renamedFrom \(problem) (in \(model.label(entity: e, relationship: r)))"))
                }
            }
        }
        return findings
    }

    /// What is wrong with `name` as an identifier, completing "entity name …", or `nil`.
    package static func problem(with name: String) -> String? {
        if name.isEmpty { return "is empty; give a name of letters, digits and '_', starting with a letter" }
        if name.hasPrefix("_") {
            return "'\(name)' starts with '_', which is reserved for Trove's own columns; start it with a letter"
        }
        guard let first = name.unicodeScalars.first, isASCIILetter(first),
              name.unicodeScalars.allSatisfy({ isASCIILetter($0) || ("0"..."9").contains($0) || $0 == "_" }) else {
            return "'\(name)' is not an identifier; use only ASCII letters, digits and '_', starting with a letter"
        }
        return nil
    }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}

/// Entity names are unique ignoring case: each becomes an SQLite table name.
enum UniqueEntityNameRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var firstIndex: [String: Int] = [:]
        var findings: [ModelIssue] = []
        for (e, entity) in model.entities.enumerated() {
            let key = entity.name.lowercased()
            if let first = firstIndex[key] {
                findings.append(ModelIssue(
                    path: ModelPath.entity(e) + ".name",
                    message: "entity name '\(entity.name)' is already used by the entity at \(ModelPath.entity(first))"
                        + " ('\(model.entities[first].name)'); entity names must differ ignoring case"
                        + " (they become table names), so rename one"))
            } else {
                firstIndex[key] = e
            }
        }
        return findings
    }
}

/// Property names are unique ignoring case across an inheritance hierarchy: the hierarchy's
/// entities share one table, where every attribute and to-one relationship is a column.
enum UniquePropertyNameRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var hierarchies: [Int: [Int]] = [:]
        for e in model.entities.indices {
            guard let root = model.rootIndices[e] else { continue }
            hierarchies[root, default: []].append(e)
        }
        var findings: [ModelIssue] = []
        for members in hierarchies.values {
            var seen: [String: String] = [:]
            for e in members {
                let entity = model.entities[e]
                let properties = entity.attributes.enumerated().map {
                    (name: $1.name, path: ModelPath.attribute(e, $0), label: model.label(entity: e, attribute: $0))
                } + entity.relationships.enumerated().map {
                    (name: $1.name, path: ModelPath.relationship(e, $0), label: model.label(entity: e, relationship: $0))
                }
                for property in properties {
                    let key = property.name.lowercased()
                    if let earlier = seen[key] {
                        let scope = model.entities[e].parent == nil && members.count == 1
                            ? "names must differ ignoring case within an entity"
                            : "names must differ ignoring case across an inheritance hierarchy, whose entities share one table"
                        findings.append(ModelIssue(
                            path: property.path + ".name",
                            message: "\(property.label): the name is already used by \(earlier); \(scope), so rename one"))
                    } else {
                        seen[key] = property.label
                    }
                }
            }
        }
        return findings
    }
}

/// No entity name starts with `sqlite_` (ignoring case): SQLite reserves such table names for
/// itself and refuses to create them.
enum ReservedEntityNameRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        model.entities.enumerated().compactMap { e, entity in
            guard entity.name.lowercased().hasPrefix("sqlite_") else { return nil }
            return ModelIssue(
                path: ModelPath.entity(e) + ".name",
                message: "entity name '\(entity.name)' starts with 'sqlite_', which SQLite reserves for its own tables"
                    + " (ignoring case); rename the entity")
        }
    }
}

/// Each inheritance hierarchy fits in one SQLite table: at most ``Model/maximumColumnsPerTable``
/// columns — Trove's own (`_pk`, `_version`, and `_entity` when the hierarchy has sub-entities),
/// one per stored attribute and one per to-one relationship of every entity in it.
enum ColumnLimitRule: ModelRule {
    static func findings(in model: DeclaredModel) -> [ModelIssue] {
        var members: [Int: (entities: Int, attributes: Int, toOnes: Int)] = [:]
        for (e, entity) in model.entities.enumerated() {
            guard let root = model.rootIndices[e] else { continue }
            members[root, default: (0, 0, 0)].entities += 1
            members[root, default: (0, 0, 0)].attributes += entity.attributes.count(where: \.isStored)
            members[root, default: (0, 0, 0)].toOnes += entity.relationships.count(where: { !$0.isToMany })
        }
        let limit = Model.maximumColumnsPerTable
        return members.keys.sorted().compactMap { root in
            guard let counts = members[root] else { return nil }
            let own = counts.entities > 1 ? 3 : 2
            let columns = own + counts.attributes + counts.toOnes
            guard columns > limit else { return nil }
            let whose = counts.entities > 1 ? "\(model.label(entity: root)) and its \(counts.entities - 1) sub-entities" : model.label(entity: root)
            return ModelIssue(
                path: ModelPath.entity(root),
                message: "\(whose) need \(columns) columns in their table (\(counts.attributes) stored attributes,"
                    + " \(counts.toOnes) to-one relationships, \(own) of Trove's own), more than the \(limit) SQLite allows;"
                    + " move attributes into a related entity")
        }
    }
}
