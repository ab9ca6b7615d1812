import Foundation

/// A restore is for owners: a bare original transaction id is a claim, so a history sync is asked
/// for only by a user who owns a purchase of it in the ledger, and it grants only what the ledger
/// or an Apple-signed order places — never a purchase of the same Apple account nobody submitted.
extension FraudPlay {
    func restoreClaim() async throws {
        let buyer = user("payer"), mallory = attacker(1)
        let purchase = try await store.buy(appleAccount(buyer))
        // Bought on the same Apple account and not submitted yet (another app account may share it).
        let unsubmitted = try await store.buy(appleAccount(buyer))
        mustGrant(purchase, to: buyer)
        mayGrant(unsubmitted, to: buyer)
        let original = purchase.originalTransactionId
        attacked(mallory, "a restore of the payer's original transaction id, before the payer",
                 await backend.restore(original, user: mallory), allowed: ["http 403"])
        payer(buyer, "signed transaction", await backend.final(await backend.signed(try await store.signed(purchase), user: buyer)), delivers: true)
        attacked(mallory, "the same restore, after the payer", await backend.restore(original, user: mallory), allowed: ["http 403"])
        payer(buyer, "the payer's own restore", await backend.restore(original, user: buyer), allowed: ["http 202"])
        // The payer's restore walks the Apple account's history; what nobody submitted stays ungranted.
        let deadline = ContinuousClock.now + .seconds(30)
        var state = ""
        while ContinuousClock.now < deadline {
            state = (try? await pool.query("SELECT state FROM receiptq.history_syncs WHERE original_transaction_id = $1", [original])
                .first?.decode("state", as: String.self)) ?? ""
            if state == "synced" || state == "failed" { break }
            try? await Task.sleep(for: .milliseconds(200))
        }
        let granted = (try? await pool.query("SELECT count(*) AS n FROM receiptq.grants WHERE transaction_id = $1", [unsubmitted.transactionId])
            .first?.decode("n", as: Int64.self)) ?? -1
        check("a restore grants nobody a purchase nobody submitted", state == "synced" && granted == 0,
              "the payer's sync \(state.isEmpty ? "not found" : state); grants of the unsubmitted purchase: \(granted)")
    }
}
