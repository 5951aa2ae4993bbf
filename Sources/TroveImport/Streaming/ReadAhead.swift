import Foundation

/// Items made on a thread of their own, at most `depth` ahead of the one consumer, so that
/// making the next item overlaps with using this one (an import parses the next chunk while
/// SQLite writes this one). Items the consumer is done with, and what it made of them, go back
/// to that thread to be freed.
///
/// `@unchecked`: items are handed over — made on the producing thread, then used only by the
/// consumer, then only by the producing thread again — never shared.
final class ReadAhead<Item>: @unchecked Sendable {
    // Every stored property below is guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [Item] = []
    private var finished = false
    private var stopped = false
    /// What the consumer is done with, to be freed on the producing thread.
    private var spent: [Any] = []
    /// Whether the producing thread is freeing what it took from `spent` (outside the lock).
    private var freeing = false
    private let depth: Int
    /// Called by ``stop()``, on the consumer's thread, once the producing thread is told to stop.
    private let stopping: (@Sendable () -> Void)?

    /// Starts `produce` on a new thread named `name`. It calls its argument with each item in
    /// turn (which waits while `depth` items are queued) and stops when that returns `false`:
    /// the consumer stopped. `stopping` runs in ``stop()``.
    init(name: String, depth: Int = 2, stopping: (@Sendable () -> Void)? = nil,
         produce: @escaping @Sendable (_ push: (Item) -> Bool) -> Void) {
        self.depth = depth
        self.stopping = stopping
        let thread = Thread { [self] in
            produce { item in push(item) }
            condition.lock()
            finished = true
            condition.broadcast()
            // Made all items: go on freeing what the consumer hands back until it stops.
            while !stopped {
                if spent.isEmpty { condition.wait() } else { freeSpent() }
            }
            condition.unlock()
        }
        // Deeply nested records recurse in the parser.
        thread.stackSize = 8 << 20
        thread.name = name
        thread.start()
    }

    /// The next item, waiting for it; `nil` after the last.
    func next() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !finished { condition.wait() }
        guard !queue.isEmpty else { return nil }
        let item = queue.removeFirst()
        condition.broadcast()
        return item
    }

    /// Hands back what the consumer is done with — an item, and what it made of it — so that
    /// the producing thread, not the consumer's, spends the time freeing it. The caller must
    /// keep no reference to it (pass it with `consume`, or its own last release may free it),
    /// and must not hand over the last reference to an object whose `deinit` needs the
    /// consumer's thread.
    func recycle(_ garbage: consuming Any) {
        condition.lock()
        spent.append(consume garbage)
        condition.broadcast()
        condition.unlock()
    }

    /// Tells the producing thread to stop at its next item (the consumer is done), and frees
    /// what is still handed back. When it returns, nothing handed back is freed by the
    /// producing thread any more (so none of it outlives the consumer's call on that thread).
    func stop() {
        condition.lock()
        stopped = true
        queue = []
        condition.broadcast()
        // Freeing never waits on the input: this wait is short.
        while freeing { condition.wait() }
        var garbage = spent
        spent = []
        condition.unlock()
        garbage.removeAll()
        stopping?()
    }

    /// Queues an item, waiting while `depth` are queued and freeing the recycled ones in the
    /// meantime; `false` once the consumer stopped.
    private func push(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if !spent.isEmpty && !stopped { freeSpent() }
        while queue.count >= depth && !stopped {
            if spent.isEmpty { condition.wait() } else { freeSpent() }
        }
        guard !stopped else { return false }
        queue.append(item)
        condition.broadcast()
        return true
    }

    /// Frees what the consumer handed back, outside the lock (which the caller holds).
    private func freeSpent() {
        var garbage = spent
        spent = []
        freeing = true
        condition.unlock()
        garbage.removeAll()
        condition.lock()
        freeing = false
        condition.broadcast()
    }
}
