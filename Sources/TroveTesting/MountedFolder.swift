public import Foundation

/// A folder on a file system of its own, mounted for one test: a tiny `tmpfs` to fill up, or a
/// read-only view of another folder. Unmounted (and its mount point removed) when released.
///
/// Mounting needs root (`CAP_SYS_ADMIN`), which is also why these tests need it: root ignores
/// file permissions, so a store made unwritable by `chmod` is still written by root, but not one
/// on a read-only mount. Tests that use it are enabled by ``isAvailable``.
public final class MountedFolder: Sendable {
    /// The mounted folder.
    public let url: URL

    private init(mounting arguments: [String], at url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        self.url = url
        guard MountedFolder.run(["/bin/mount"] + arguments + [url.path]) else {
            try? FileManager.default.removeItem(at: url)
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
        }
    }

    /// A new, empty `tmpfs` of `bytes` bytes (rounded up to pages): writing more fails with
    /// "no space left on device", as on a full disk.
    public static func tiny(bytes: Int) throws -> MountedFolder {
        try MountedFolder(mounting: ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs"], at: newMountPoint())
    }

    /// Gives a ``tiny(bytes:)`` folder `bytes` bytes instead, keeping its files: room again
    /// after a full disk.
    public func resize(bytes: Int) throws {
        guard MountedFolder.run(["/bin/mount", "-o", "remount,size=\(bytes)", url.path]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
        }
    }

    /// `folder` seen through a read-only bind mount: every write there fails with "read-only
    /// file system", even for root.
    public static func readOnlyView(of folder: URL) throws -> MountedFolder {
        try MountedFolder(mounting: ["--bind", "-o", "ro", folder.path], at: newMountPoint())
    }

    /// Whether this process may mount file systems (it runs as root, where mounting is allowed).
    public static let isAvailable: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/bin/mount") else { return false }
        return (try? tiny(bytes: 4096)) != nil
    }()

    /// The URL of `name` inside the folder.
    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    deinit {
        _ = MountedFolder.run(["/bin/umount", "-l", url.path])
        try? FileManager.default.removeItem(at: url)
    }

    private static func newMountPoint() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("trove-mount-\(UUID().uuidString)")
    }

    private static func run(_ command: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return false
        }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
