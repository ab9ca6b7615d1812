import CommandSupport
import Synchronization

/// What the chaos load's clients saw: which purchases the API accepted (202, or 200 for a
/// resubmission) under which job id, how long acceptance took, and every other answer.
/// The invariants are checked against this, not against the database's own account.
final class ChaosLedger: Sendable {
    struct State: Sendable {
        /// Job id → the purchase it holds, for every accepted submission.
        var accepted: [Int64: ChaosPurchase] = [:]
        /// Purchases that could not be submitted before the load's deadline.
        var abandoned: [Int] = []
        /// Purchases refused with a 4xx other than 429 (the load is valid: none expected).
        var refused: [Int: Int] = [:]
        /// Answers by HTTP status (0: no answer, transport error).
        var answers: [Int: Int] = [:]
        /// Seconds from first try to acceptance, per accepted purchase.
        var secondsToAccept: [Double] = []
        var submitted = 0
    }

    private let state = Mutex(State())

    func snapshot() -> State { state.withLock { $0 } }

    func submitted() { state.withLock { $0.submitted += 1 } }

    func answered(status: Int) { state.withLock { $0.answers[status, default: 0] += 1 } }

    func accepted(_ purchase: ChaosPurchase, job: Int64, after seconds: Double) {
        state.withLock {
            $0.accepted[job] = purchase
            $0.secondsToAccept.append(seconds)
        }
    }

    func refused(_ purchase: ChaosPurchase, status: Int) { state.withLock { $0.refused[purchase.number] = status } }

    func abandoned(_ purchase: ChaosPurchase) { state.withLock { $0.abandoned.append(purchase.number) } }
}
