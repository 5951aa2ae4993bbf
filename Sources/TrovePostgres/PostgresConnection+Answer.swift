import Dispatch
import PostgresNIO

extension PostgresConnection {
    /// Runs `query` and waits for the server's answer, or fails with ``Closed`` when the
    /// connection closes first.
    ///
    /// postgres-nio never completes a query sent on a connection the server ended before the
    /// client noticed (a restart, `pg_terminate_backend`, a failover); waiting on it as
    /// `EventLoopFuture.wait()` does would block the caller forever. So the wait looks at the
    /// connection once a second, and a long query on an open connection still waits as long as
    /// it takes.
    func answer(_ query: PostgresQuery) throws -> PostgresQueryResult {
        let future = self.query(query, logger: PostgresStore.logger)
        let answered = DispatchSemaphore(value: 0)
        future.whenComplete { _ in answered.signal() }
        while answered.wait(timeout: .now() + .seconds(1)) == .timedOut {
            if isClosed { throw Closed() }
        }
        return try future.wait()
    }

    /// A connection that closed before the server answered a query.
    struct Closed: Error, CustomStringConvertible {
        var description: String { "the connection closed before the server answered; the next call connects again" }
    }
}
