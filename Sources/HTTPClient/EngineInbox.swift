import Synchronization

/// A request handed from a Swift task to the engine thread.
struct PendingRequest: Sendable {
    let id: UInt64
    let method: HTTPMethod
    let url: String
    let headers: [String: String]
    /// `nil` for a GET.
    let body: HTTPBody?
    let timeout: Duration
    /// A second transfer for a straggler; nil: never.
    let hedge: HTTPHedge?
    let continuation: CheckedContinuation<HTTPResponse, any Error>
}

/// What tasks ask of the engine thread.
enum EngineCommand: Sendable {
    case start(PendingRequest)
    case cancel(UInt64)
}

/// The only state shared between callers and the engine thread: a locked command queue.
///
/// Tasks push; the engine thread drains once per loop turn. Wake-ups are coalesced: only the push
/// that finds no wake-up pending asks the caller to call `curl_multi_wakeup`, so 5,000 submissions
/// in a burst cost a handful of wake-ups, not 5,000.
final class EngineInbox: Sendable {
    enum PushResult {
        case wakeEngine
        case engineAlreadyWoken
        case closed
    }

    private struct State {
        var commands: [EngineCommand] = []
        var nextID: UInt64 = 0
        var wakeupPending = false
        var closed = false
        var exited = false
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func makeID() -> UInt64 {
        state.withLock { state in
            state.nextID &+= 1
            return state.nextID
        }
    }

    func push(_ command: EngineCommand) -> PushResult {
        state.withLock { state in
            if state.closed { return .closed }
            state.commands.append(command)
            if state.wakeupPending { return .engineAlreadyWoken }
            state.wakeupPending = true
            return .wakeEngine
        }
    }

    /// Takes every queued command. `closed` tells the engine to fail what it holds and exit.
    func drain() -> (commands: [EngineCommand], closed: Bool) {
        state.withLock { state in
            let commands = state.commands
            state.commands.removeAll(keepingCapacity: true)
            state.wakeupPending = false
            return (commands, state.closed)
        }
    }

    /// Refuses further commands. Returns `true` the first time (the caller then wakes the engine).
    func close() -> Bool {
        state.withLock { state in
            if state.closed { return false }
            state.closed = true
            return true
        }
    }

    /// Called by the engine thread as its last act.
    func markExited() {
        let waiters = state.withLock { state in
            state.exited = true
            let waiters = state.exitWaiters
            state.exitWaiters = []
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func waitForExit() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.exited { return true }
                state.exitWaiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
