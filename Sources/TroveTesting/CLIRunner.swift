public import Foundation

/// Runs the built `trove` executable as a process, as a person or a script would.
public enum CLIRunner {
    /// What a run printed and how it ended.
    public struct Result: Sendable {
        /// The exit status.
        public let status: Int32
        /// Everything written to standard output.
        public let stdout: String
        /// Everything written to standard error.
        public let stderr: String
    }

    /// The `trove` executable next to the test bundle (SwiftPM builds both into one folder).
    public static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0])
        var folder = bundle.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("trove").path), folder.pathComponents.count > 1 {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("trove")
    }

    /// Runs `trove` with `arguments`, feeding it `input` on standard input.
    public static func run(_ arguments: [String], input: Data = Data(), in directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a large output cannot block the child.
        let errorData = ReadBox()
        let errorReader = Thread { errorData.data = stderr.fileHandleForReading.readDataToEndOfFile() }
        errorReader.start()
        let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.done { usleep(1000) }
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outputData, as: UTF8.self),
                      stderr: String(decoding: errorData.data, as: UTF8.self))
    }
}

/// Bytes read on another thread; `done` once they are all there.
private final class ReadBox: @unchecked Sendable {  // @unchecked: written once by the reader, read after `done` flips under the lock.
    private let lock = NSLock()
    private var storage = Data()
    private var finished = false

    var data: Data {
        get { lock.withLock { storage } }
        set { lock.withLock { storage = newValue; finished = true } }
    }

    var done: Bool { lock.withLock { finished } }
}
