public import TroveStore
import TroveModel

/// A clock that moves only when a test advances it, for behaviour that depends on time
/// (`context.clock = clock.timeSource`, `SQLiteStore.Options(clock: clock.timeSource)`): no test
/// waits for real time to pass.
public final class ManualClock: Clock, Sendable {
    /// A point in the clock's time: a duration since it started.
    public struct Instant: InstantProtocol {
        /// The time since the clock started.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [(deadline: Instant, wake: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    /// A clock at time zero.
    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// A time source reading this clock, on which a thread that waits (a write polling for the
    /// write lock) moves the clock forward by its wait at once, as if that time had passed.
    public var timeSource: TimeSource {
        TimeSource(self, sleep: { [self] duration in advance(by: duration) })
    }

    /// Moves the clock forward by `duration`, waking the sleepers whose deadline it reaches.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in woken { sleeper.wake.resume() }
    }

    /// Suspends until the clock is advanced to `deadline` (at once when it is already there).
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        await withCheckedContinuation { (wake: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state in
                if deadline <= state.now { return true }
                state.sleepers.append((deadline, wake))
                return false
            }
            if reached { wake.resume() }
        }
        try Task.checkCancellation()
    }
}
