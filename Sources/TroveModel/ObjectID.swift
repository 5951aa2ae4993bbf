import Synchronization

/// The identity of an object, valid across contexts and threads.
///
/// An object inserted in a context has a temporary ID until its first save, then a permanent
/// one that names its row. Pass IDs, never objects, between contexts.
public struct ObjectID: Sendable, Hashable, CustomStringConvertible {
    enum Key: Sendable, Hashable {
        case temporary(UInt64)
        case permanent(Int64)
    }

    /// The name of the object's entity (the most specific one).
    public let entityName: String
    let key: Key

    /// An ID for a stored row of `entityName` with primary key `primaryKey`.
    public init(entityName: String, primaryKey: Int64) {
        self.entityName = entityName
        self.key = .permanent(primaryKey)
    }

    private init(entityName: String, key: Key) {
        self.entityName = entityName
        self.key = key
    }

    private static let nextTemporary = Atomic<UInt64>(1)

    /// A new temporary ID, unique in this process.
    public static func temporary(entityName: String) -> ObjectID {
        let n = nextTemporary.wrappingAdd(1, ordering: .relaxed).oldValue
        return ObjectID(entityName: entityName, key: .temporary(n))
    }

    /// Whether the object has not been saved yet.
    public var isTemporary: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The row's primary key in the store; `nil` while temporary.
    public var primaryKey: Int64? {
        if case .permanent(let pk) = key { return pk }
        return nil
    }

    /// `Photo/42` for a stored object, `Photo/t7` for a temporary one.
    public var description: String {
        switch key {
        case .temporary(let n): "\(entityName)/t\(n)"
        case .permanent(let pk): "\(entityName)/\(pk)"
        }
    }
}
