import Foundation

/// A bare transaction id is a claim, not proof: it is granted only to the owner Apple's signed
/// appAccountToken names, or when the backend token that sent it is trusted to vouch for its user.
extension FraudPlay {
    /// An attacker who learnt a transaction id claims it before the payer (resubmit, nothing
    /// granted) and after (not-yours).
    func claimTokenless() async throws {
        let buyer = user("payer"), mallory = attacker(1)
        let purchase = try await store.buy(appleAccount(buyer))
        mustGrant(purchase, to: buyer)
        attacked(mallory, "the transaction id, before the payer",
                 await backend.final(await backend.claim(purchase.transactionId, user: mallory)), allowed: ["resubmit"])
        payer(buyer, "signed transaction", await backend.final(await backend.signed(try await store.signed(purchase), user: buyer)), delivers: true)
        let other = attacker(2)
        attacked(other, "the transaction id, after the payer",
                 await backend.final(await backend.claim(purchase.transactionId, user: other)), allowed: ["owned_by_another_user", "resubmit"])
    }

    /// The token Apple signed names the payer's order: the attacker's claim reads not-yours, the
    /// payer's own claim (an untrusted backend) is delivered.
    func claimTokenBound() async throws {
        let buyer = user("payer"), mallory = attacker(1)
        let token = UUID()
        payer(buyer, "registers an order", await backend.order(user("order"), user: buyer, product: FraudStore.consumable, appAccountToken: token),
              allowed: ["http 201"])
        let purchase = try await store.buy(appleAccount(buyer), appAccountToken: token)
        mustGrant(purchase, to: buyer)
        attacked(mallory, "the token-bound transaction id, first", await backend.final(await backend.claim(purchase.transactionId, user: mallory)))
        payer(buyer, "the payer's own claim", await backend.final(await backend.claim(purchase.transactionId, user: buyer)), delivers: true)
    }

    /// A backend the operator trusts claims for its user (delivered); an attacker's claim through
    /// an untrusted backend, and a replay of the JWS, read not-yours.
    func claimTrusted() async throws {
        let buyer = user("payer"), mallory = attacker(1)
        let purchase = try await store.buy(appleAccount(buyer))
        mustGrant(purchase, to: buyer)
        payer(buyer, "trusted backend's claim", await trusted.final(await trusted.claim(purchase.transactionId, user: buyer)), delivers: true)
        attacked(mallory, "the transaction id (untrusted backend)", await backend.final(await backend.claim(purchase.transactionId, user: mallory)),
                 allowed: ["owned_by_another_user", "resubmit"])
        attacked(mallory, "the payer's JWS", await backend.final(await backend.signed(try await store.signed(purchase), user: mallory)))
    }
}
