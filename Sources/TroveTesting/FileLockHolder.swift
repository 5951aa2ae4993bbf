public import Foundation

/// Another process holding an exclusive `flock` on a file, as a second writer holds a store's
/// write lock (`STORE-lock`): util-linux's `flock -o FILE -c 'echo ready; read line'`.
///
/// The lock is held from ``init(file:)`` until ``release()`` (the helper reads its standard
/// input, closed then) or ``kill()`` (`SIGKILL`: the kernel drops the lock of a dead process).
///
/// ```swift
/// let holder = try FileLockHolder(file: dir.file("s.trove-lock"))
/// // … a write now waits and fails with .busy …
/// holder.release()
/// ```
public final class FileLockHolder: Sendable {
    /// Where util-linux installs `flock`.
    public static let tool = URL(fileURLWithPath: "/usr/bin/flock")
    /// Whether ``tool`` is there; tests that need it are enabled only then.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: tool.path) }

    /// The `flock` process, which holds the lock (`-o`: its command does not inherit it).
    public let process: Process
    private let input: Pipe

    /// Starts the helper and returns once it holds the lock on `file`.
    /// - Throws: when the helper could not start or ended before taking the lock.
    public init(file: URL) throws {
        process = Process()
        process.executableURL = Self.tool
        process.arguments = ["-o", file.path, "-c", "echo ready; read line"]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // `ready` comes once the lock is held; end of file means the helper gave up.
        var seen = Data()
        while !seen.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                process.waitUntilExit()
                throw CocoaError(.fileLocking, userInfo: [NSLocalizedDescriptionKey:
                    "flock ended (status \(process.terminationStatus)) before locking \(file.path)"])
            }
            seen.append(chunk)
        }
    }

    /// Lets the helper end normally, releasing the lock, and waits for it.
    public func release() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Kills the lock-holding process with `SIGKILL` and waits for it. Its shell, which holds
    /// no lock, is ended by closing its input first: Foundation sees the end of a process only
    /// once its children are gone too.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { kill() }
    }
}
