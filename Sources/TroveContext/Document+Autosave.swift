import Foundation
import TroveStore

extension Document {
    // MARK: Saving

    /// Saves the context's unsaved changes, waiting first for a save under way. The store's
    /// write runs off the main actor; while it runs the state contains ``State/editingDisabled``
    /// and the context refuses changes. A failed save leaves the changes in the context, sets
    /// ``State/savingError`` and ``lastSaveError``, and throws; the next good save clears both.
    /// - Throws: ``DocumentError`` `.notOpen`, `.inConflict` while ``conflicts`` are not
    ///   resolved (nothing is written; the state keeps ``State/inConflict`` and gets no
    ///   ``State/savingError``); the context's save errors (``ValidationError``,
    ///   `ConflictError`, `StoreError`, ``ObjectError``).
    public func save() async throws {
        _ = try openContainer()
        if let error = await enqueueSave() { throw error }
    }

    /// Drops every unsaved change: the context goes back to the saved state (objects inserted
    /// since leave it, changed and deleted ones take the values stored now, including other
    /// writers' saves), and ``State/savingError`` and ``State/inConflict`` are cleared, since
    /// the changes that failed or clashed are gone. Waits for a save under way first; the
    /// state contains ``State/editingDisabled`` while it runs.
    /// - Throws: ``DocumentError`` `.notOpen`; the store's error when reading what others
    ///   saved fails (the changes are dropped all the same).
    public func revert() async throws {
        _ = try openContainer()
        pendingAutosave?.cancel()
        pendingAutosave = nil
        _ = await lastSave?.value
        let context = try openContainer().viewContext
        update(state.union(.editingDisabled))
        context.rollback()
        clashes = []
        lastSaveError = nil
        // The objects are back as they were read; take what others saved since.
        context.seenToken = nil
        do {
            try checkForOtherSaves()
        } catch {
            update(state.subtracting([.editingDisabled, .savingError, .inConflict]))
            throw error
        }
        update(state.subtracting([.editingDisabled, .savingError]))
    }

    /// Queues a save behind the one before it; returns its error, if any.
    func enqueueSave() async -> (any Error)? {
        pendingAutosave?.cancel()
        pendingAutosave = nil
        let previous = lastSave
        let save = Task { () -> (any Error)? in
            _ = await previous?.value
            return await self.writeChanges()
        }
        lastSave = save
        return await save.value
    }

    /// One save of the open document's context, its store write off the main actor. Saves
    /// made elsewhere are taken in first; the save is refused while there are conflicts. When
    /// another writer commits between that look and the write (the write then fails its
    /// version check), the document looks again and, if that brings no conflict, saves once more.
    private func writeChanges(retrying: Bool = true) async -> (any Error)? {
        guard let container else { return nil }
        let context = container.viewContext
        let store = container.store
        do {
            try checkForOtherSaves()
            guard clashes.isEmpty else {
                return DocumentError(.inConflict, url, "\(clashes.count) object(s) have unsaved changes that clash with saves made elsewhere; "
                    + "resolve them (resolveConflict(of:by:) or resolveAllConflicts(by:)), then save")
            }
        } catch {
            return failedSave(error)
        }
        let writes = context.hasChanges
        if writes { update(state.union(.editingDisabled)) }
        do {
            try await context.save(disablingEditing: "the document \(url.lastPathComponent) is saving; make the change when its state leaves editingDisabled") { changes in
                try await QueueExecutor.run("trove.document.save") { try store.save(changes) }
            }
            lastSaveError = nil
            update(state.subtracting([.editingDisabled, .savingError]))
            return nil
        } catch is ConflictError where retrying {
            update(state.subtracting(.editingDisabled))
            return await writeChanges(retrying: false)
        } catch {
            return failedSave(error)
        }
    }

    /// Records a failed save in the state.
    private func failedSave(_ error: any Error) -> any Error {
        lastSaveError = error
        update(state.subtracting(.editingDisabled).union(.savingError))
        return error
    }

    // MARK: Autosave

    /// A change of the context: the quiet spell starts again.
    func contextDidChange() {
        pendingAutosave?.cancel()
        guard let delay = autosaveDelay else { return }
        let clock = clock
        pendingAutosave = Task { [weak self] in
            do {
                try await clock.sleep(for: delay)
            } catch {
                return // cancelled: a later change or a save took over
            }
            guard let self, !Task.isCancelled else { return }
            pendingAutosave = nil
            // A failed autosave is reported through the state and lastSaveError.
            _ = await enqueueSave()
        }
    }
}
