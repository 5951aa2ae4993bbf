public import Foundation

/// Runs the built `trove` executable as a process, as a person or a script would.
public enum CLIRunner {
    /// What a run printed and how it ended.
    public struct Result: Sendable {
        /// The exit status, or the number of the signal that ended the process.
        public let status: Int32
        /// Whether a signal ended the process (`status` is then the signal's number).
        public let signaled: Bool
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

    /// Runs `trove` with `arguments`, feeding it `input` on standard input; `environment` adds
    /// to (or replaces in) the test process's own.
    public static func run(_ arguments: [String], input: Data = Data(), in directory: URL? = nil,
                           environment: [String: String] = [:]) throws -> Result {
        try start(arguments, input: input, in: directory, environment: environment).wait()
    }

    /// Starts `trove` with `arguments` and returns at once, for tests that work alongside it
    /// (another process writing the same store); ``Running/wait()`` collects the result.
    public static func start(_ arguments: [String], input: Data = Data(), in directory: URL? = nil,
                             environment extra: [String: String] = [:]) throws -> Running {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Read both pipes to the end on threads of their own, so a large output cannot block
        // the child while the caller works.
        let outputData = ReadBox(), errorData = ReadBox()
        Thread { outputData.read(stdout.fileHandleForReading) }.start()
        Thread { errorData.read(stderr.fileHandleForReading) }.start()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        return Running(process: process, output: outputData, error: errorData)
    }

    /// A `trove` process started by ``start(_:input:in:)``.
    public struct Running: Sendable {
        /// The process, to read its identifier or signal it.
        public let process: Process
        fileprivate let output: ReadBox
        fileprivate let error: ReadBox

        /// Waits until the process has written `text` to its standard error (`true`), or has
        /// ended without writing it (`false`): to act once it reached a point it reports.
        public func waitForStandardError(containing text: String) -> Bool {
            while true {
                let done = error.done
                if String(decoding: error.data, as: UTF8.self).contains(text) { return true }
                if done { return false }
                usleep(1000)
            }
        }

        /// Waits for the process to end and returns what it printed and how it ended.
        public func wait() -> Result {
            process.waitUntilExit()
            while !output.done || !error.done { usleep(1000) }
            return Result(status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
                          stdout: String(decoding: output.data, as: UTF8.self),
                          stderr: String(decoding: error.data, as: UTF8.self))
        }
    }
}

/// Bytes read on another thread as they come; `done` once they are all there.
private final class ReadBox: @unchecked Sendable {  // @unchecked: every access to its state is under the lock.
    private let lock = NSLock()
    private var storage = Data()
    private var finished = false

    /// The bytes read so far.
    var data: Data { lock.withLock { storage } }

    /// Reads `handle` to its end, keeping each chunk as it comes.
    func read(_ handle: FileHandle) {
        while true {
            let chunk = handle.availableData
            lock.withLock {
                if chunk.isEmpty { finished = true } else { storage.append(chunk) }
            }
            if chunk.isEmpty { return }
        }
    }

    var done: Bool { lock.withLock { finished } }
}
