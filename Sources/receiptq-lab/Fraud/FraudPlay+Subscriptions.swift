import Foundation

/// A subscription belongs to one account for its whole life (issue 42): a receipt carries every
/// period, and an attacker who pays can renew and submit each period under a new account. Every
/// period of someone else's subscription reads not-yours, entitles nobody, and draws none of its
/// renewals or restores.
extension FraudPlay {
    func olderPeriod() async throws {
        let buyer = user("payer")
        let first = try await store.subscribe(appleAccount(buyer), seconds: 1)
        let live = try await store.renew(first, seconds: 3600)
        mustGrant(live, to: buyer)
        mustGrant(first, to: buyer)   // the payer's first grant syncs the history: the older period is theirs too
        let receipt = try await store.receipt([first, live])
        payer(buyer, "app receipt naming the live period",
              await backend.final(await backend.receipt(receipt, transaction: live.transactionId, user: buyer)), delivers: true)
        let mallory = attacker(1)
        attacked(mallory, "the payer's receipt naming the older, expired period",
                 await backend.final(await backend.receipt(receipt, transaction: first.transactionId, user: mallory)))
        attacked(mallory, "the older period's signed transaction",
                 await backend.final(await backend.signed(try await store.signed(first), user: mallory)))
        await awaitGrants([first, live], to: buyer)   // `first` only through the history sync
        let entitled = await backend.entitlements(of: mallory)
        check("an older period entitles nobody but the owner", entitled == [], "\(mallory): \(entitled.map { "\($0)" } ?? "unreadable")")
    }

    /// The attacker pays for one subscription and hands each period to a new account.
    func accountSpread() async throws {
        let owner = user("payer")
        let bought = try await store.subscribe(appleAccount(owner), seconds: 1)
        let second = try await store.renew(bought, seconds: 1)
        let third = try await store.renew(second, seconds: 3600)
        mustGrant(bought, to: owner)
        // The first grant syncs the subscription's history: every period is the owner's.
        mustGrant(second, to: owner)
        mustGrant(third, to: owner)
        payer(owner, "the first period, signed", await backend.final(await backend.signed(try await store.signed(bought), user: owner)),
              delivers: true)
        let accounts = [attacker(1), attacker(2)]
        attacked(accounts[0], "the second period, signed, under a new account",
                 await backend.final(await backend.signed(try await store.signed(second), user: accounts[0])))
        let receipt = try await store.receipt([bought, second, third])
        attacked(accounts[1], "the third period, in the receipt, under another new account",
                 await backend.final(await backend.receipt(receipt, transaction: third.transactionId, user: accounts[1])))
        // The second and third periods reach the ledger only through the first grant's history sync.
        await awaitGrants([bought, second, third], to: owner)
        var spread: [String] = []
        for account in accounts where await backend.entitlements(of: account) != [] { spread.append(account) }
        let ownerHolds = await backend.entitlements(of: owner) == [FraudStore.subscription]
        check("one subscription, one account", spread.isEmpty && ownerHolds,
              "accounts holding it besides the first: \(spread.count); the first holds it: \(ownerHolds)")
    }

    /// An attacker replays an older period after the subscriber's latest, then Apple renews: the
    /// renewal is the owner's (it went to whoever was granted last), and the attacker may not
    /// restore the subscription.
    func renewalCapture() async throws {
        let buyer = user("payer")
        let first = try await store.subscribe(appleAccount(buyer), seconds: 1)
        let second = try await store.renew(first, seconds: 1)
        mustGrant(first, to: buyer)
        mustGrant(second, to: buyer)
        payer(buyer, "the latest period, signed", await backend.final(await backend.signed(try await store.signed(second), user: buyer)),
              delivers: true)
        let mallory = attacker(1)
        let receipt = try await store.receipt([first, second])
        attacked(mallory, "the payer's receipt naming the older period",
                 await backend.final(await backend.receipt(receipt, transaction: first.transactionId, user: mallory)))
        let renewal = try await store.renew(second, seconds: 3600)   // DID_RENEW reaches the API
        mustGrant(renewal, to: buyer)
        let deadline = ContinuousClock.now + .seconds(30)
        var owner: String?
        while owner == nil && ContinuousClock.now < deadline {
            owner = try? await pool.query("SELECT user_id FROM receiptq.grants WHERE transaction_id = $1", [renewal.transactionId])
                .first?.decode("user_id", as: String.self)
            if owner == nil { try? await Task.sleep(for: .milliseconds(200)) }
        }
        check("the renewal Apple notified is granted to the owner", owner == buyer, "granted to \(owner ?? "nobody within 30 s")")
        attacked(mallory, "a restore of the subscription", await backend.restore(first.originalTransactionId, user: mallory), allowed: ["http 403"])
        let entitled = await backend.entitlements(of: mallory)
        check("the replaying account holds no entitlement", entitled == [], "\(mallory): \(entitled.map { "\($0)" } ?? "unreadable")")
    }
}
