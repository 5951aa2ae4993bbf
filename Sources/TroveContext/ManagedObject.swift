import Observation
public import TroveModel
import TrovePredicate
import TroveStore

/// An object of the graph: an entity's values, tracked by the ``ObjectContext`` it lives in.
///
/// Values are read and written by key, checked against the model:
/// ```swift
/// let photo = try context.insert("Photo")
/// try photo.setValue("Sunset", forKey: "title")
/// let views = try photo.value(forKey: "views", as: Int.self)
/// ```
/// An object is not `Sendable`: it stays in its context's isolation domain. Pass its
/// ``objectID`` to other contexts instead.
///
/// Apps usually work with generated subclasses (see ``EntityClass``), whose typed properties
/// read and write the same storage: `photo.title = "Sunset"`. Override the life-cycle methods
/// (``awakeFromInsert()``, ``willSave()``, …) in such a class; only a context makes objects.
open class ManagedObject {
    // Stored properties read or written on every access are `@exclusivity(unchecked)`: an
    // object lives in one isolation domain, every access to them is a short one in this module
    // that calls no code that could reach the same property, and the runtime's checks cost
    // more than the work they guard (measured: a third of a typed setter's instructions).
    /// The object's entity (the most specific one).
    public let entity: Entity
    /// The object's identity: temporary until its first save, permanent after.
    @exclusivity(unchecked) public internal(set) var objectID: ObjectID
    /// The context the object lives in; `nil` once it left it: after ``ObjectContext/reset()``
    /// or a rollback of its insert (the object is *detached*), once its row is gone (the
    /// object is *removed*: see ``isRemoved``), or once the context is gone.
    public internal(set) var context: ObjectContext? {
        get { contextStatus.isAlive ? owner : nil }
        set { owner = newValue }
    }
    /// The context, neither retained nor weak (a weak reference costs every object, and its
    /// context's every retain, a side table's slower counting): read only while the context's
    /// status says it exists.
    @exclusivity(unchecked) unowned(unsafe) private var owner: ObjectContext?
    /// The status of the context the object was made in (see ``ContextStatus``).
    let contextStatus: ContextStatus

    /// Current values, by attribute position.
    @exclusivity(unchecked) var values: [AttributeValue]
    /// The row as last read from or written to the store; `nil` while inserted and unsaved.
    @exclusivity(unchecked) var snapshot: RowSnapshot?
    /// Current relationships, by relationship position: a fault until first touched.
    @exclusivity(unchecked) var relationships: [RelationshipState]
    /// For each relationship changed since the last save, its state before the first change.
    // (`[:]` here called a function at every object made; the empty initialiser is inlined.)
    @exclusivity(unchecked) var committedRelationships = [Int: RelationshipState]()
    /// Whether the object is inserted and not yet saved.
    @exclusivity(unchecked) public internal(set) var isInserted = false
    /// Whether the object is deleted and the delete not yet saved.
    @exclusivity(unchecked) public internal(set) var isDeleted = false
    /// Whether the object's row is gone from the store: its delete was saved, another
    /// context's saved delete was merged, or a refresh or a fault found the row missing.
    ///
    /// A removed object has no ``context``, is neither ``isDeleted`` nor ``hasChanges``, keeps
    /// the values it last had (a fault's attributes read as nil), and refuses every change:
    /// the dynamic API throws ``ObjectError`` `.notInContext`, a typed property sets
    /// ``faultError``. An object that left its context by ``ObjectContext/reset()`` or a
    /// rollback of its insert is not removed, only detached (`context == nil`): its row, if
    /// it has one, may still be fetched.
    @exclusivity(unchecked) public internal(set) var isRemoved = false
    /// Why the object's values or a relationship could not be read by a typed property (which
    /// cannot throw); `nil` when every read worked. See ``attributeValue(at:)``.
    @exclusivity(unchecked) public internal(set) var faultError: ObjectError?
    /// The object's Observation registrar, made on the first observed read.
    @exclusivity(unchecked) var observation: ObjectObservation?
    /// Whether reads are reported to Observation: its context's ``ObjectContext/isObservationEnabled``.
    @exclusivity(unchecked) var isObserved: Bool

