import Synchronization

/// Everything a fraud run's attacks sent and were told, and what the ledger must hold afterwards:
/// the invariants are checked against this, the threat model's account, never against the
/// product's own.
final class FraudTally: Sendable {
    enum Actor: String, Sendable, Codable { case payer, attacker }

    /// One submission, or one forged statement, and what came of it.
    struct Submission: Sendable, Codable {
        var round: Int
        var attack: String
        var actor: Actor
        var user: String
        /// What was sent, in a few words.
        var move: String
        /// What the app (or the role) was told: a verdict, `http <status>`, or a role's refusal.
        var outcome: String
        /// The outcomes the threat model allows here.
        var allowed: [String]
        var jobID: Int64?

        var asExpected: Bool { allowed.contains(outcome) }
    }

    /// A purchase the ledger may hold, and whose it must be.
    struct Grant: Sendable, Codable {
        var attack: String
        var transactionID: String
        var user: String
        /// The payer submitted it with proof: it must be in the ledger (else it only may be).
        var required: Bool
        var revoked = false
    }

    /// A payer's delivering job, and what it must read at the end of its round.
    struct PayerJob: Sendable, Codable {
        var round: Int
        var attack: String
        var user: String
        var jobID: Int64
        var finalVerdict: String
    }

    /// A check an attack makes beyond verdicts (an order left alone, a lookup never made).
    struct Check: Sendable, Codable {
        var attack: String
        var name: String
        var held: Bool
        var figure: String
    }

    /// A job read again at the end of its round (after the role abuse), as a backend polling it would.
    struct Reread: Sendable, Codable {
        var round: Int
        var attack: String
        var actor: Actor
        var user: String
        var jobID: Int64
        var verdict: String
        /// What it had to read: the payer's `delivered` (or `revoked`), an attacker's anything not owning.
        var held: Bool
    }

    struct State: Sendable, Codable {
        var submissions: [Submission] = []
        var rereads: [Reread] = []
        var grants: [String: Grant] = [:]
        var payerJobs: [PayerJob] = []
        var attackers: Set<String> = []
        var checks: [Check] = []
    }

    private let state = Mutex(State())

    func snapshot() -> State { state.withLock { $0 } }

    func record(_ submission: Submission) { state.withLock { $0.submissions.append(submission) } }

    func reread(_ reread: Reread) { state.withLock { $0.rereads.append(reread) } }

    func attacker(_ user: String) { state.withLock { _ = $0.attackers.insert(user) } }

    func payerJob(_ job: PayerJob) { state.withLock { $0.payerJobs.append(job) } }

    /// From now on the payer's job must read `verdict` (a refund: `revoked`).
    func payerJob(_ jobID: Int64, mustRead verdict: String) {
        state.withLock { state in
            for index in state.payerJobs.indices where state.payerJobs[index].jobID == jobID { state.payerJobs[index].finalVerdict = verdict }
        }
    }

    func expectGrant(_ grant: Grant) { state.withLock { $0.grants[grant.transactionID] = grant } }

    func expectRevoked(_ transactionID: String) { state.withLock { $0.grants[transactionID]?.revoked = true } }

    func check(_ check: Check) { state.withLock { $0.checks.append(check) } }
}
