import Foundation
public import TroveModel

/// A store that can make a save ready while its last one still runs, and run the save's
/// transaction on a thread of its own: for work that prepares its next save meanwhile (an
/// import). ``PostgresStore`` is one: its saves wait on the server, and the importer builds its
/// next batch in that time. A store whose saves keep its thread busy has nothing to gain.
public protocol BackgroundSavingStore: BulkWritingStore {
    /// Makes the save of `changes` ready without writing anything: takes the new rows' keys and
    /// makes every statement. It may run while a ``StagedSave`` started before runs;
    /// ``StagedSave/start()`` then runs the transaction. A staged save never started writes
    /// nothing (its keys are left unused, as a failed save leaves them).
    /// - Throws: ``StoreError`` when the keys cannot be taken or a value cannot be kept (nothing
    ///   is written).
    func stageSave(_ changes: ChangeSet) throws -> StagedSave
}

/// A save made ready by ``BackgroundSavingStore/stageSave(_:)``: what it will give when it
/// commits, known before it runs, and its transaction, run on a thread of its own.
///
/// Start one staged save at a time, each after the last one's ``result()``: saves started
/// together would run in no set order.
public final class StagedSave: @unchecked Sendable {  // @unchecked: `outcome` and `started` are reached only under `condition`.
    /// Each inserted row's temporary ID mapped to the permanent ID the save gives it.
    public let permanentIDs: [ObjectID: ObjectID]
    /// The version each updated row will have once the save commits (as ``SaveResult/versions``).
    public let versions: [ObjectID: Int64]
    private let transaction: @Sendable () throws -> SaveResult
    private let condition = NSCondition()
    private var started = false
    private var outcome: Result<SaveResult, any Error>?

    /// A staged save: what it will give, and the transaction that writes it.
    package init(permanentIDs: [ObjectID: ObjectID], versions: [ObjectID: Int64],
                 transaction: @escaping @Sendable () throws -> SaveResult) {
        self.permanentIDs = permanentIDs
        self.versions = versions
        self.transaction = transaction
    }

    /// Starts the save's transaction on a thread of its own and returns at once; a second call
    /// does nothing.
    public func start() {
        condition.lock()
        defer { condition.unlock() }
        guard !started else { return }
        started = true
        Thread.detachNewThread { [self] in
            let outcome = Result { try transaction() }
            condition.lock()
            self.outcome = outcome
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Waits for the save's transaction (starting it if it was not) and returns what it gave.
    /// - Throws: what the store's ``PersistentStore/save(_:)`` throws (nothing is written).
    public func result() throws -> SaveResult {
        start()
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let outcome { return try outcome.get() }
            condition.wait()
        }
    }
}
