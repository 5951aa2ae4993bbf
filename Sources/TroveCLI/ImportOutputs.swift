#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TroveModel
import Trove

/// The files `trove import` writes: `--rejects` (the rejected records, NDJSON) and `--report`
/// (the report, JSON). Both are opened before the import starts, so that a path that cannot be
/// written stops the command before any work; rejected records stream to them as the import
/// goes, so that memory stays flat however many records are rejected (the report in memory
/// keeps their count and the first ``ImportReport/rejectedKept``).
final class ImportOutputs: Sendable {
    private struct Files {
        var rejects: OutputFile?
        /// The report's rejections, encoded as they come (an unlinked file beside the report),
        /// copied into the report when the import is done.
        var spool: OutputFile?
        var spooled = 0
    }

    private let files: Locked<Files>
    private let reportPath: String?

    /// Opens (creating or emptying) the files the options name.
    /// - Throws: a ``CLIFailure`` with status 1 saying what is wrong with a path, before
    ///   anything is imported.
    init(rejects: String?, report: String?) throws {
        let rejectsFile = try rejects.map { try OutputFile(creating: $0, for: "--rejects") }
        var spool: OutputFile?
        if let report {
            _ = try OutputFile(creating: report, for: "--report")
            let folder = URL(fileURLWithPath: report).deletingLastPathComponent().path
            spool = try OutputFile(spoolIn: folder, for: "--report")
        }
        files = Locked(Files(rejects: rejectsFile, spool: spool))
        reportPath = report
    }

    /// Writes a rejected record to the rejects file and to the report's list.
    func add(_ record: RejectedRecord) throws {
        try files.withLock { files in
            try files.rejects?.append(record.record + "\n")
            if files.spool != nil {
                let text = try Self.encoder.encode(record)
                let indented = "    " + String(decoding: text, as: UTF8.self).replacingOccurrences(of: "\n", with: "\n    ")
                try files.spool?.append((files.spooled == 0 ? "\n" : ",\n") + indented)
                files.spooled += 1
            }
        }
    }

    /// Writes out the rejected records buffered so far, when the import failed: the error that
    /// stopped it is the one to report, so writing them is only tried.
    func keepRejects() {
        files.withLock { files in
            do {
                try files.rejects?.finish()
            } catch {
                // The import's own error says why the command stopped.
            }
        }
    }

    /// Finishes the files: the rejects file as it is, the report with `report`'s counts and
    /// every rejection written so far.
    func finish(_ report: ImportReport) throws {
        try files.withLock { files in
            try files.rejects?.finish()
            guard let reportPath, let spool = files.spool else { return }
            var head = report
            head.rejected = []
            let text = String(decoding: try Self.encoder.encode(head), as: UTF8.self)
            // The empty list of the top-level key (nested keys are indented further) is where
            // the spooled rejections go.
            guard let key = text.range(of: "\n  \"rejected\" : ["),
                  let end = text[key.upperBound...].firstIndex(of: "]") else {
                throw CLIFailure(.storeError, "the report has no list of rejected records to write into \(reportPath)")
            }
            let out = try OutputFile(creating: reportPath, for: "--report")
            try out.append(String(text[..<key.upperBound]))
            try spool.copy(to: out)
            try out.append((files.spooled == 0 ? "" : "\n  ") + String(text[end...]) + "\n")
            try out.finish()
            try spool.finish()
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

/// A file written through a buffer of 64 KiB.
final class OutputFile: @unchecked Sendable {  // @unchecked: used only under ImportOutputs' mutex.
    let path: String
    private let option: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []

    /// Creates or empties the file at `path`, named in messages by the option that gave it.
    init(creating path: String, for option: String) throws {
        self.path = path
        self.option = option
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure(errno, path: path, option: option) }
    }

    /// A new file in `folder` that no one else sees: unlinked at once, gone when closed.
    init(spoolIn folder: String, for option: String) throws {
        let path = folder + "/.trove-report-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        self.path = path
        self.option = option
        descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure(errno, path: folder, option: option) }
        unlink(path)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    func append(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { try flush() }
    }

    func flush() throws {
        var written = 0
        while written < buffer.count {
            let count = buffer[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIFailure(.usage, "writing \(option) \(path) failed: \(String(cString: strerror(errno)))")
            }
            written += count
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Copies what was written to this file, from its start, to `other`.
    func copy(to other: OutputFile) throws {
        try flush()
        lseek(descriptor, 0, SEEK_SET)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIFailure(.usage, "reading back the rejections spooled for \(option) failed: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return }
            try other.append(String(decoding: chunk[..<count], as: UTF8.self))
        }
    }

    /// Writes what is buffered and closes the file; nothing when it is closed already.
    func finish() throws {
        guard descriptor >= 0 else { return }
        try flush()
        let code = close(descriptor)
        descriptor = -1
        if code != 0 { throw CLIFailure(.usage, "writing \(option) \(path) failed: \(String(cString: strerror(errno)))") }
    }

    /// What is wrong with an output path, in words.
    static func failure(_ code: Int32, path: String, option: String) -> CLIFailure {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let reason = switch code {
        case EISDIR: "it is a directory; give a file path, such as \(path.hasSuffix("/") ? path : path + "/")rejects.ndjson"
        case ENOENT: "there is no folder \(folder)"
        case ENOTDIR: "a part of the path is not a folder"
        case EACCES, EPERM: "permission denied; choose a path you can write"
        case EROFS: "the file system is read-only"
        default: String(cString: strerror(code))
        }
        return CLIFailure(.usage, "cannot write \(option) \(path): \(reason); nothing was imported")
    }
}
