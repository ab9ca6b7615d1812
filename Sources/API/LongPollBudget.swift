import Synchronization

/// Caps the long-polls (`GET /v1/receipts/{id}?wait=`) waiting at once, per token and in all.
/// Each waiting long-poll holds a connection, so without a cap one backend (or a stolen token)
/// could park connections until the process runs out of descriptors. Beyond a cap the request is
/// not refused: it is answered at once with the job's current state, as `?wait=0` would be, and
/// the client polls again.
final class LongPollBudget: Sendable {
    private struct State {
        var total = 0
        var byToken: [Int: Int] = [:]
    }

    let perToken: Int
    let total: Int
    private let state = Mutex(State())

    init(perToken: Int, total: Int) {
        self.perToken = perToken
        self.total = total
    }

    /// Takes a place for a long-poll of `token`; false when a cap is reached (answer at once).
    /// Each `true` must be matched by one `leave(token:)`.
    func enter(token: Int) -> Bool {
        state.withLock { state in
            guard state.total < total, state.byToken[token, default: 0] < perToken else { return false }
            state.total += 1
            state.byToken[token, default: 0] += 1
            return true
        }
    }

    func leave(token: Int) {
        state.withLock { state in
            state.total -= 1
            let left = state.byToken[token, default: 1] - 1
            state.byToken[token] = left > 0 ? left : nil
        }
    }

    /// Long-polls waiting now (tests, metrics).
    var waiting: Int { state.withLock { $0.total } }
}
