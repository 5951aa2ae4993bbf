import Foundation
import Logging
import NIOPosix
import PostgresNIO
import Trove
import TrovePostgres

// First one thread fetching photos by unique id: postgres-nio alone (the floor: one prepared
// `SELECT … WHERE id = $1` a fetch, the rows read), the store (`fetch(StoreQuery)`), and a
// context (`fetch(FetchRequest)`, objects made). Then eight threads, each through a context of
// its own, all on one PostgresStore: the throughput with `maximumReaderCount` 1 (every read on
// one connection, as the store read before it had reading connections) and 5 (the default).
//
//   postgres-reads MODEL.json POSTGRES-URL-OF-A-DATABASE [ROUNDS]   (Benchmarks/postgres-reads runs it)

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
}

/// What went wrong in the reading threads.
final class Failures: @unchecked Sendable {  // @unchecked: `list` is used only under `lock`.
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ failure: String) { lock.withLock { list.append(failure) } }
    var first: String? { lock.withLock { list.first } }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { throw BenchFailure(description: "usage: postgres-reads MODEL.json POSTGRES-URL [ROUNDS]") }
let model = try Model(contentsOf: URL(fileURLWithPath: arguments[1]))
let location = try PostgresLocation(arguments[2])
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 2 : 2
let rows = 20_000, threads = 8, perThread = 2_000
if try !PostgresStore.createDatabaseIfMissing(at: location) {
    print("using the photos already in \(location)")
}
do {
    let store = try PostgresStore(location: location, model: model)
    if try store.count(of: "Photo") != rows {
        let context = try Container(store: store).newBackgroundContext()
        for i in 0..<rows {
            let photo = try context.insert("Photo")
            try photo.setValue("p\(i)", forKey: "id")
            try photo.setValue("title \(i)", forKey: "title")
        }
        try context.save()
    }
}
let fetches = 3_000
/// Microseconds per call of `body` (`fetches` calls, after 200 to warm up).
func microseconds(_ body: (Int) throws -> Void) rethrows -> Double {
    for i in 0..<200 { try body(i) }
    let start = ContinuousClock.now
    for i in 0..<fetches { try body(i) }
    return (ContinuousClock.now - start) / .microseconds(1) / Double(fetches)
}
do {
    let logger = Logger(label: "postgres-reads")
    let connection = try PostgresConnection.connect(
        on: MultiThreadedEventLoopGroup.singleton.any(),
        configuration: .init(host: location.host ?? "localhost", port: location.port, username: location.user,
                             password: ProcessInfo.processInfo.environment["PGPASSWORD"], database: location.database, tls: .disable),
        id: 1, logger: logger).wait()
    defer { try? connection.close().wait() }  // The benchmark is done with it.
    let floor = try microseconds { i in
        let result = try connection.query("SELECT \"_pk\", \"_version\", \"title\" FROM \"Photo\" WHERE \"id\" = \("p\(i * 31 % rows)")",
                                        logger: logger).wait()
        if Array(result).count != 1 { throw BenchFailure(description: "postgres-nio found no p\(i * 31 % rows)") }
    }
    let store = try PostgresStore(location: location, model: model)
    let storeTime = try microseconds { i in
        let query = try StoreQuery(FetchRequest(entityName: "Photo", predicate: ObjectPredicate(format: "id == %@", "p\(i * 31 % rows)")), model: model)
        if try store.fetch(query).count != 1 { throw BenchFailure(description: "the store found no p\(i * 31 % rows)") }
    }
    let context = try Container(store: store).newBackgroundContext()
    let contextTime = try microseconds { i in
        let found = try context.fetch(FetchRequest(entityName: "Photo", predicate: ObjectPredicate(format: "id == %@", "p\(i * 31 % rows)")))
        if found.count != 1 { throw BenchFailure(description: "the context found no p\(i * 31 % rows)") }
    }
    for (label, time) in [("postgres-nio alone", floor), ("store.fetch", storeTime), ("context.fetch", contextTime)] {
        print("one thread, fetch by unique id, \(label): \(String(format: "%.0f", time)) µs (\(String(format: "%.2f", time / floor))x postgres-nio)")
    }
}
let failures = Failures()
for _ in 0..<rounds {
    for readers in [1, 5] {
        let container = try Container(store: PostgresStore(location: location, model: model, maximumReaderCount: readers))
        let done = DispatchGroup()
        let start = ContinuousClock.now
        for t in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                let context = container.newBackgroundContext()
                do {
                    for i in 0..<perThread {
                        let id = "p\((t * 7919 + i * 31) % rows)"
                        let found = try context.fetch(FetchRequest(entityName: "Photo", predicate: ObjectPredicate(format: "id == %@", id)))
                        if found.count != 1 { failures.add("\(id): \(found.count) photos") }
                    }
                } catch {
                    failures.add("\(error)")
                }
            }
        }
        done.wait()
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        print("maximumReaderCount \(readers): \(threads) threads × \(perThread) fetches by id in \(String(format: "%.2f", seconds)) s,"
            + " \(Int(Double(threads * perThread) / seconds)) fetches/s")
    }
}
if let failure = failures.first { throw BenchFailure(description: "a fetch went wrong: \(failure)") }
