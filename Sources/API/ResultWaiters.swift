import Synchronization

/// Long-poll requests waiting for jobs to finish, keyed by job id. The one `ResultListener`
/// wakes them; no request polls the database on a timer.
///
/// Use: `register` before reading the job (so a NOTIFY arriving between the read and the wait is
/// not missed), read, then `wait` or `remove`. A wake-up means "look again", not "finished":
/// after a reconnect the listener wakes everyone, and callers re-read the table.
final class ResultWaiters: Sendable {
    struct Ticket: Sendable, Hashable {
        let job: Int64
        let id: UInt64
    }

    private enum Entry {
        case armed
        case fired
        case waiting(CheckedContinuation<Void, Never>)
    }

    private struct State {
        var closed = false
        var nextID: UInt64 = 0
        var entries: [Int64: [UInt64: Entry]] = [:]
    }

    private let state = Mutex(State())

    func register(job: Int64) -> Ticket {
        state.withLock { state in
            state.nextID += 1
            state.entries[job, default: [:]][state.nextID] = .armed
            return Ticket(job: job, id: state.nextID)
        }
    }

    /// Suspends until the ticket's job is signalled or `timeout` passes, then removes the ticket.
    func wait(_ ticket: Ticket, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.suspend(ticket) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
            remove(ticket)  // resumes `suspend` if the timer won
            await group.waitForAll()
        }
    }

    /// Forgets the ticket, resuming its waiter if any.
    func remove(_ ticket: Ticket) {
        let entry = state.withLock { state -> Entry? in
            let entry = state.entries[ticket.job]?.removeValue(forKey: ticket.id)
            if state.entries[ticket.job]?.isEmpty == true { state.entries[ticket.job] = nil }
            return entry
        }
        if case .waiting(let continuation) = entry { continuation.resume() }
    }

    /// Wakes every waiter of `job`.
    func signal(job: Int64) {
        let woken = state.withLock { state in Self.fire(&state.entries[job]) }
        woken.forEach { $0.resume() }
    }

    /// Wakes every waiter (the listener reconnected: notifications may have been lost).
    func signalAll() {
        let woken = state.withLock { state in
            state.entries.keys.flatMap { Self.fire(&state.entries[$0]) }
        }
        woken.forEach { $0.resume() }
    }

    /// Shutting down: wakes everyone now and makes later waits return at once, so long-polls
    /// answer with the current state instead of holding up a graceful shutdown.
    func close() {
        state.withLock { $0.closed = true }
        signalAll()
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    var count: Int { state.withLock { $0.entries.values.reduce(0) { $0 + $1.count } } }

    private func suspend(_ ticket: Ticket) async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                guard !state.closed, case .armed = state.entries[ticket.job]?[ticket.id] else { return true }
                state.entries[ticket.job]?[ticket.id] = .waiting(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private static func fire(_ entries: inout [UInt64: Entry]?) -> [CheckedContinuation<Void, Never>] {
        guard var current = entries else { return [] }
        var woken: [CheckedContinuation<Void, Never>] = []
        for (id, entry) in current {
            if case .waiting(let continuation) = entry { woken.append(continuation) }
            current[id] = .fired
        }
        entries = current
        return woken
    }
}
