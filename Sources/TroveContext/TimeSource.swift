/// Where a context reads the time, for behaviour that depends on it (``ObjectContext/stalenessInterval``).
///
/// The system's continuous clock unless a test gives another: any `Clock` whose durations are
/// `Duration` (a manual clock the test advances), so that a test moves time forward instead of
/// waiting for it.
public struct TimeSource: Sendable {
    /// The time elapsed since an origin fixed when the source was made.
    private let elapsed: @Sendable () -> Duration

    /// Reads `clock`.
    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
    }

    /// The system's continuous clock (`ContinuousClock`), the default.
    public static let continuous = TimeSource(ContinuousClock())

    /// The time now, as a duration since the source's origin.
    var now: Duration { elapsed() }
}