    /// An object as a context makes it: subclasses inherit this initialiser and do not call it.
    public required init(_ creation: consuming ObjectCreation) {
        self.entity = creation.entity
        self.objectID = creation.objectID
        self.values = []
        self.snapshot = nil
        self.relationships = []
        self.isObserved = creation.isObserved
        let context = creation.context.takeUnretainedValue()
        self.owner = context
        self.contextStatus = context.status
        // Taken over from where the context left them, not copied (see `ObjectContext.parts`).
        swap(&values, &context.parts.values)
        swap(&snapshot, &context.parts.snapshot)
        swap(&relationships, &context.parts.relationships)
    }

    deinit {
        context?.objectWillDeallocate(self)
    }

    // MARK: Life cycle

    /// Called once, when a context inserts the object (not when it is fetched): set initial
    /// values here; they are part of the insert. Contexts, child contexts and the importer call it.
    open func awakeFromInsert() {}

    /// Called each time the object's values are read from the store (or, in a child context,
    /// from its parent): by a fetch, a fault filled, or a refresh or merge. Set transient state
    /// here; a stored attribute set here counts as a change.
    open func awakeFromFetch() {}

    /// Called when the object is deleted, before its relationships' delete rules run (and
    /// before ``ObjectHooks``' deletion hooks): the relationships are still there to read.
    open func prepareForDeletion() {}

    /// Called at the start of every save that inserts, updates or deletes the object, before
    /// validation; changes made here are validated and saved with the rest.
    open func willSave() {}

    /// Called after a save wrote the object's insert, update or delete (a deleted object is
    /// ``isRemoved`` by then).
    open func didSave() {}

    /// Called at save for an inserted object, after the model's rules were checked; throw to
    /// refuse the save (an ``ObjectHooks/Rejection`` names the key). The model's own rules are
    /// checked whether or not this is overridden: calling `super` is not needed.
    open func validateForInsert() throws {}

    /// Called at save for an updated object, as ``validateForInsert()`` is for an inserted one.
    open func validateForUpdate() throws {}

    /// Called at save for a deleted object; throw to refuse the save.
    open func validateForDelete() throws {}

    // MARK: Reading

    /// The value of the attribute `key` (``AttributeValue/null`` when it has none).
    /// - Throws: ``ObjectError`` `.unknownKey` when the entity has no such attribute.
    public final func value(forKey key: String) throws -> AttributeValue {
        let index = try position(of: key)
        try fireFault()
        return values[index]
    }

    /// The value of the attribute `key` as a Swift type; `nil` when the attribute is nil.
    /// - Throws: ``ObjectError`` `.unknownKey`, or `.typeMismatch` when the value cannot be a `T`.
    @inlinable
    public final func value<T: AttributeValueConvertible>(forKey key: String, as type: T.Type) throws -> T? {
        // Inlinable, so that the caller's `T` is known: a generic body asked the runtime for
        // `Optional<T>`'s metadata at every read.
        let value = try value(forKey: key)
        if value.isNull { return nil }
        guard let typed = T(attributeValue: value) else { throw typeMismatch(forKey: key, as: T.self) }
        return typed
    }

    /// The error of a read of `key` as a type its value cannot be.
    @usableFromInline
    func typeMismatch(forKey key: String, as type: Any.Type) -> ObjectError {
        let kind = entity.attributeIndex(named: key).map { entity.attributes[$0].type.rawValue } ?? "nil"
        return ObjectError(.typeMismatch, "\(objectID).\(key) holds a \(kind) value, which cannot be read as \(type)")
    }

    // MARK: Writing

