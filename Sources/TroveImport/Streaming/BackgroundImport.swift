import Foundation
import TroveModel
public import TroveContext

extension Container {
    /// Starts a streamed import on a context and a thread of its own, and returns at once.
    ///
    /// ```swift
    /// let job = container.startImport(.file(url), into: "Photo", format: .json(root: "photos.photo"))
    /// for await progress in job.progress { print(progress.recordsRead) }
    /// let report = try await job.report()
    /// ```
    /// Each chunk is saved as ``Importer/importStream(_:into:format:resume:progress:isCancelled:)``
    /// saves it (with its checkpoint), and — as every save of the container's contexts — merged
    /// into the ``viewContext`` as it lands, unless the container was made without automatic
    /// merging. ``BackgroundImport/cancel()`` stops the import at the next chunk boundary with
    /// its checkpoint kept.
    public func startImport(_ input: ImportInput, into entityName: String, format: RecordFormat = .json(root: nil),
                            options: ImportOptions = ImportOptions(), resume: ResumeMode = .resume) -> BackgroundImport {
        let job = BackgroundImport()
        let thread = Thread { [self] in
            let importer = Importer(context: newBackgroundContext(), options: options)
            let result = Result {
                try importer.importStream(input, into: entityName, format: format, resume: resume,
                                          progress: { job.report($0) }, isCancelled: { job.isCancelled })
            }
            job.finish(result)
        }
        thread.stackSize = 8 << 20
        thread.name = "trove.import"
        thread.start()
        return job
    }
}

/// An import running in the background: its progress as it goes, its report at the end, and a
/// way to stop it.
public final class BackgroundImport: Sendable {
    private struct State {
        var cancelled = false
        var result: Result<ImportReport, any Error>?
        var waiting: [CheckedContinuation<ImportReport, any Error>] = []
    }

    private let state = Locked(State())
    private let stream: AsyncStream<ImportProgress>
    private let continuation: AsyncStream<ImportProgress>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: ImportProgress.self, bufferingPolicy: .bufferingNewest(64))
    }

    /// The import's progress after each saved chunk; ends when the import ends. Iterate it once.
    public var progress: AsyncStream<ImportProgress> { stream }

    /// Asks the import to stop after the chunk it is saving; its checkpoint is kept, so that
    /// importing the same input again resumes there. ``report()`` then throws
    /// ``ImportError/Code/cancelled``.
    public func cancel() {
        state.withLock { $0.cancelled = true }
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Waits for the import to end.
    /// - Returns: what the import did.
    /// - Throws: as ``Importer/importStream(_:into:format:resume:progress:isCancelled:)``.
    public func report() async throws -> ImportReport {
        try await withCheckedThrowingContinuation { waiter in
            let result = state.withLock { state -> Result<ImportReport, any Error>? in
                if state.result == nil { state.waiting.append(waiter) }
                return state.result
            }
            if let result { waiter.resume(with: result) }
        }
    }

    func report(_ progress: ImportProgress) {
        continuation.yield(progress)
    }

    func finish(_ result: Result<ImportReport, any Error>) {
        continuation.finish()
        let waiting = state.withLock { state in
            state.result = result
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.resume(with: result) }
    }
}

