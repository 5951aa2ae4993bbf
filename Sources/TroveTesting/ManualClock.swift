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

    private struct Sleeper {
        let deadline: Instant
        let wake: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextSleeper = 0
        var sleepers: [Int: Sleeper] = [:]
        /// Tasks waiting for a number of sleepers (see ``waitForSleepers(_:)``).
        var watchers: [(count: Int, wake: CheckedContinuation<Void, Never>)] = []

        /// Takes out the watchers whose count of sleepers is reached.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let count = sleepers.count
            let due = watchers.filter { $0.count <= count }.map(\.wake)
            watchers.removeAll { $0.count <= count }
            return due
        }
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

    /// How many tasks sleep on the clock now (a cancelled sleep leaves at once).
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until at least `count` tasks sleep on the clock: a test waits for the code it
    /// drives to start waiting before it moves time.
    public func waitForSleepers(_ count: Int) async {
        await withCheckedContinuation { (wake: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state in
                if state.sleepers.count >= count { return true }
                state.watchers.append((count, wake))
                return false
            }
            if reached { wake.resume() }
        }
    }

    /// Moves the clock forward by `duration`, waking the sleepers whose deadline it reaches.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.wake)
        }
        for wake in woken { wake.resume() }
    }

    /// Suspends until the clock is advanced to `deadline` (at once when it is already there);
    /// a cancelled sleep ends at once and throws `CancellationError`.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            defer { state.nextSleeper += 1 }
            return state.nextSleeper
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (wake: CheckedContinuation<Void, Never>) in
                let (reached, watchers) = state.withLock { state in
                    if deadline <= state.now || Task.isCancelled { return (true, [CheckedContinuation<Void, Never>]()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, wake: wake)
                    return (false, state.satisfiedWatchers())
                }
                if reached { wake.resume() }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.wake.resume()
        }
        try Task.checkCancellation()
    }
}
