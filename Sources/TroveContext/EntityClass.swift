import TroveModel
import TroveStore

/// A class of an entity's objects: a subclass of ``ManagedObject`` with typed properties,
/// generated from the model by `trove generate` or the `TroveGenerator` build plugin.
///
/// Register the classes with the container (`Container(model:url:classes:)`); from then on
/// every object of the entity that a context makes — by insert, fetch, fault, relationship or
/// import — is an instance of its class:
/// ```swift
/// let container = try Container(model: model, url: url, classes: [Photographer.self, Photo.self])
/// let photo = try context.insert(Photo.self)
/// photo.title = "Sunset"
/// let popular = try context.fetch(Photo.self, where: "views > %d", 100)
/// ```
/// A sub-entity's class is a subclass of its parent's, and overrides ``entityName``.
public protocol EntityClass: ManagedObject {
    /// The name of the entity whose objects are instances of this class.
    static var entityName: String { get }
    /// The entity's shape when the class was generated (see ``Entity/classSignature``):
    /// registering the class with a model whose entity has another shape is refused, so that a
    /// class generated from an older model file is never read at the wrong positions.
    static var generatedSignature: String { get }
    /// The model key path (`"title"`, `"whoTook.name"`) that a Swift key path of the class
    /// (`\Photo.title`, `\Photo.whoTook?.name`) stands for, or `nil`: how typed predicates and
    /// sort descriptors find their keys.
    static func modelKeyPath(for keyPath: AnyKeyPath) -> String?
    /// Whether batch requests on the entity must go through objects (default `false`): return
    /// `true` from a class that overrides ``ManagedObject/prepareForDeletion()``,
    /// ``ManagedObject/validateForDelete()``, ``ManagedObject/willSave()`` or
    /// ``ManagedObject/validateForUpdate()``, so that a batch delete or update of its objects
    /// fetches them and runs that code (Trove cannot see an override by itself). Without it, a
    /// batch request runs as SQL and skips the class's code, as Core Data's batch requests do.
    static var needsObjectsInBatchRequests: Bool { get }
}

extension EntityClass {
    /// `false`: batch requests run as SQL (see the requirement).
    public static var needsObjectsInBatchRequests: Bool { false }
}

/// What a context hands a ``ManagedObject`` initialiser: only a context makes objects.
public struct ObjectCreation {
    let entity: Entity
    let objectID: ObjectID
    let isObserved: Bool
    // The context is making the object: it outlives the creation. Its `parts` hold the rest.
    let context: Unmanaged<ObjectContext>
}

/// The parts of the object a context is making, which the object's initialiser takes over:
/// held by the context, so that ``ObjectCreation`` holds no arrays (a creation holding them was
/// copied and destroyed through value witnesses at every object made).
struct ObjectParts {
    var values: [AttributeValue] = []
    var snapshot: RowSnapshot?
    var relationships: [RelationshipState] = []
}

/// What a context's objects read of it on every change: its objects hold it (strongly), so that
/// a change of an object inserted in a context that records no undo needs no load of the
/// object's weak reference to its context.
final class ContextStatus {
    /// Whether the context still exists (set by its `deinit`).
    @exclusivity(unchecked) var isAlive = true
    /// Whether the context has an undo manager.
    @exclusivity(unchecked) var recordsUndo = false
    /// Whether a fetched-results controller follows the context (it must learn of changes to
    /// inserted objects it holds).
    @exclusivity(unchecked) var isFollowed = false
    /// Whether someone is told of every change (a document's autosave: see
    /// ``ObjectContext/changeHandler``).
    @exclusivity(unchecked) var isWatched = false
    /// Why the context takes no change now (a document's save or revert runs), or `nil`.
    @exclusivity(unchecked) var editingDisabledReason: String?

    /// Whether a change of an inserted object of the context may be made without the context:
    /// it exists, records no undo, no controller follows it, nobody watches it, and it takes changes.
    var takesChangesOfInsertsAlone: Bool {
        isAlive && !recordsUndo && !isFollowed && !isWatched && editingDisabledReason == nil
    }
}

/// The classes registered for a model's entities, checked against it once.
struct EntityClasses: Sendable {
    /// The class of each entity, by name; entities without one (and their sub-entities without
    /// one) use their nearest registered ancestor's class, or ``ManagedObject``.
    private var classes: [String: ManagedObject.Type] = [:]

    /// No classes: every object is a ``ManagedObject``.
    init() {}

    /// Checks each class against `model`.
    /// - Throws: ``ObjectError`` `.unknownEntity` for a class of an entity the model lacks, or
    ///   two classes for one entity; `.typeMismatch` for a class generated from another shape
    ///   of its entity, or one that does not subclass its parent entity's class.
    init(_ types: [any EntityClass.Type], model: Model) throws {
        var registered: [String: any EntityClass.Type] = [:]
        for type in types {
            let name = type.entityName
            guard let entity = model.entity(named: name) else {
                throw ObjectError(.unknownEntity,
                    "class \(type) is of entity '\(name)', which the model lacks; its entities are: \(model.entities.map(\.name).joined(separator: ", "))")
            }
            guard registered[name] == nil else {
                throw ObjectError(.unknownEntity, "two classes are registered for entity '\(name)': \(registered[name].map { "\($0)" } ?? "") and \(type)")
            }
            let expected = entity.classSignature
            guard type.generatedSignature == expected else {
                throw ObjectError(.typeMismatch,
                    "class \(type) was generated from another version of entity '\(name)' (generated from \(type.generatedSignature), the model has \(expected)); run `trove generate` again")
            }
            registered[name] = type
        }
        // Sub-entities inherit the nearest registered ancestor's class; a registered class must
        // subclass the class its parent entity gets.
        for entity in model.entities.sorted(by: { $0.depth(in: model) < $1.depth(in: model) }) {
            let inherited = entity.parent.flatMap { classes[$0] } ?? ManagedObject.self
            if let own = registered[entity.name] {
                let ownClass: ManagedObject.Type = own
                guard Self.isSubclass(ownClass, of: inherited) else {
                    throw ObjectError(.typeMismatch,
                        "class \(own) of entity '\(entity.name)' must subclass \(inherited), the class of its parent entity '\(entity.parent ?? "")'")
                }
                classes[entity.name] = ownClass
            } else {
                classes[entity.name] = inherited
            }
        }
    }

    /// The class of `entity`'s objects.
    func type(of entity: Entity) -> ManagedObject.Type {
        classes[entity.name] ?? ManagedObject.self
    }

    private static func isSubclass(_ type: AnyClass, of ancestor: AnyClass) -> Bool {
        var current: AnyClass? = type
        while let c = current {
            if c == ancestor { return true }
            current = _getSuperclass(c)
        }
        return false
    }
}

extension Entity {
    /// The entity's depth in its hierarchy (0 for a root).
    func depth(in model: Model) -> Int {
        var depth = 0
        var current = self
        while let parent = current.parent.flatMap({ model.entity(named: $0) }), depth <= model.entities.count {
            depth += 1
            current = parent
        }
        return depth
    }
}
