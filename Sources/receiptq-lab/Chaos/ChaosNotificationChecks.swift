import FakeAppStore
import Foundation
import Postgres

/// The notifications phase's invariants, checked against Apple's truth (the fake's notifications
/// and purchases, and the pairs the script signed itself), never against the database's own account.
struct ChaosNotificationChecks {
    let script: ChaosNotifications
    let pool: PostgresPool

    /// Waits until the fake has no delivery pending, nothing stored is left to apply and no job is
    /// open, or `deadline`; returns how long it waited.
    func settle(until deadline: ContinuousClock.Instant) async -> Double {
        let started = ContinuousClock.now
        while ContinuousClock.now < deadline {
            let pending = script.fake.notifications.all().contains { !$0.finished }
            if !pending, let open = try? await pool.query("""
                SELECT (SELECT count(*) FROM receiptq.notifications WHERE state IN ('queued', 'applying'))
                     + (SELECT count(*) FROM receiptq.jobs WHERE state IN ('queued', 'verifying', 'timed_out')) AS n
                """)[0].decode("n", as: Int.self), open == 0 {
                break
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
        return (ContinuousClock.now - started).seconds
    }

    func invariants() async throws -> [ChaosInvariant] {
        try await [stored(), ledger()]
    }

    /// Every notification Apple made is stored once (its UUID is the key) and applied; nothing else is stored.
    private func stored() async throws -> ChaosInvariant {
        let state = script.snapshot()
        let fakeSent = script.fake.notifications.all()
        let sent = Set(fakeSent.map { $0.notificationUUID.lowercased() } + state.crafted)
        var states: [String: String] = [:]
        var rows = 0
        for row in try await pool.query("SELECT notification_uuid::text AS uuid, state FROM receiptq.notifications") {
            states[try row.decode("uuid", as: String.self)] = try row.decode("state", as: String.self)
            rows += 1
        }
        let missing = sent.subtracting(states.keys).count
        let extra = Set(states.keys).subtracting(sent).count
        let notApplied = states.values.filter { $0 != "applied" }.count
        let gaveUp = fakeSent.filter { !$0.delivered }.count
        let retried = fakeSent.filter { $0.attempts.count > 1 }.count
        return ChaosInvariant(
            name: "every notification Apple sent stored exactly once (by UUID) and applied",
            held: sent.count >= script.target / 2 && missing == 0 && extra == 0 && notApplied == 0 && gaveUp == 0 && state.undelivered == 0,
            figure: "\(sent.count) sent (\(fakeSent.count) by the fake, \(retried) of them retried; \(state.crafted.count) in reordered pairs), "
                + "\(state.duplicatesPosted) duplicate deliveries; \(rows) stored, \(missing) missing, \(extra) unknown, \(notApplied) not applied; "
                + "\(gaveUp + state.undelivered) never answered 200; actions \(state.actions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
    }

    /// The ledger equals Apple's truth: each purchase and each renewal period granted once, to
    /// its subscriber, revoked exactly when Apple shows it refunded and not reversed.
    private func ledger() async throws -> ChaosInvariant {
        let state = script.snapshot()
        let users = Dictionary(state.subjects.map { ($0.purchase.originalTransactionId, $0.user) }) { first, _ in first }
        let truth = script.fake.purchases.all().filter { users[$0.originalTransactionId] != nil }
        var grants: [String: [(user: String, revoked: Bool)]] = [:]
        for row in try await pool.query("""
            SELECT transaction_id, user_id, revoked_at IS NOT NULL AS revoked FROM receiptq.grants WHERE transaction_id = ANY($1)
            """, [truth.map(\.transactionId)]) {
            grants[try row.decode("transaction_id", as: String.self), default: []].append(
                (try row.decode("user_id", as: String.self), try row.decode("revoked", as: Bool.self)))
        }
        var wrong: [String] = []
        for purchase in truth {
            let rows = grants[purchase.transactionId] ?? []
            guard rows.count == 1, let grant = rows.first else {
                wrong.append("\(purchase.transactionId): \(rows.count) grants")
                continue
            }
            if grant.user != users[purchase.originalTransactionId] { wrong.append("\(purchase.transactionId): granted to \(grant.user)") }
            if grant.revoked != purchase.isRevoked {
                wrong.append("\(purchase.transactionId): \(grant.revoked ? "revoked" : "not revoked") but Apple shows it \(purchase.isRevoked ? "refunded" : "paid")")
            }
        }
        let renewals = truth.filter { $0.transactionReason == "RENEWAL" }.count
        let refunded = truth.filter(\.isRevoked).count
        return ChaosInvariant(
            name: "the ledger equals Apple's truth: refunded → revoked, reversed → reinstated, each renewal period granted once to its subscriber",
            held: wrong.isEmpty && state.submissionsRefused == 0,
            figure: (wrong.isEmpty ? "" : wrong.prefix(3).joined(separator: "; ") + (wrong.count > 3 ? " (+\(wrong.count - 3)); " : "; "))
                + "\(truth.count) transactions (\(renewals) renewal periods), \(refunded) refunded now; \(state.submissionsRefused) submissions never accepted")
    }
}
