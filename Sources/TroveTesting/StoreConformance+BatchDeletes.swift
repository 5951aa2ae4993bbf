import Foundation
import Trove

extension StoreConformance {
    /// Batch deletes whose delete rules reach other rows, on random graphs (``BatchGraph``)
    /// in the store and in an SQLite store: each delete matches, cascades to and nullifies the
    /// same objects, or is refused by the same `deny` rule naming the same objects, and after
    /// each the two stores hold the same objects, links and row versions.
    static func cascadingBatchDeletes(_ fixture: Fixture, _ report: inout Report) throws {
        let directory = try TemporaryDirectory()
        // Every kind of rule: cascade, deny, nullify of links kept in either row, in join
        // tables and in an ordered list, no action.
        let rules: [DeleteRule] = [.cascade, .nullify, .nullify, .nullify, .nullify, .deny,
                                   .nullify, .nullify, .cascade, .nullify, .noAction, .nullify]
        let model = try BatchGraph.model(rules: rules)
        let stores = [try SQLiteStore(url: directory.file("reference.trove"), model: model), try fixture.open(model)]
        var rng = SeededGenerator(seed: 22)
        var seen = (cascaded: 0, nullified: 0, refused: 0)
        for round in 0..<16 {
            let prefix = "r\(round)"
            let seed = rng.next()
            let name = "\(prefix)p\(Int.random(in: 0..<6, using: &rng))"
            let requests = [
                try BatchDeleteRequest(entityName: "Person", where: "name BEGINSWITH %@ AND albums.@count >= 1", prefix),
                try BatchDeleteRequest(entityName: "Person", where: "ANY tags.name == %@", "\(prefix)t\(round % 3)"),
                try BatchDeleteRequest(entityName: "Person", where: "name == %@", name),
                try BatchDeleteRequest(entityName: "Album", where: "owner.name BEGINSWITH %@ AND title == 'a0'", prefix),
                try BatchDeleteRequest(entityName: "Tag", where: "name == %@", "\(prefix)t1"),
            ]
            let request = requests[Int.random(in: 0..<requests.count, using: &rng)]
            var outcomes: [String] = []
            for (index, store) in stores.enumerated() {
                let context = try Container(store: store).newBackgroundContext()
                try BatchGraph.populate(context, seed: seed, prefix: prefix)
                do {
                    let result = try context.execute(request)
                    if index == 0 {
                        seen.cascaded += result.cascadedObjectIDs.isEmpty ? 0 : 1
                        seen.nullified += result.nullifiedObjectIDs.isEmpty ? 0 : 1
                    }
                    outcomes.append("matched \(result.objectIDs.map(\.description).sorted()), cascaded \(result.cascadedObjectIDs.map(\.description).sorted()),"
                        + " nullified \(result.nullifiedObjectIDs.map(\.description).sorted()), through objects \(result.usedObjects)")
                } catch let error as ValidationError {
                    outcomes.append("refused: \(error)")
                    seen.refused += index == 0 ? 1 : 0
                }
            }
            try expect(outcomes[0] == outcomes[1], "round \(round), \(request.fetchRequest.predicate.map { "\($0)" } ?? "every object"):"
                + " SQLite \(outcomes[0]); this store \(outcomes[1])")
            let (reference, contents) = (try StoreIntegrity.objects(in: stores[0], versions: true), try StoreIntegrity.objects(in: stores[1], versions: true))
            try expect(reference == contents, """
                round \(round): after \(outcomes[0]) the stores differ
                only in SQLite: \(reference.filter { !contents.contains($0) })
                only in this store: \(contents.filter { !reference.contains($0) })
                """)
        }
        // The rounds must have reached every path, or the check proves less than it says.
        try expect(seen.cascaded > 0 && seen.nullified > 0 && seen.refused > 0,
                   "the rounds did not cover cascade, nullify and deny (\(seen)); choose other seeds")
    }
}
