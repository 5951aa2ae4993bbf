import Foundation
import TroveModel

/// The DESIGN.md example model file ("Contract 1 — the model file"), verbatim.
let designExample = """
{
  "keyStyle": "snake_case",
  "entities": [
    { "name": "Photographer",
      "uniqueBy": ["id"],
      "attributes": [
        { "name": "id",   "type": "string", "optional": false },
        { "name": "name", "type": "string" } ],
      "relationships": [
        { "name": "photos", "destination": "Photo", "toMany": true,
          "inverse": "whoTook", "deleteRule": "cascade" } ] },
    { "name": "Photo",
      "uniqueBy": ["id"],
      "attributes": [
        { "name": "id",         "type": "string", "optional": false },
        { "name": "title",      "type": "string" },
        { "name": "uploadDate", "type": "date", "remoteKey": "upload_date", "dateFormat": "iso8601" },
        { "name": "views",      "type": "integer64", "default": 0 } ],
      "relationships": [
        { "name": "whoTook", "destination": "Photographer", "toMany": false,
          "inverse": "photos", "deleteRule": "nullify", "remoteKey": "owner" } ] } ]
}
"""

/// The problems found loading `text` as a model file; empty when it loads.
func fileIssues(_ text: String) -> [ModelIssue] {
    do {
        _ = try Model(fileData: Data(text.utf8))
        return []
    } catch {
        return error.issues
    }
}

/// The problems found building a model of `entities`; empty when it builds.
func modelIssues(_ entities: [Entity]) -> [ModelIssue] {
    do {
        _ = try Model(entities: entities)
        return []
    } catch {
        return error.issues
    }
}

/// A model file with one entity `Photo` whose attributes are `attributes` (JSON objects).
func photoFile(attributes: String, relationships: String = "[]") -> String {
    """
    { "entities": [ { "name": "Photo", "attributes": \(attributes), "relationships": \(relationships) } ] }
    """
}
