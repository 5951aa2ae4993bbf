public import Foundation

/// Where a streamed import reads its records: a file, or standard input.
public enum ImportInput: Sendable, Hashable, CustomStringConvertible {
    /// A file, read from its start (or from a checkpoint, by seeking).
    case file(URL)
    /// The process's standard input, read once (a resume reads and discards up to the checkpoint).
    case standardInput

    public var description: String {
        switch self {
        case .file(let url): url.path
        case .standardInput: "standard input"
        }
    }
}

/// A buffered reader of an input's bytes with `read(2)` (or from memory): the bytes between
/// `start` and `end` of `buffer` are read but not consumed; `offset(of:)` turns a buffer
/// position into a byte offset in the input.
final class ByteInput {
    /// The first bytes of the input, hashed to tell one input from another.
    static let headLength = 64 * 1024
    /// Read size; the buffer grows past it only for a record that does not fit.
    static let readSize = 1 << 20
    /// The largest single record (or wrapper key) a reader holds in memory.
    static let maximumRecordSize = 256 << 20

    /// The input as messages name it.
    let name: String
    /// Whether the input is standard input (which cannot be read again from its start).
    let isStandardInput: Bool
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// The bytes of an input in memory, read from instead of the descriptor.
    private let memory: Data?
    /// The input's size when it is a regular file.
    let size: Int64?
    private(set) var buffer: [UInt8] = []
    var start = 0
    private(set) var end = 0
    /// The input offset of `buffer[0]`.
    private(set) var base: Int64 = 0
    private(set) var atEOF = false

    /// Opens `input`, to read `readSize` bytes at a time.
    /// - Throws: ``ImportError`` `.unreadableInput` naming the file and the system's reason.
    init(_ input: ImportInput, readSize: Int = ByteInput.readSize) throws {
        name = input.description
        memory = nil
        switch input {
        case .file(let url):
            let fd = open(url.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw ImportError(.unreadableInput, "cannot open \(url.path): \(String(cString: strerror(errno))); nothing was imported")
            }
            descriptor = fd
            ownsDescriptor = true
        case .standardInput:
            descriptor = STDIN_FILENO
            ownsDescriptor = false
        }
        isStandardInput = input == .standardInput
        var info = stat()
        if fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            size = Int64(info.st_size)
        } else if (info.st_mode & S_IFMT) == S_IFDIR {
            if ownsDescriptor { close(descriptor) }
            throw ImportError(.unreadableInput, "\(name) is a directory; give a JSON file")
        } else {
            size = nil
        }
        buffer = [UInt8](repeating: 0, count: max(readSize, 1))
    }

    /// Reads JSON text already in memory, as a file would be read.
    init(data: Data, readSize: Int = ByteInput.readSize) {
        name = "the JSON data"
        isStandardInput = false
        descriptor = -1
        ownsDescriptor = false
        memory = data
        size = Int64(data.count)
        buffer = [UInt8](repeating: 0, count: max(readSize, 1))
    }

    deinit {
        // Closing drops the lock of ``lockExclusively(whileWaiting:)``.
        if ownsDescriptor { close(descriptor) }
    }

    /// Takes an exclusive `flock(2)` on the input file, held until ``unlock()`` or until the
    /// input is closed (or the process ends, even killed): two streamed imports of one file, in one process or two,
    /// never run at once, so that they never share its checkpoint. Returns at once when no
    /// other import holds it; else calls `waiting` and waits for it. Takes nothing for
    /// standard input or data in memory, nor on a file system without locks (whose imports are
    /// then not kept apart).
    func lockExclusively(whileWaiting waiting: () -> Void) {
        guard ownsDescriptor else { return }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            switch errno {
            case EINTR: continue
            case EWOULDBLOCK:
                waiting()
                while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
            default: break
            }
            return
        }
    }

    /// Lets go of the lock of ``lockExclusively(whileWaiting:)`` (the reader may still be
    /// reading ahead, on its thread, when an import ends).
    func unlock() {
        guard ownsDescriptor else { return }
        while flock(descriptor, LOCK_UN) != 0, errno == EINTR {}
    }

    /// The input offset of buffer position `position`.
    func offset(of position: Int) -> Int64 { base + Int64(position) }

    /// The number of bytes consumed so far (the offset of `start`).
    var consumed: Int64 { offset(of: start) }

    /// Reads more bytes after `end`, first moving the unconsumed bytes to the front and growing
    /// the buffer when they fill it. Returns `false` at the end of the input.
    /// - Throws: ``ImportError`` `.unreadableInput` on a read error or a record too large.
    @discardableResult
    func fill() throws -> Bool {
        if atEOF { return false }
        if start > 0 {
            buffer.withUnsafeMutableBytes { raw in
                guard let bytes = raw.baseAddress else { return }
                memmove(bytes, bytes + start, end - start)
            }
            base += Int64(start)
            end -= start
            start = 0
        }
        if end == buffer.count {
            guard buffer.count < Self.maximumRecordSize else {
                throw ImportError(.unreadableInput, "\(name): a single record at byte \(consumed) is larger than \(Self.maximumRecordSize >> 20) MiB; split the input")
            }
            buffer += [UInt8](repeating: 0, count: buffer.count)
        }
        let count = try readSome(into: end)
        if count == 0 { atEOF = true }
        end += count
        return count > 0
    }

    /// Fills until at least `count` bytes are unconsumed or the input ends.
    func ensure(_ count: Int) throws {
        while end - start < count, try fill() {}
    }

    /// FNV-1a 64 of the input's first ``headLength`` bytes (fewer if the input is shorter),
    /// read before anything is consumed.
    func headDigest() throws -> UInt64 {
        precondition(consumed == 0, "the head is read before anything is consumed")
        try ensure(Self.headLength)
        return digest(start..<min(end, start + Self.headLength))
    }

    /// Moves to offset `target`: within the buffer, by a seek in a file (either way), or by reading
    /// and discarding in a pipe (forward only).
    func skip(to target: Int64) throws {
        if target >= base, target <= offset(of: end) {
            start = Int(target - base)
            return
        }
        if memory != nil || (ownsDescriptor && lseek(descriptor, off_t(target), SEEK_SET) == off_t(target)) {
            base = target
            start = 0
            end = 0
            atEOF = false
            return
        }
        guard target > base else {
            throw ImportError(.unreadableInput, "\(name) cannot be read again from byte \(target); import with --restart")
        }
        while offset(of: end) < target {
            start = end
            guard try fill() else {
                throw ImportError(.unreadableInput, "\(name) ends at byte \(offset(of: end)), before byte \(target) where the checkpoint resumes; import with --restart")
            }
        }
        start = Int(target - base)
    }

    /// FNV-1a 64 of the bytes in `range` of the buffer.
    func digest(_ range: Range<Int>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        buffer.withUnsafeBufferPointer { bytes in
            for i in range {
                hash = (hash ^ UInt64(bytes[i])) &* 0x100_0000_01b3
            }
        }
        return hash
    }

    private func readSome(into position: Int) throws -> Int {
        if let memory {
            let from = Int(offset(of: position)) + memory.startIndex
            let count = min(buffer.count - position, memory.endIndex - from)
            guard count > 0 else { return 0 }
            _ = buffer.withUnsafeMutableBytes { raw in
                memory.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: raw[position..<(position + count)]), from: from..<(from + count))
            }
            return count
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let address = raw.baseAddress else { return 0 }
                return read(descriptor, address + position, raw.count - position)
            }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw ImportError(.unreadableInput, "reading \(name) at byte \(offset(of: position)) failed: \(String(cString: strerror(errno)))")
        }
    }
}
