import FakeAppStore
import Foundation
import Postgres

/// One attack of one round: fresh users and purchases of its own, the backends it speaks
/// through, and the tally it reports every move to. The attacks themselves are extensions, one
/// file per family (`FraudPlay+Signed`, `+Tokens`, `+Claims`, `+Family`, `+Refund`, `+Receipts`).
struct FraudPlay: Sendable {
    let round: Int
    let attack: FraudAttack
    /// The verifier a receipt attack is pinned to.
    let verifier: FraudFleet.Verifier?
    let backend: FraudBackend
    let trusted: FraudBackend
    let store: FraudStore
    let tally: FraudTally
    /// The scratch database's owner: the ledger as ops read it.
    let pool: PostgresPool

    static let notYours = ["owned_by_another_user"]

    /// The report's row: the attack, and its verifier for receipts.
    var label: String { verifier.map { "\(attack.rawValue) @\($0.rawValue)" } ?? attack.rawValue }

    /// A user of this attack in this round (unique in the run; safe in a URL path).
    func user(_ name: String) -> String {
        "r\(round)-\(attack.rawValue)\(verifier.map { "-\($0.rawValue)" } ?? "")-\(name)"
    }

    /// The i-th attacker account of this attack.
    func attacker(_ index: Int) -> String {
        let name = user("mallory\(index)")
        tally.attacker(name)
        return name
    }

    /// The App Store account behind a user (what the fake's purchases are made by).
    func appleAccount(_ user: String) -> String { "apple-" + user }

    /// Records a payer's move. `delivers`: this is the job that must create the payer's grant
    /// (it must read `delivered` now, and at the end of the round).
    @discardableResult
    func payer(_ user: String, _ move: String, _ answer: FraudAnswer, allowed: [String] = ["delivered"], delivers: Bool = false) -> FraudAnswer {
        tally.record(.init(round: round, attack: label, actor: .payer, user: user, move: move, outcome: answer.outcome,
                           allowed: allowed, jobID: answer.id))
        if delivers, let id = answer.id {
            tally.payerJob(.init(round: round, attack: label, user: user, jobID: id, finalVerdict: "delivered"))
        }
        return answer
    }

    @discardableResult
    func attacked(_ user: String, _ move: String, _ answer: FraudAnswer, allowed: [String] = Self.notYours) -> FraudAnswer {
        tally.record(.init(round: round, attack: label, actor: .attacker, user: user, move: move, outcome: answer.outcome,
                           allowed: allowed, jobID: answer.id))
        return answer
    }

    /// The payer's purchase must end in the ledger, theirs.
    func mustGrant(_ purchase: FakePurchase, to user: String) {
        tally.expectGrant(.init(attack: label, transactionID: purchase.transactionId, user: user, required: true))
    }