    /// Sets the attribute `key` to `value`, checked against the attribute's type; `nil` clears it.
    ///
    /// ```swift
    /// let title: String? = row.title
    /// try photo.setValue(title, forKey: "title")      // nil clears
    /// try photo.setValue(42, forKey: "views")
    /// try photo.setValue(AttributeValue.null, forKey: "uploadDate")
    /// ```
    /// `value` is any ``AttributeValueConvertible`` (`String`, `Int`, `Date`, …, or an
    /// ``AttributeValue``) or an optional of one. An integer fits a `double`, `float` or
    /// `decimal` attribute; a one-character string fits a `character` attribute. Whether nil is
    /// allowed, and the min/max/regex rules, are checked at save.
    /// A transient attribute is set as any other (the object then has changes), but a save
    /// writes nothing for it.
    /// - Returns: whether the value changed (setting the value an attribute holds changes nothing).
    /// - Throws: ``ObjectError`` `.unknownKey`, `.typeMismatch` (wrong type, or an integer out of
    ///   the attribute's range), `.readOnly` (a derived attribute), `.objectDeleted`, or
    ///   `.notInContext`.
    @discardableResult
    public func setValue(_ value: consuming (any AttributeValueConvertible)?, forKey key: String) throws -> Bool {
        // Consumed, not borrowed: the existential is opened where it is, not copied first.
        let attributeValue: AttributeValue
        switch consume value {
        case .some(let value): attributeValue = value.attributeValue
        case .none: attributeValue = .null
        }
        return try setValue(attributeValue, forAttributeAt: try position(of: key))
    }

    /// Sets the attribute at `index` (its position in ``Entity/attributes``): the same as
    /// ``setValue(_:forKey:)`` without looking the name up, for generated code and importers.
    /// - Throws: ``ObjectError`` `.unknownKey` for an index out of range, and as ``setValue(_:forKey:)``.
    @discardableResult
    public func setValue(_ value: AttributeValue, forAttributeAt index: Int) throws -> Bool {
        // The entity's facts are read, not its attributes: a copy of an attribute retains each of its parts.
        let types = entity.attributeTypes
        guard types.indices.contains(index) else {
            throw ObjectError(.unknownKey, "entity '\(entity.name)' has no attribute at position \(index); it has \(types.count)")
        }
        if entity.hasDerivedAttributes, let derivation = entity.attributes[index].derivation {
            let name = entity.attributes[index].name
            throw ObjectError(.readOnly, "cannot set \(entity.name).\(name): it is derived (\(derivation)), computed by the store"
                + " when the object is read; change what it derives from, save, and fetch or refresh the object")
        }
        let checked: AttributeValue
        switch (types[index], value) {
        case (_, .null), (.string, .string), (.integer64, .integer), (.boolean, .boolean), (.date, .date):
            // Values that `checked` leaves as they are, without the call.
            checked = value
        default:
            switch types[index].checked(value) {
            case .success(let v): checked = v
            case .failure(let problem):
                throw ObjectError(.typeMismatch, "cannot set \(entity.name).\(entity.attributes[index].name) to \(value): \(problem)")
            }
        }
        // An insert (never a fault nor deleted) of a context that exists and records no undo,
        // which nobody observes: its change is its own, made without loading its context.
        if isInserted, observation == nil, contextStatus.takesChangesOfInsertsAlone {
            guard values[index] != checked else { return false }
            values[index] = checked
            return true
        }
        let context = try liveContext()
        try context.checkEditable()
        guard !isDeleted else {
            throw ObjectError(.objectDeleted, "cannot set \(entity.name).\(entity.attributes[index].name) of \(objectID): the object is deleted")
        }
        if isFault { try fireFault() }
        guard values[index] != checked else { return false }
        context.undoManager?.record(.value(self, index: index, before: values[index], after: checked))
        values[index] = checked
        if observation != nil { observeChange(attribute: index) }
        context.objectDidChange(self, key: entity.attributes[index].name)
        return true
    }

