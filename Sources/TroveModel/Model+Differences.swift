extension Model {
    /// What differs between `other` (e.g. the model a store was created with) and this model,
    /// in what shapes a store: entities, stored attributes' names and types, relationships, unique
    /// keys (transient and derived attributes shape nothing).
    ///
    /// One line per difference, e.g. `attribute Photo.views: integer64 in the store, string in
    /// this model`; empty when both have the same ``versionHash``.
    public func differences(from other: Model, otherName: String = "the store", thisName: String = "this model") -> [String] {
        var lines: [String] = []
        func only(_ what: String, in name: String) { lines.append("\(what) is only in \(name)") }
        let ours = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let theirs = Dictionary(other.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for name in Set(ours.keys).union(theirs.keys).sorted() {
            guard let mine = ours[name] else { only("entity \(name)", in: otherName); continue }
            guard let old = theirs[name] else { only("entity \(name)", in: thisName); continue }
            if mine.parent != old.parent {
                lines.append("entity \(name): parent \(old.parent ?? "none") in \(otherName), \(mine.parent ?? "none") in \(thisName)")
            }
            if mine.isAbstract != old.isAbstract {
                lines.append("entity \(name): abstract \(old.isAbstract) in \(otherName), \(mine.isAbstract) in \(thisName)")
            }
            let myAttributes = Dictionary(mine.attributes.filter(\.isStored).map { ($0.name, $0.type) }, uniquingKeysWith: { a, _ in a })
            let oldAttributes = Dictionary(old.attributes.filter(\.isStored).map { ($0.name, $0.type) }, uniquingKeysWith: { a, _ in a })
            for key in Set(myAttributes.keys).union(oldAttributes.keys).sorted() {
                switch (oldAttributes[key], myAttributes[key]) {
                case (nil, _): only("attribute \(name).\(key)", in: thisName)
                case (_, nil): only("attribute \(name).\(key)", in: otherName)
                case (let a?, let b?) where a != b:
                    lines.append("attribute \(name).\(key): \(a.rawValue) in \(otherName), \(b.rawValue) in \(thisName)")
                default: break
                }
            }
            let myRelationships = Dictionary(mine.relationships.map { ($0.name, Self.shape(of: $0)) }, uniquingKeysWith: { a, _ in a })
            let oldRelationships = Dictionary(old.relationships.map { ($0.name, Self.shape(of: $0)) }, uniquingKeysWith: { a, _ in a })
            for key in Set(myRelationships.keys).union(oldRelationships.keys).sorted() {
                switch (oldRelationships[key], myRelationships[key]) {
                case (nil, _): only("relationship \(name).\(key)", in: thisName)
                case (_, nil): only("relationship \(name).\(key)", in: otherName)
                case (let a?, let b?) where a != b:
                    lines.append("relationship \(name).\(key): \(a) in \(otherName), \(b) in \(thisName)")
                default: break
                }
            }
            if mine.uniqueBy != old.uniqueBy {
                lines.append("entity \(name): unique keys \(old.uniqueBy) in \(otherName), \(mine.uniqueBy) in \(thisName)")
            }
        }
        return lines
    }

    private static func shape(of r: Relationship) -> String {
        "\(r.isToMany ? (r.isOrdered ? "ordered to-many" : "to-many") : "to-one") \(r.destination) inverse \(r.inverse ?? "none")"
    }
}