    /// Waits until the ledger holds each of `purchases` (whoever it went to) or `within` has passed,
    /// then checks each is `user`'s alone, naming what is not with its jobs and history sync. For
    /// the periods a payer never submitted: the history sync their first grant queues
    /// (`grants_first_sighting`) brings them — a worker's poll claims it (every 2 s, no wake-up),
    /// the walk queues their jobs, a worker grants them: seconds on a quiet machine, more under
    /// load, 30 s more after a Server API error (`HistorySyncDecision`), a 60 s lease after a lost
    /// walk. The round's end is no bound: the ledger is read a few seconds after the attack.
    func awaitGrants(_ purchases: [FakePurchase], to user: String, within: Duration = .seconds(75)) async {
        let ids = purchases.map(\.transactionId)
        let start = ContinuousClock.now
        var holders: [String: [String]] = [:]
        while true {
            if let rows = try? await pool.query("SELECT transaction_id, user_id FROM receiptq.grants WHERE transaction_id = ANY($1)", [ids]) {
                holders = [:]
                for row in rows {
                    guard let id = try? row.decode("transaction_id", as: String.self), let holder = try? row.decode("user_id", as: String.self)
                    else { continue }
                    holders[id, default: []].append(holder)
                }
            }
            if ids.allSatisfy({ holders[$0] != nil }) || ContinuousClock.now - start >= within { break }
            try? await Task.sleep(for: .milliseconds(200))
        }
        let waited = (ContinuousClock.now - start).components.seconds
        var wrong: [String] = []
        for purchase in purchases where holders[purchase.transactionId] != [user] {
            if let held = holders[purchase.transactionId] {
                wrong.append("\(purchase.transactionId) granted to \(held.joined(separator: " and "))")
                continue
            }
            var jobs: [String] = []
            if let rows = try? await pool.query("SELECT user_id, state FROM receiptq.jobs WHERE transaction_id = $1 ORDER BY id", [purchase.transactionId]) {
                for row in rows {
                    jobs.append("\((try? row.decode("user_id", as: String.self)) ?? "?") \((try? row.decode("state", as: String.self)) ?? "?")")
                }
            }
            var sync = "none"
            if let row = (try? await pool.query("SELECT state, attempts, last_error FROM receiptq.history_syncs WHERE original_transaction_id = $1",
                                                [purchase.originalTransactionId]))?.first {
                sync = "\((try? row.decode("state", as: String.self)) ?? "?") after \((try? row.decode("attempts", as: Int.self)) ?? 0) claims"
                if let error = try? row.decodeIfPresent("last_error", as: String.self) { sync += ", last error: \(error)" }
            }
            wrong.append("\(purchase.transactionId) not in the ledger (jobs: \(jobs.isEmpty ? "none" : jobs.joined(separator: ", ")); history sync: \(sync))")
        }
        check("every period the payer paid for is granted to the payer", wrong.isEmpty,
              "\(ids.count - wrong.count)/\(ids.count) granted to \(user) after \(waited) s (at most \(within.components.seconds) s)"
                  + (wrong.isEmpty ? "" : "; " + wrong.joined(separator: "; ")))
    }

    /// The purchase may end in the ledger only as `user`'s (the attacker paid for it himself).
    func mayGrant(_ purchase: FakePurchase, to user: String) {
        tally.expectGrant(.init(attack: label, transactionID: purchase.transactionId, user: user, required: false))
    }

    /// A resubmission as its sender reads it: `same job: <verdict>` when the API answered 200
    /// with the first submission's job, else `another job: <outcome>`.
    func resubmission(_ answer: FraudAnswer, of first: FraudAnswer) -> FraudAnswer {
        var seen = answer
        seen.verdict = answer.id != nil && answer.id == first.id && answer.status == 200
            ? "same job: \(answer.verdict ?? "none")" : "another job: \(answer.outcome)"
        return seen
    }

    func check(_ name: String, _ held: Bool, _ figure: String) {
        tally.check(.init(attack: label, name: name, held: held, figure: figure))
    }

    /// The job as a backend reads it once a worker has tried it (`attempted`); an answer without
    /// a job (a 4xx) as it is.
    func afterAttempt(_ answer: FraudAnswer) async -> FraudAnswer {
        guard let id = answer.id else { return answer }
        await attempted(answer)
        return await backend.status(id)
    }

    /// Waits until a worker has tried the job at least once (it may stay pending: Apple's
    /// "malformed" is retried for hours). What a hole would have granted, it has granted by then.
    func attempted(_ answer: FraudAnswer, within: Duration = .seconds(15)) async {
        guard let id = answer.id else { return }
        let deadline = ContinuousClock.now + within
        while ContinuousClock.now < deadline {
            if let row = try? await pool.query("SELECT attempts, state FROM receiptq.jobs WHERE id = $1", [id]).first,
               let attempts = try? row.decode("attempts", as: Int.self), let state = try? row.decode("state", as: String.self),
               attempts >= 1, state != "verifying" {
                return
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }
}
