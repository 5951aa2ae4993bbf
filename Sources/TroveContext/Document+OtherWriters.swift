public import TroveModel
import Logging

extension Document {
    /// An object whose unsaved changes in the document's ``context`` clash with a save made
    /// elsewhere: by another document on the same file (in this process or another), another
    /// program writing the store, or one of this document's background contexts.
    ///
    /// While a document has conflicts its state contains ``State/inConflict`` and it does not
    /// save: settle each with ``resolveConflict(of:by:)`` or all with
    /// ``resolveAllConflicts(by:)``, then save.
    public struct Conflict: Sendable, Hashable {
        /// How the two sides differ.
        public enum Kind: Sendable, Hashable {
            /// Both sides changed ``keys`` to different values.
            case changedOnBothSides
            /// Another writer deleted the object, which has unsaved changes here (``keys``).
            case deletedElsewhere
            /// The object is deleted here (unsaved), and another writer changed ``keys``.
            case deletedHere
        }

        /// The object in conflict.
        public let objectID: ObjectID
        /// How the two sides differ.
        public let kind: Kind
        /// The attributes and to-one relationships at stake (see ``Kind``).
        public let keys: [String]
        /// This document's unsaved values of the attributes among ``keys``.
        public let myValues: [String: AttributeValue]
        /// The stored values of the attributes among ``keys`` (empty when the object was deleted
        /// elsewhere).
        public let storedValues: [String: AttributeValue]
    }

    /// How to settle a ``Conflict``.
    public enum ConflictResolution: Sendable, Hashable {
        /// This document's changes win on the keys in conflict; the other side's changes to
        /// other keys stay. An object deleted here stays deleted; one deleted elsewhere is
        /// inserted again as a new object with this document's values and relationships.
        case keepMine
        /// The stored values win on the keys in conflict; this document's other unsaved changes
        /// to the object stay. An object deleted here comes back as stored (what its delete
        /// did to other objects stays unsaved there; revert those by hand); one deleted
        /// elsewhere leaves the context.
        case takeTheirs
    }

    /// The objects whose unsaved changes clash with other writers' saves, in the order they
    /// were found.
    public var conflicts: [Conflict] { clashes.map(\.conflict) }

    /// Looks for saves made elsewhere since the last look — by another document on the same
    /// file, another process, or this document's background contexts — and brings them into
    /// ``context``: objects without unsaved changes take the stored state, changed ones take
    /// the other side's changes to keys they did not change, and the rest become
    /// ``conflicts`` (the state then contains ``State/inConflict``). Lists that follow the
    /// context fetch again.
    ///
    /// The document does this by itself every ``changeCheckInterval``, right after each save
    /// of its own background contexts, and before each save.
    /// - Returns: whether the store had changed.
    /// - Throws: ``DocumentError`` `.notOpen`; the store's error when reading fails (the
    ///   context is then as it was before the look, less what was merged).
    @discardableResult
    public func checkForOtherSaves() throws -> Bool {
        let container = try openContainer()
        let context = container.viewContext
        let token = try container.store.changeToken()
        guard token != context.seenToken else { return false }
        let (merged, found) = try context.takeStoreChanges(of: nil)
        context.seenToken = token
        record(found, examined: nil)
        context.tellFollowers(.everything(updated: merged.updated))
        return true
    }

    /// Settles the conflict of one object (see ``ConflictResolution``); save afterwards
    /// (autosave does, after its quiet spell).
    /// - Returns: the object that now stands for the one in conflict: itself, a new object
    ///   (``ConflictResolution/keepMine`` of an object deleted elsewhere), or `nil` when it left
    ///   the context.
    /// - Throws: ``DocumentError`` `.notOpen`, `.notInConflict` when the object has no conflict;
    ///   ``ObjectError`` `.editingDisabled` while a save or revert runs; the store's error
    ///   when reading the object's row fails (the conflict stays).
    @discardableResult
    public func resolveConflict(of objectID: ObjectID, by resolution: ConflictResolution) throws -> ManagedObject? {
        let context = try openContainer().viewContext
        guard let index = clashes.firstIndex(where: { $0.conflict.objectID == objectID }) else {
            throw DocumentError(.notInConflict, url, "\(objectID) has no conflict; the document's conflicts list the objects that do")
        }
        guard !state.contains(.editingDisabled) else {
            throw ObjectError(.editingDisabled, "the document \(url.lastPathComponent) is saving or reverting; resolve the conflict when its state leaves editingDisabled")
        }
        let object = try context.settle(clashes[index].object, keepingMine: resolution == .keepMine)
        clashes.remove(at: index)
        if clashes.isEmpty { update(state.subtracting(.inConflict)) }
        context.tellFollowers(.everything(updated: [objectID]))
        contextDidChange()
        return object
    }

