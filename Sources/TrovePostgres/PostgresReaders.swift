import Foundation
import PostgresNIO

/// The connections a ``PostgresStore`` reads on, beside the one it writes on: opened as reads
/// need them, up to a limit, each lent to one read at a time. Contexts sharing a store read at
/// once, and never wait for a save in progress; a read beyond the limit waits for a connection
/// to come back.
final class PostgresReaders: @unchecked Sendable {  // @unchecked: `idle` and `open` are used only under `condition`.
    private let location: PostgresLocation
    private let limit: Int
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    /// Connections open: idle ones and lent ones.
    private var open = 0

    init(location: PostgresLocation, limit: Int) {
        self.location = location
        self.limit = max(1, limit)
    }

    /// Runs `body` with a connection of its own for the time of the call.
    /// - Throws: ``StoreError`` when a connection cannot be opened; what `body` throws.
    func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try borrow()
        defer { giveBack(connection) }
        return try body(connection)
    }

    /// Closes the idle connections (the store is going away: none is lent).
    func close() {
        condition.lock()
        let closing = idle
        idle = []
        open -= closing.count
        condition.unlock()
        for connection in closing { try? connection.close().wait() }  // Nothing is pending; a failed close loses nothing.
    }

    private func borrow() throws -> PostgresConnection {
        condition.lock()
        while idle.isEmpty && open >= limit { condition.wait() }
        while let connection = idle.popLast() {
            // One the server ended while it waited (a restart, an idle timeout) is let go.
            guard connection.isClosed else {
                condition.unlock()
                return connection
            }
            open -= 1
        }
        open += 1
        condition.unlock()
        do {
            return try PostgresStore.connect(to: location)
        } catch {
            condition.lock()
            open -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    /// Takes `connection` back; one the server or the network closed is let go.
    private func giveBack(_ connection: PostgresConnection) {
        condition.lock()
        if connection.isClosed {
            open -= 1
        } else {
            idle.append(connection)
        }
        condition.signal()
        condition.unlock()
    }
}

/// A read-only repeatable-read transaction on a reading connection, begun only when a read
/// first needs its statements to see one snapshot (``PostgresStore/withSnapshot(on:_:)`` ends it).
final class ReadSnapshot {
    let connection: PostgresConnection
    private(set) var isOpen = false

    init(_ connection: PostgresConnection) {
        self.connection = connection
    }

    /// Begins the transaction, unless it is open already.
    func begin() throws {
        guard !isOpen else { return }
        _ = try connection.answer("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        isOpen = true
    }
}

extension PostgresStore {
    /// Runs `body` with a ``ReadSnapshot`` of `connection`, and ends the transaction if `body`
    /// began it: committed when `body` returns, rolled back when it throws (its error is the one
    /// to report). A connection that cannot end it is closed, so that no later read finds it open.
    static func withSnapshot<T>(on connection: PostgresConnection, _ body: (ReadSnapshot) throws -> T) throws -> T {
        let snapshot = ReadSnapshot(connection)
        do {
            let result = try body(snapshot)
            if snapshot.isOpen { _ = try connection.answer("COMMIT") }
            return result
        } catch {
            if snapshot.isOpen {
                do {
                    _ = try connection.answer("ROLLBACK")
                } catch {
                    try? connection.close().wait()  // Closed so that it is not lent again; a failed close loses nothing more.
                }
            }
            throw error
        }
    }
}
