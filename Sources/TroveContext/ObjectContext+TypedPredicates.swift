public import Foundation
import TroveModel
public import TrovePredicate

/// Fetching with Foundation's typed predicates and sort descriptors, as SwiftData takes them:
///
/// ```swift
/// let popular = try context.fetch(Photo.self, where: #Predicate { $0.views > 100 && $0.whoTook?.name == "Ann" },
///                                 sortedBy: [SortDescriptor(\.views, order: .reverse)])
/// let first = try context.fetchFirst(Photo.self, where: #Predicate { $0.title == "Sunset" })
/// let count = try context.fetchCount(Photo.self, where: #Predicate { $0.tags.isEmpty })
/// ```
/// Both are translated into the tree and the sort keys a format string gives (see
/// ``ObjectPredicate/init(_:)`` for the supported subset and ``SortKey/init(_:)``), so they run
/// as one SQL statement, and over the context's unsaved changes in memory alike.
extension ObjectContext {
    /// The objects of `T`'s entity (and its sub-entities) that match, in order.
    /// - Throws: ``ObjectPredicateError`` for a construct outside the supported subset, or as
    ///   the fetch with a format string does.
    public func fetch<T: EntityClass>(_ type: T.Type, where predicate: Predicate<T>, sortedBy sort: [SortDescriptor<T>] = []) throws -> [T] {
        Array(try fetch(FetchRequest(T.self, where: predicate, sortedBy: sort), as: T.self))
    }

    /// The objects of `T`'s entity (and its sub-entities), in order.
    public func fetch<T: EntityClass>(_ type: T.Type, sortedBy sort: [SortDescriptor<T>]) throws -> [T] {
        Array(try fetch(FetchRequest(T.self, sortedBy: sort), as: T.self))
    }

    /// The first object of `T`'s entity that matches, in order; `nil` when none does.
    public func fetchFirst<T: EntityClass>(_ type: T.Type, where predicate: Predicate<T>, sortedBy sort: [SortDescriptor<T>] = []) throws -> T? {
        var request = try FetchRequest(T.self, where: predicate, sortedBy: sort)
        request.fetchLimit = 1
        return try fetch(request, as: T.self).first
    }

    /// The number of objects of `T`'s entity that match, counted without loading them.
    public func fetchCount<T: EntityClass>(_ type: T.Type, where predicate: Predicate<T>) throws -> Int {
        try count(for: FetchRequest(T.self, where: predicate))
    }
}

extension FetchRequest {
    /// A request for the objects of `T`'s entity, with Foundation's typed predicate and sort
    /// descriptors translated (see ``ObjectPredicate/init(_:)`` and ``SortKey/init(_:)``).
    ///
    /// ```swift
    /// var request = try FetchRequest(Photo.self, where: #Predicate { $0.views > 100 },
    ///                                sortedBy: [SortDescriptor(\.uploadDate, order: .reverse)])
    /// request.fetchLimit = 20
    /// let photos = try context.fetch(request, as: Photo.self)
    /// ```
    /// - Throws: ``ObjectPredicateError`` for a construct outside the supported subset.
    public init<T: EntityClass>(_ type: T.Type, where predicate: Predicate<T>? = nil, sortedBy sort: [SortDescriptor<T>] = []) throws(ObjectPredicateError) {
        var keys: [SortKey] = []
        for descriptor in sort { keys.append(try SortKey(descriptor)) }
        self.init(entityName: T.entityName, predicate: try predicate.map { predicate throws(ObjectPredicateError) in try ObjectPredicate(predicate) },
                  sortDescriptors: keys)
    }
}