    /// Settles every conflict the same way (see ``resolveConflict(of:by:)``).
    /// - Throws: as ``resolveConflict(of:by:)``; the conflicts settled before a failure stay settled.
    public func resolveAllConflicts(by resolution: ConflictResolution) throws {
        for conflict in conflicts {
            try resolveConflict(of: conflict.objectID, by: resolution)
        }
    }

    // MARK: Following the store

    /// Starts following the open document's store: the saves of its background contexts as
    /// they happen, and everyone else's every ``changeCheckInterval``.
    func startFollowingStore(_ container: Container) throws {
        let context = container.viewContext
        context.seenToken = try container.store.changeToken()
        let saves = container.didSave.stream()
        let own = context.identifier
        followers.append(Task { [weak self] in
            for await event in saves {
                guard let self else { return }
                if event.context != own { take(event) }
            }
        })
        guard let interval = changeCheckInterval else { return }
        let clock = clock
        followers.append(Task { [weak self] in
            while true {
                do {
                    try await clock.sleep(for: interval)
                } catch {
                    return // cancelled: the document closed
                }
                guard let self else { return }
                do {
                    try checkForOtherSaves()
                } catch {
                    Self.logger.warning("a look for other saves failed; the next one tries again", metadata: ["document": "\(url.path)", "error": "\(error)"])
                }
            }
        })
    }

    /// Stops following the store and forgets the conflicts (the document is closing).
    func stopFollowingStore() {
        for task in followers { task.cancel() }
        followers = []
        clashes = []
    }

    /// Brings a save of one of the document's background contexts into its context, as
    /// ``checkForOtherSaves()`` does for the objects it changed.
    private func take(_ event: ContextEvent) {
        guard let container else { return }
        let context = container.viewContext
        do {
            guard event.missedEvents == 0 else {
                try checkForOtherSaves()
                return
            }
            let examined = event.changes.updated.union(event.changes.deleted)
            let (_, found) = try context.takeStoreChanges(of: examined)
            // The save's commit is this document's own: the token moves on with it, unless
            // someone else committed in between (then the next look examines everything).
            if context.seenToken == event.tokenBefore, let after = event.tokenAfter { context.seenToken = after }
            record(found, examined: examined)
            var changes = event.changes
            changes.deleted.subtract(found.map(\.object.objectID))
            context.tellFollowers(.objects(changes))
        } catch {
            container.mergeFailures.report(MergeFailure(context: context.identifier, source: event.context, changes: event.changes, error: error))
        }
    }

    /// Replaces the conflicts of the `examined` objects (every one when `nil`) by those `found`.
    private func record(_ found: [StoreClash], examined: Set<ObjectID>?) {
        if let examined {
            clashes.removeAll { examined.contains($0.conflict.objectID) }
        } else {
            clashes = []
        }
        clashes += found.map { (object: $0.object, conflict: Conflict($0)) }
        update(clashes.isEmpty ? state.subtracting(.inConflict) : state.union(.inConflict))
    }

    static let logger = Logger(label: "trove.document")
}

extension Document.Conflict {
    /// The conflict a clash shows.
    init(_ clash: StoreClash) {
        let object = clash.object
        let read = object.snapshot
        objectID = object.objectID
        let attributes = object.entity.attributes
        func values(_ list: [AttributeValue]?, of keys: [String]) -> [String: AttributeValue] {
            guard let list else { return [:] }
            var found: [String: AttributeValue] = [:]
            for (i, attribute) in attributes.enumerated() where keys.contains(attribute.name) && i < list.count {
                found[attribute.name] = list[i]
            }
            return found
        }
        if clash.stored == nil {
            kind = .deletedElsewhere
            keys = object.changedKeyNames
        } else if object.isDeleted {
            kind = .deletedHere
            keys = attributes.indices.filter { i in
                !attributes[i].isTransient && (clash.stored?.values[i] != read?.values[i])
            }.map { attributes[$0].name }
        } else {
            kind = .changedOnBothSides
            keys = clash.keys
        }
        myValues = kind == .deletedHere ? [:] : values(object.values, of: keys)
        storedValues = values(clash.stored?.values, of: keys)
    }
}
