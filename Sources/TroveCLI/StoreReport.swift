import Foundation
import Trove

/// What `trove inspect` shows about a store, in text or JSON.
struct StoreReport {
    let path: String
    let model: Model
    let rowCounts: [String: Int]
    let metadata: [String: String]
    let checkpoints: [ImportCheckpoint]
    /// The models the store has had, oldest first (`trove migrate` adds one).
    let history: [ModelVersionRecord]
    /// The database engine (SQLite or PostgreSQL) and its version.
    let engine: (name: String, version: String)

    init(store: any PersistentStore, path: String) throws {
        self.path = path
        self.model = store.model
        var counts: [String: Int] = [:]
        for entity in store.model.entities {
            counts[entity.name] = try store.count(of: entity.name, includesSubentities: false)
        }
        self.rowCounts = counts
        let checkpoints = try ImportCheckpoint.all(in: store)
        let checkpointKeys = Set(checkpoints.map { ImportCheckpoint.metadataKey(for: $0.entity) })
        self.metadata = try store.metadata().filter {
            $0.key != "trove.model" && $0.key != "trove.modelHistory" && !checkpointKeys.contains($0.key)
        }
        self.history = try SQLiteStore.history(in: store.metadata())
        self.checkpoints = checkpoints
        self.engine = try StoreLocation.engine(of: store)
    }

    // MARK: Text

    func text() -> String {
        var lines = [
            "store:         \(path)",
            "format:        \(metadata["trove.formatVersion"] ?? "?")",
            "model hash:    \(model.versionHash)",
            "\((engine.name + ":").padding(toLength: 14, withPad: " ", startingAt: 0)) \(engine.version)",
            "key style:     \(model.keyStyle.rawValue)",
        ]
        for entity in model.entities {
            var heading = "\n\(entity.name)"
            if let parent = entity.parent { heading += " : \(parent)" }
            if entity.isAbstract { heading += " (abstract)" }
            heading += " — \(rowCounts[entity.name] ?? 0) rows"
            lines.append(heading)
            if !entity.uniqueBy.isEmpty {
                lines.append("  unique by: " + entity.uniqueBy.map { "(\($0.joined(separator: ", ")))" }.joined(separator: ", "))
            }
            let width = (entity.attributes.map(\.name.count) + entity.relationships.map(\.name.count)).max() ?? 0
            for attribute in entity.attributes {
                var line = "  \(attribute.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(attribute.type.rawValue)"
                if !attribute.isOptional { line += ", required" }
                if !attribute.defaultValue.isNull { line += ", default \(attribute.defaultValue)" }
                if attribute.isTransient { line += ", transient (in memory only)" }
                if let derivation = attribute.derivation { line += ", derived from \(derivation)" }
                lines.append(line)
            }
            for r in entity.relationships {
                var line = "  \(r.name.padding(toLength: width, withPad: " ", startingAt: 0))  → \(r.destination)"
                line += r.isToMany ? (r.isOrdered ? ", ordered to-many" : ", to-many") : ", to-one"
                line += r.inverse.map { ", inverse \($0)" } ?? ", no inverse"
                line += ", delete rule \(r.deleteRule.rawValue)"
                lines.append(line)
            }
        }
        lines.append("\nmodel history (oldest first):")
        for (n, record) in history.enumerated() {
            let how = record.steps.map { "migrated, \($0) steps, \(record.rowsRewritten ?? 0) rows rewritten" } ?? "created"
            lines.append("  \(n + 1). \(record.version)  \(record.date)  \(how)")
        }
        if !checkpoints.isEmpty {
            lines.append("\nimport checkpoints (an interrupted import resumes here when run again):")
            lines += checkpoints.map { "  \($0)" }
        }
        let others = metadata.filter { !["trove.formatVersion", "trove.modelHash"].contains($0.key) }
        if !others.isEmpty {
            lines.append("\nmetadata:")
            for (key, value) in others.sorted(by: { $0.key < $1.key }) {
                lines.append("  \(key) = \(value)")
            }
        }
        return lines.joined(separator: "\n")
    }

    // MARK: JSON

    func json() -> JSONValue {
        let entities: [JSONValue] = model.entities.map { entity in
            var object: JSONObject = [
                "name": .string(entity.name),
                "rows": .integer(Int64(rowCounts[entity.name] ?? 0)),
                "abstract": .bool(entity.isAbstract),
                "uniqueBy": .array(entity.uniqueBy.map { .array($0.map(JSONValue.string)) }),
                "attributes": .array(entity.attributes.map { attribute in
                    var members: JSONObject = [
                        "name": .string(attribute.name), "type": .string(attribute.type.rawValue), "optional": .bool(attribute.isOptional),
                    ]
                    if attribute.isTransient { members["transient"] = true }
                    if let derivation = attribute.derivation { members["derivation"] = .string(derivation) }
                    return .object(members)
                }),
                "relationships": .array(entity.relationships.map { r in
                    .object(["name": .string(r.name), "destination": .string(r.destination), "toMany": .bool(r.isToMany),
                             "ordered": .bool(r.isOrdered), "inverse": r.inverse.map(JSONValue.string) ?? .null,
                             "deleteRule": .string(r.deleteRule.rawValue), "optional": .bool(r.isOptional)])
                }),
            ]
            object["parent"] = entity.parent.map(JSONValue.string) ?? .null
            return .object(object)
        }
        var report: JSONObject = [
            "store": .string(path),
            "formatVersion": .number(metadata["trove.formatVersion"] ?? "0"),
            "modelHash": .string(model.versionHash),
            "keyStyle": .string(model.keyStyle.rawValue),
            "entities": .array(entities),
            "metadata": .object(JSONObject(metadata.mapValues(JSONValue.string))),
            "modelHistory": .array(history.map { record in
                .object(["version": .string(record.version), "date": .string(record.date),
                         "steps": record.steps.map { .integer(Int64($0)) } ?? .null,
                         "rowsRewritten": record.rowsRewritten.map { .integer(Int64($0)) } ?? .null])
            }),
            "checkpoints": .array(checkpoints.map { checkpoint in
                .object(["entity": .string(checkpoint.entity), "input": .string(checkpoint.input),
                         "inputSize": checkpoint.inputSize.map { .integer($0) } ?? .null, "options": .string(checkpoint.options),
                         "records": .integer(Int64(checkpoint.records)), "byteOffset": .integer(checkpoint.byteOffset),
                         "savedAt": .string(checkpoint.savedAt.formatted(.iso8601))])
            }),
        ]
        // The engine's version under its own key: sqliteVersion, or postgresqlVersion.
        report[engine.name.lowercased() + "Version"] = .string(engine.version)
        return .object(report)
    }
}
