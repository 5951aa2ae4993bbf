import PostgresNIO
public import TroveStore

/// Change tokens as commits happen, through PostgreSQL's `LISTEN`/`NOTIFY`: every write's
/// transaction notifies the store's channel with its counter (``raiseCounter()``), which the
/// server delivers at commit to every connection listening, in every process.
extension PostgresStore {
    /// The channel a store's writes notify: one per database, and one per scratch copy.
    var changesChannel: String {
        location.schema.map { "trove_changes.\($0)" } ?? "trove_changes"
    }

    /// The store's change tokens as commits happen (see ``PersistentStore/changeTokens(pollingEvery:)``),
    /// told by the server: `interval` is not used. The stream opens a connection of its own,
    /// which listens until the stream ends.
    public func changeTokens(pollingEvery interval: Duration) -> AsyncThrowingStream<StoreChangeToken, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: StoreChangeToken.self, bufferingPolicy: .bufferingNewest(1))
        let (location, storeID, channel) = (location, storeID, changesChannel)
        let listening = Task {
            do {
                let connection: PostgresConnection
                do {
                    connection = try await Self.connecting(to: location).get()
                } catch {
                    throw Self.connectionError(error, location)
                }
                do {
                    try await connection.listen(on: channel) { notifications in
                        // Listening now: a commit from here on is told, so the token read next is the start.
                        let read = try await connection.query(PostgresQuery(unsafeSQL: "SELECT \"counter\" FROM \(quoted(Self.changesTable))"),
                                                              logger: Self.logger).get().rows.first
                        continuation.yield(StoreChangeToken(storeID: storeID, version: try read?.decode(Int64.self) ?? 0))
                        for try await notification in notifications {
                            guard let counter = Int64(notification.payload) else { continue }
                            continuation.yield(StoreChangeToken(storeID: storeID, version: counter))
                        }
                    }
                } catch {
                    try? await connection.close().get()  // The listening's error is the one to report.
                    throw error
                }
                try await connection.close().get()
                continuation.finish()
            } catch is CancellationError {
                continuation.finish()
            } catch let error as StoreError {
                continuation.finish(throwing: error)
            } catch {
                continuation.finish(throwing: StoreError(.unreachable, "listening for the commits to \(location) failed: \(Self.describe(error)); start listening again"))
            }
        }
        continuation.onTermination = { _ in listening.cancel() }
        return stream
    }
}
