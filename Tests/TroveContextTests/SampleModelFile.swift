import Foundation
import Trove

/// The sample model file the generated Photos classes come from, `Examples/Photos/model.json`.
enum SampleModelFile {
    static func model() throws -> Model {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Examples/Photos/model.json")
        return try Model(contentsOf: url.standardizedFileURL)
    }
}
