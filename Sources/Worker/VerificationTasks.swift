import Synchronization

/// The verifications a worker has in flight, each an unstructured task kept by job id so that a
/// shutdown past its deadline can cancel them.
///
/// Why not a task group: a group of 5,000 children spent 7% of a worker's CPU unlinking each
/// finished child (`swift::TaskGroup::removeChildTask` walks the group's list of children; perf,
/// `bench e2e --concurrency 5000`). A dictionary entry in and out per verification costs a lock.
/// Waiting for them all is the gate's `inFlight` reaching zero: each verification gives its slot
/// back after handing its verdict (or its release) to the writer.
final class VerificationTasks: Sendable {
    private let tasks = Mutex<[Int64: Task<Void, Never>]>([:])

    /// Starts `operation` for `job`; it leaves the set when it ends.
    func start(_ job: Int64, _ operation: @escaping @Sendable () async -> Void) {
        tasks.withLock { tasks in
            // Inserted under the lock: a task that ends at once waits for the lock to remove itself.
            tasks[job] = Task {
                await operation()
                self.tasks.withLock { _ = $0.removeValue(forKey: job) }
            }
        }
    }

    /// Verifications still running.
    var count: Int { tasks.withLock { $0.count } }

    /// Cancels every verification still running (their requests are abandoned; each releases its job).
    func cancelAll() {
        for task in tasks.withLock({ Array($0.values) }) { task.cancel() }
    }
}
