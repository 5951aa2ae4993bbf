extension Entity {
    /// The entity's shape as a generated class sees it, in position order: each attribute's
    /// name and type (`?` when a Swift property of it is optional: the attribute may be nil and
    /// has no default; `:derived` after a derived attribute, whose property is read-only), then
    /// each relationship's name and destination (`Photographer?` to-one, `{Photo}` to-many,
    /// `[Track]` ordered to-many).
    ///
    /// `id:string title:string? views:integer64 | whoTook:Photographer? tags:{Tag}`. A class
    /// generated from the entity carries it, and registering the class with a model whose
    /// entity has another signature is refused.
    public var classSignature: String {
        let attributes = attributes.map {
            "\($0.name):\($0.type.rawValue)\($0.hasOptionalProperty ? "?" : "")\($0.isDerived ? ":derived" : "")"
        }
        let relationships = relationships.map { r in
            "\(r.name):" + (r.isToMany ? (r.isOrdered ? "[\(r.destination)]" : "{\(r.destination)}") : "\(r.destination)?")
        }
        return (attributes + ["|"] + relationships).joined(separator: " ")
    }
}

extension Attribute {
    /// Whether a generated property of this attribute is a Swift optional: the attribute may
    /// be nil and has no default value.
    public var hasOptionalProperty: Bool {
        isOptional && defaultValue.isNull
    }
}
