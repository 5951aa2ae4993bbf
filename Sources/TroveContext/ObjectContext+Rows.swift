package import TroveModel
package import TroveStore

/// Rows read and written without managed objects, for bulk work (the importer) that would spend
/// most of its time building objects it never hands out. The context stays the one place that
/// talks to the store and announces the save, so observers and merging see an ordinary save.
extension ObjectContext {
    /// Why ``saveRows(_:announcing:)`` may not write now, or `nil` when it may: the context
    /// must read from its store (not a parent context), have no unsaved changes or metadata to
    /// write first, and record no undo (rows written directly could not be undone).
    package var rowSaveObstacle: String? {
        if !(source is StoreSource) { return "the context is a child context" }
        if undoManager != nil { return "the context records undo" }
        if hasChanges || !pendingMetadata.isEmpty { return "the context has unsaved changes" }
        return nil
    }

    /// The stored rows of `entity` whose `attributes` hold one of `keys`, without registering
    /// objects, read where the next ``saveRows(_:announcing:)`` finds them cheapest.
    package func fetchRows(of entity: Entity, attributes: [String], keys: [[AttributeValue]]) throws -> [RowSnapshot] {
        try store.fetchBeforeWriting(entity, attributes: attributes, keys: keys)
    }

    /// Whether saving an object of `entity` runs custom validators (``ObjectHooks/validate(_:_:)``),
    /// which need the object itself.
    package func hasValidators(for entity: Entity) -> Bool {
        !hooks.validators(for: entity, in: model).isEmpty
    }

    /// Writes rows built without objects in one transaction and announces them as this
    /// context's save.
    ///
    /// `changes` describes the updates the way ``didSave`` reports them (the inserted objects
    /// are the change set's, under their permanent IDs). Objects this context holds
    /// that the rows changed take the stored values. The caller checks the model's rules first
    /// (``check(_:of:in:)``): the store checks only its constraints.
    /// - Precondition: no ``rowSaveObstacle``.
    /// - Throws: ``ConflictError`` when a row changed in the store since it was read (nothing
    ///   is written); ``StoreError`` when the store fails.
    package func saveRows(_ rows: ChangeSet, announcing changes: ObjectChanges) throws -> SaveResult {
        let result = try source.save(rows)
        try rowsSaved(result, announcing: changes)
        return result
    }

    /// Announces rows the store saved for this context (a ``StagedSave`` the caller ran) as
    /// ``saveRows(_:announcing:)`` does its own.
    package func rowsSaved(_ result: SaveResult, announcing changes: ObjectChanges) throws {
        var saved = changes
        saved.inserted = Set(result.permanentIDs.values)
        try announceStoreWrite(saved, tokens: result)
    }
}
