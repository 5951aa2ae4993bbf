public import TroveModel

/// A picture of a model: a box per entity with its attributes, an arrow per relationship (and
/// its inverse), and a link from each sub-entity to its parent — as Graphviz DOT text or as a
/// Mermaid class diagram.
///
/// ```swift
/// let dot = ModelGraph.dot(model)         // `dot -Tsvg` draws it
/// let mermaid = ModelGraph.mermaid(model) // GitHub and DocC render it in a ```mermaid block
/// ```
/// A box lists the entity's own attributes (a sub-entity's inherited ones are in its parent's
/// box) as `name: type`, with `?` for an optional one, `[transient]` and `[derived]` marked,
/// then one `unique: a, b` line per uniqueness constraint; an abstract entity is marked
/// `«abstract»`. A relationship and its inverse are one line between the two boxes, labelled
/// with both names, their kinds (to-one, to-many, ordered) and delete rules, and carrying the
/// cardinality at each end (`1`, `0..1`, `*`, or the `minCount..maxCount` bounds); DOT draws a
/// to-one end with one arrowhead and a to-many end with two, as Xcode's model editor does.
/// The text depends only on the model, in its order, so it can be committed and compared.
public enum ModelGraph {
    /// The model as a Graphviz `digraph`: HTML-like table labels for the entity boxes.
    public static func dot(_ model: Model) -> String {
        var lines = [
            "digraph Model {",
            "  rankdir=LR;",
            "  node [shape=plain, fontname=\"Helvetica\", fontsize=11];",
            "  edge [fontname=\"Helvetica\", fontsize=9];",
        ]
        for entity in model.entities {
            let box = Box(entity, in: model)
            var rows = ["<tr><td bgcolor=\"#dce6f2\"><b>\(html(entity.name))</b>\(entity.isAbstract ? " «abstract»" : "")</td></tr>"]
            for attribute in box.attributes {
                let name = box.uniqueNames.contains(attribute.name) ? "<u>\(html(attribute.name))</u>" : html(attribute.name)
                rows.append("<tr><td align=\"left\">\(name)\(html(String(describe(attribute).dropFirst(attribute.name.count))))</td></tr>")
            }
            for constraint in box.unique {
                rows.append("<tr><td align=\"left\"><i>unique: \(html(constraint.joined(separator: ", ")))</i></td></tr>")
            }
            lines.append("  \(quoted(entity.name)) [label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"3\">"
                + rows.joined() + "</table>>];")
        }
        for link in links(model) {
            let ends = "headlabel=\(quoted(cardinality(link.relationship))), arrowhead=\(arrowhead(link.relationship))"
            if let inverse = link.inverse {
                let label = link.isOwnInverse ? describe(link.relationship, "its own inverse") : describe(link.relationship) + "\n" + describe(inverse)
                lines.append("  \(quoted(link.source)) -> \(quoted(link.relationship.destination)) [label=\(quoted(label)), dir=both, \(ends), "
                    + "taillabel=\(quoted(cardinality(inverse))), arrowtail=\(arrowhead(inverse))];")
            } else {
                lines.append("  \(quoted(link.source)) -> \(quoted(link.relationship.destination)) [label=\(quoted(describe(link.relationship, "no inverse"))), \(ends)];")
            }
        }
        for entity in model.entities {
            guard let parent = entity.parent else { continue }
            lines.append("  \(quoted(entity.name)) -> \(quoted(parent)) [arrowhead=empty];")
        }
        return (lines + ["}"]).joined(separator: "\n") + "\n"
    }