    // MARK: State

    /// Whether the object has attribute values or relationships that differ from the store's
    /// (and is neither inserted nor deleted).
    public var isUpdated: Bool {
        guard !isInserted, !isDeleted, !isRemoved, let snapshot else { return false }
        return values != snapshot.values || !changedRelationshipIndices.isEmpty
    }

    /// The positions of relationships whose objects differ from the committed ones (order
    /// counts only for ordered relationships).
    var changedRelationshipIndices: [Int] {
        committedRelationships.keys.sorted().filter { index in
            !relationships[index].isSame(as: committedRelationships[index] ?? .fault, ordered: entity.relationships[index].isOrdered)
        }
    }

    /// Whether the object's values are not loaded yet: they are read from the store the first
    /// time one is accessed (see ``FetchRequest/returnsObjectsAsFaults`` and
    /// ``FetchRequest/fetchBatchSize``).
    public var isFault: Bool {
        if isInserted { return false }
        if case .none = snapshot { return true }
        return false
    }

    /// Reads the object's row if it is a fault.
    /// - Throws: ``ObjectError`` `.objectNotFound` when the row was deleted from the store, or
    ///   `.notInContext` when the object has no context to read it with.
    func fireFault() throws {
        guard isFault else { return }
        guard let context else {
            if isRemoved {
                throw ObjectError(.notInContext, "\(objectID) was removed: its row is no longer in the store")
            }
            throw ObjectError(.notInContext, "\(objectID) has no values in memory and no context to read them (it was reset or rolled back); fetch it again")
        }
        try context.fulfill(self)
    }

    /// Whether the object is inserted, deleted or updated.
    public var hasChanges: Bool {
        isInserted || isDeleted || isUpdated
    }

    /// The values as last saved or fetched, by attribute name; empty for an unsaved insert.
    public func committedValues() -> [String: AttributeValue] {
        try? fireFault()
        guard let snapshot else { return [:] }
        return Dictionary(uniqueKeysWithValues: zip(entity.attributes.map(\.name), snapshot.values))
    }

    /// The names of the attributes and relationships that differ from the committed ones.
    var changedKeyNames: [String] {
        var names: [String] = []
        if let snapshot {
            for (i, attribute) in entity.attributes.enumerated() where i < values.count && snapshot.values[i] != values[i] {
                names.append(attribute.name)
            }
        }
        return names + changedRelationshipIndices.map { entity.relationships[$0].name }
    }

    /// The attributes whose values differ from the committed ones, with their new values
    /// (every attribute for an unsaved insert).
    public func changedValues() -> [String: AttributeValue] {
        try? fireFault()
        var changed: [String: AttributeValue] = [:]
        for (i, attribute) in entity.attributes.enumerated() where snapshot.map({ $0.values[i] != values[i] }) ?? true {
            changed[attribute.name] = values[i]
        }
        return changed
    }

    // MARK: Helpers

    func position(of key: String) throws -> Int {
        guard let index = entity.attributeIndex(named: key) else {
            let known = entity.attributes.map(\.name).joined(separator: ", ")
            throw ObjectError(.unknownKey, "entity '\(entity.name)' has no attribute '\(key)'; its attributes are: \(known)")
        }
        return index
    }
}

extension ManagedObject: Hashable {
    /// Objects are equal when they are the same instance (one instance per row per context).
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension ManagedObject: CustomStringConvertible {
    /// `Photo/42 {title: "Sunset", views: 3}`, or `Photo/42 <fault>` for a fault.
    public var description: String {
        if isFault { return "\(objectID) <fault>" }
        let pairs = zip(entity.attributes, values).map { "\($0.name): \($1)" }.joined(separator: ", ")
        return "\(objectID) {\(pairs)}"
    }
}

@available(*, unavailable, message: "a ManagedObject stays in its context; pass its objectID instead")
extension ManagedObject: Sendable {}
