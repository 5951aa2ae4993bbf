public import Foundation
public import Trove

/// A directory under the system's temporary folder, removed when the value is released.
///
/// Tests keep one alive for as long as they use the files in it.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates a new, empty directory.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("trove-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The URL of `name` inside the directory.
    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// Writes `model` to the model file `name` inside the directory, for `trove` commands to
    /// read, and returns its path.
    public func modelFile(_ model: Model, named name: String = "model.json") throws -> String {
        let path = file(name).path
        try model.fileData().write(to: URL(fileURLWithPath: path))
        return path
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
