import Foundation
import Trove
import TrovePostgres

// Eight threads fetching photos by unique id, each through a context of its own, all on one
// PostgresStore: the throughput with `maximumReaderCount` 1 (every read on one connection, as
// the store read before it had reading connections) and 5 (the default), in turns.
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
