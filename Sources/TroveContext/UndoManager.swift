import TroveModel

/// Undo and redo for one context: assign one to ``ObjectContext/undoManager`` to record
/// changes (leave it `nil`, the default, for imports: recording costs memory).
///
/// Changes are grouped: explicitly between ``beginGroup()`` and ``endGroup()``, otherwise one
/// group per run of pending changes (closed by ``ObjectContext/processPendingChanges()`` and
/// by a save). Undo reverts attribute values, relationships (both sides), inserts and deletes
/// (with what the delete rules did). A save, a rollback or a reset clears both stacks.
public final class ContextUndoManager {
    enum Change {
        case value(ManagedObject, index: Int, before: AttributeValue, after: AttributeValue)
        case relationship(ManagedObject, index: Int, before: RelationshipState, after: RelationshipState)
        case insert(ManagedObject)
        case delete(ManagedObject, wasInserted: Bool)
    }

    weak var context: ObjectContext?
    private var undoStack: [[Change]] = []
    private var redoStack: [[Change]] = []
    private var open: [Change] = []
    private var explicitDepth = 0
    /// Whether changes are being applied by undo or redo (and so are not recorded).
    private(set) var isReplaying = false

    /// A manager with empty stacks.
    public init() {}

    /// Whether there is a group to undo.
    public var canUndo: Bool { !undoStack.isEmpty || !open.isEmpty }
    /// Whether there is a group to redo.
    public var canRedo: Bool { !redoStack.isEmpty }

    /// Starts a group that lasts until the matching ``endGroup()``, whatever is processed between.
    public func beginGroup() {
        if explicitDepth == 0 { closeGroup() }
        explicitDepth += 1
    }

    /// Ends the group ``beginGroup()`` started.
    public func endGroup() {
        explicitDepth = max(0, explicitDepth - 1)
        if explicitDepth == 0 { closeGroup() }
    }

    /// Reverts the last group of changes.
    public func undo() {
        closeGroup()
        guard let group = undoStack.popLast(), let context else { return }
        replay { for change in group.reversed() { context.revert(change) } }
        redoStack.append(group)
    }

    /// Applies again the last group undone.
    public func redo() {
        guard let group = redoStack.popLast(), let context else { return }
        replay { for change in group { context.reapply(change) } }
        undoStack.append(group)
    }

    /// Forgets every group.
    public func removeAll() {
        undoStack = []
        redoStack = []
        open = []
        explicitDepth = 0
    }

    func record(_ change: Change) {
        guard !isReplaying else { return }
        open.append(change)
        redoStack = []
    }

    /// Closes the implicit group (a run of pending changes).
    func closeRun() {
        if explicitDepth == 0 { closeGroup() }
    }

    private func closeGroup() {
        guard !open.isEmpty else { return }
        undoStack.append(open)
        open = []
    }

    private func replay(_ body: () -> Void) {
        isReplaying = true
        body()
        isReplaying = false
    }
}

extension ObjectContext {
    /// Undoes one change: the object's state before it.
    func revert(_ change: ContextUndoManager.Change) {
        switch change {
        case .value(let object, let index, let before, _):
            object.values[index] = before
            object.observeChange(attribute: index)
            objectDidChange(object, key: object.entity.attributes[index].name)
        case .relationship(let object, let index, let before, _):
            object.relationships[index] = before
            object.observeChange(relationship: index)
            objectDidChange(object, key: object.entity.relationships[index].name)
        case .insert(let object):
            drop(object)
        case .delete(let object, let wasInserted):
            if wasInserted {
                // A delete of an insert kept it among the deleted too (see `delete(_:)`).
                deleted[object.objectID] = nil
                adopt(object)
            } else {
                deleted[object.objectID] = nil
                object.isDeleted = false
                announce(back: object)
            }
        }
    }

    /// Redoes one change: the object's state after it.
    func reapply(_ change: ContextUndoManager.Change) {
        switch change {
        case .value(let object, let index, _, let after):
            object.values[index] = after
            object.observeChange(attribute: index)
            objectDidChange(object, key: object.entity.attributes[index].name)
        case .relationship(let object, let index, _, let after):
            object.relationships[index] = after
            object.observeChange(relationship: index)
            objectDidChange(object, key: object.entity.relationships[index].name)
        case .insert(let object):
            adopt(object)
        case .delete(let object, let wasInserted):
            if wasInserted {
                drop(object)
            } else {
                object.isDeleted = true
                deleted[object.objectID] = object
                announce(gone: object)
            }
        }
    }

    /// Takes an unsaved insert out of the context (undoing its insert).
    private func drop(_ object: ManagedObject) {
        inserted.remove(object)
        object.isDeleted = false
        forget(object)
        announce(gone: object)
    }

    /// Puts an unsaved insert back (redoing it).
    private func adopt(_ object: ManagedObject) {
        object.context = self
        object.isDeleted = false
        // Undoing changes made before its insert was undone may have counted it as updated;
        // an insert is saved whole.
        touched[object.objectID] = nil
        inserted.add(object)
        announce(back: object)
    }

    /// Records, for the next ``processPendingChanges()``, that an undo or redo took `object` out
    /// of the context's objects (an insert undone, a delete redone).
    private func announce(gone object: ManagedObject) {
        let id = object.objectID
        pendingChanges.updated.remove(id)
        pendingChanges.changedKeys[id] = nil
        if pendingChanges.inserted.remove(id) == nil { pendingChanges.deleted.insert(id) }
    }

    /// Records that an undo or redo put `object` back (an insert redone, a delete undone).
    private func announce(back object: ManagedObject) {
        let id = object.objectID
        if pendingChanges.deleted.remove(id) == nil { pendingChanges.inserted.insert(id) }
    }
}