    /// The model as a Mermaid `classDiagram`: a class per entity, an association per
    /// relationship (with its inverse), `<|--` from each parent to its sub-entities.
    public static func mermaid(_ model: Model) -> String {
        var lines = ["classDiagram", "  direction LR"]
        for entity in model.entities {
            let box = Box(entity, in: model)
            lines.append("  class \(entity.name) {")
            if entity.isAbstract { lines.append("    <<abstract>>") }
            for attribute in box.attributes {
                lines.append("    \(describe(attribute))")
            }
            for constraint in box.unique {
                lines.append("    unique: \(constraint.joined(separator: ", "))")
            }
            lines.append("  }")
        }
        for link in links(model) {
            let (source, destination) = (link.source, link.relationship.destination)
            if let inverse = link.inverse {
                let label = link.isOwnInverse ? describe(link.relationship, "its own inverse") : describe(link.relationship) + " / " + describe(inverse)
                lines.append("  \(source) \(quoted(cardinality(inverse))) -- \(quoted(cardinality(link.relationship))) \(destination) : \(label)")
            } else {
                lines.append("  \(source) --> \(quoted(cardinality(link.relationship))) \(destination) : \(describe(link.relationship, "no inverse"))")
            }
        }
        for entity in model.entities {
            guard let parent = entity.parent else { continue }
            lines.append("  \(parent) <|-- \(entity.name)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Parts

    /// What an entity's box shows: its own attributes and uniqueness constraints (those it
    /// inherits are in its parent's box).
    private struct Box {
        let attributes: [Attribute]
        let unique: [[String]]
        let uniqueNames: Set<String>

        init(_ entity: Entity, in model: Model) {
            let parent = entity.parent.flatMap(model.entity(named:))
            attributes = Array(entity.attributes.dropFirst(parent?.attributes.count ?? 0))
            unique = entity.uniqueBy.filter { !(parent?.uniqueBy.contains($0) ?? false) }
            uniqueNames = Set(unique.joined())
        }
    }

    /// A relationship drawn once, from the entity that declares it, with its inverse when it
    /// has one.
    private struct Link {
        let source: String
        let relationship: Relationship
        let inverse: Relationship?
        var isOwnInverse: Bool { inverse?.name == relationship.name && relationship.destination == source }
    }

    /// Every relationship of the model, each pair with its inverse once (from the side declared
    /// first in the model's order), in the model's order.
    private static func links(_ model: Model) -> [Link] {
        var drawn: Set<[String]> = []
        var links: [Link] = []
        for entity in model.entities {
            let inherited = entity.parent.flatMap(model.entity(named:))?.relationships.count ?? 0
            for relationship in entity.relationships.dropFirst(inherited) where !drawn.contains([entity.name, relationship.name]) {
                let destination = model.entity(named: relationship.destination)
                let inverse = relationship.inverse.flatMap { destination?.relationship(named: $0) }
                if let inverse, let destination {
                    drawn.insert([declaring(inverse.name, from: destination, in: model), inverse.name])
                }
                links.append(Link(source: entity.name, relationship: relationship, inverse: inverse))
            }
        }
        return links
    }

    /// The entity that declares the relationship `name` that `entity` has: itself, or the
    /// ancestor it inherits it from.
    private static func declaring(_ name: String, from entity: Entity, in model: Model) -> String {
        var current = entity
        while let parent = current.parent.flatMap(model.entity(named:)), parent.relationship(named: name) != nil {
            current = parent
        }
        return current.name
    }

    /// `title: string?`, `id: string`, `score: double? [derived]`.
    private static func describe(_ attribute: Attribute) -> String {
        var text = "\(attribute.name): \(attribute.type.rawValue)\(attribute.isOptional ? "?" : "")"
        // Brackets, not parentheses: Mermaid takes a member with parentheses for a method.
        if attribute.isTransient { text += " [transient]" }
        if attribute.isDerived { text += " [derived]" }
        return text
    }

    /// `photos (to-many, cascade)`, `playlist (to-many ordered, nullify)`, with `note` last.
    private static func describe(_ relationship: Relationship, _ note: String? = nil) -> String {
        let kind = relationship.isToMany ? (relationship.isOrdered ? "to-many ordered" : "to-many") : "to-one"
        let parts = [kind, relationship.deleteRule.rawValue] + (note.map { [$0] } ?? [])
        return "\(relationship.name) (\(parts.joined(separator: ", ")))"
    }

    /// How many objects the relationship holds: `1`, `0..1`, `*`, `1..*`, `0..5`.
    private static func cardinality(_ relationship: Relationship) -> String {
        guard relationship.isToMany else { return relationship.isOptional ? "0..1" : "1" }
        switch (relationship.minCount, relationship.maxCount) {
        case (nil, nil): return "*"
        case (let low?, nil): return "\(low)..*"
        case (let low, let high?): return "\(low ?? 0)..\(high)"
        }
    }

    /// One arrowhead for a to-one end, two for a to-many end.
    private static func arrowhead(_ relationship: Relationship) -> String {
        relationship.isToMany ? "normalnormal" : "normal"
    }

    /// A DOT string: in double quotes, with quotes and backslashes escaped and line breaks as `\n`.
    private static func quoted(_ text: String) -> String {
        let escaped = text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
            .replacing("\n", with: "\\n")
        return "\"\(escaped)\""
    }

    /// Text for an HTML-like DOT label, with `&`, `<`, `>` and `"` escaped.
    private static func html(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;")
            .replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }
}
