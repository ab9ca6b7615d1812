import Synchronization

/// Wakes the claim loop: a NOTIFY arrived, a slot freed up, or shutdown began. Signals coalesce
/// (many signals while the loop works mean one more look at the queue, not many).
///
/// Meant for one waiting loop; give each loop its own. A second waiter does not strand the first
/// (it is woken, spuriously — a loop looks at the queue once more), but the two then share one
/// signal and each may miss the other's.
final class WakeSignal: Sendable {
    private struct State: ~Copyable {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func signal() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns at the next signal (or at once if one is pending), or after `timeout`: the
    /// polling fallback when a notification was lost.
    func wait(timeout: Duration) async {
        // Signals only when the timeout ran out: cancelled (the wait ended by a signal), it must
        // not leave a signal behind, or every wait after the first returns at once and the loop
        // spins (an idle worker claimed ~700 times a second per loop, a whole core).
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self?.signal()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (resumeNow, displaced) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
                if state.pending {
                    state.pending = false
                    return (true, nil)
                }
                let displaced = state.waiter
                state.waiter = continuation
                return (false, displaced)
            }
            displaced?.resume()
            if resumeNow { continuation.resume() }
        }
        timer.cancel()
    }
}
