import TroveModel

/// Code that runs for objects of an entity (and its sub-entities), Core Data's
/// `prepareForDeletion` and `validateForInsert`/`validateForUpdate` without subclassing.
///
/// ```swift
/// var hooks = ObjectHooks()
/// hooks.prepareForDeletion(of: "Photo") { photo in
///     try photo.relatedObject(forKey: "whoTook")?.setValue(true, forKey: "needsReview")
/// }
/// hooks.validate("Photo") { photo in
///     if try photo.value(forKey: "title") == "" { throw ObjectHooks.Rejection("a title cannot be empty") }
/// }
/// let container = try Container(model: model, url: url, hooks: hooks)
/// ```
public struct ObjectHooks: Sendable {
    /// A custom validator's reason to refuse an object.
    public struct Rejection: Error, Sendable, CustomStringConvertible {
        /// What is wrong and what to do.
        public let message: String
        /// The attribute or relationship at fault, if one is.
        public let key: String?

        /// A rejection with its message.
        public init(_ message: String, key: String? = nil) {
            self.message = message
            self.key = key
        }

        public var description: String { message }
    }

    public typealias Hook = @Sendable (ManagedObject) throws -> Void

    private var deletionHooks: [String: [Hook]] = [:]
    private var validators: [String: [Hook]] = [:]

    /// No hooks.
    public init() {}

    /// Runs `body` when an object of `entityName` is deleted, before its relationships are
    /// torn down by their delete rules. Throwing stops the delete.
    public mutating func prepareForDeletion(of entityName: String, _ body: @escaping Hook) {
        deletionHooks[entityName, default: []].append(body)
    }

    /// Runs `body` on every inserted or updated object of `entityName` at save, after the
    /// model's rules. Throwing a ``Rejection`` (or any error) refuses the save with that message.
    public mutating func validate(_ entityName: String, _ body: @escaping Hook) {
        validators[entityName, default: []].append(body)
    }

    func deletionHooks(for entity: Entity, in model: Model) -> [Hook] {
        Self.lineage(of: entity, in: model).flatMap { deletionHooks[$0] ?? [] }
    }

    func validators(for entity: Entity, in model: Model) -> [Hook] {
        Self.lineage(of: entity, in: model).flatMap { validators[$0] ?? [] }
    }

    var isEmpty: Bool { deletionHooks.isEmpty && validators.isEmpty }

    /// The entity's name and its ancestors', root first (a parent's hooks run first).
    private static func lineage(of entity: Entity, in model: Model) -> [String] {
        var names = [entity.name]
        var current = entity
        while let parent = current.parent.flatMap({ model.entity(named: $0) }), names.count <= model.entities.count {
            names.insert(parent.name, at: 0)
            current = parent
        }
        return names
    }
}
