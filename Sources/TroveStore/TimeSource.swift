import Foundation

/// Where Trove reads the time, and how a thread waits for it to pass, wherever behaviour depends
/// on time: how long a write waits for another process's write lock
/// (``SQLiteStore/Options/clock``) and the age of rows a context read ahead
/// (`ObjectContext.clock`, for `stalenessInterval`).
///
/// The system's continuous clock unless a test gives another: any `Clock` whose durations are
/// `Duration`, so that a test moves time forward instead of waiting for it. A wait is
/// synchronous (the store blocks its thread, as SQLite does): by default the thread sleeps, which
/// is right for a clock that follows real time; a test clock says how it waits, e.g. by moving
/// itself forward (TroveTesting's `ManualClock.timeSource`).
public struct TimeSource: Sendable {
    /// The time elapsed since an origin fixed when the source was made.
    private let elapsed: @Sendable () -> Duration
    private let wait: @Sendable (Duration) -> Void

    /// Reads `clock`; waits with `sleep`, or when it is `nil` (the default) by sleeping the
    /// thread that long.
    public init<C: Clock>(_ clock: C, sleep: (@Sendable (Duration) -> Void)? = nil) where C.Duration == Duration {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        wait = sleep ?? Self.sleepThread
    }

    /// The system's continuous clock (`ContinuousClock`), the default.
    public static let continuous = TimeSource(ContinuousClock())

    /// Blocks the calling thread for `duration` of real time.
    @Sendable private static func sleepThread(for duration: Duration) {
        guard duration > .zero else { return }
        let (seconds, attoseconds) = duration.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// The time now, as a duration since the source's origin.
    package var now: Duration { elapsed() }

    /// Blocks the calling thread until `duration` has passed on this source.
    package func sleep(for duration: Duration) { wait(duration) }
}
