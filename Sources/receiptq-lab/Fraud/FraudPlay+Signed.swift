import Foundation

/// StoreKit 2 signed transactions in the attacker's hands: the same bytes under other accounts,
/// and other bytes for the same transaction (the signature's twin, Apple's re-signature), and
/// bytes he cannot make valid (an edited payload, his own CA).
extension FraudPlay {
    /// The payer is delivered; three other accounts replay the JWS and read not-yours; the payer's
    /// resubmission is the same job.
    func jwsReplay() async throws {
        let buyer = user("payer")
        let purchase = try await store.buy(appleAccount(buyer))
        let jws = try await store.signed(purchase)
        let first = payer(buyer, "signed transaction", await backend.final(await backend.signed(jws, user: buyer)), delivers: true)
        mustGrant(purchase, to: buyer)
        for index in 1...3 {
            let mallory = attacker(index)
            attacked(mallory, "the payer's JWS", await backend.final(await backend.signed(jws, user: mallory)))
        }
        payer(buyer, "the same JWS again", resubmission(await backend.signed(jws, user: buyer), of: first), allowed: ["same job: delivered"])
    }

    /// Signature bytes are not what deduplicates: the twin signature and Apple's re-signature read
    /// not-yours for an attacker and are the payer's own job for the payer; an edited payload and
    /// another CA's signature are refused before anything is stored.
    func jwsMalleability() async throws {
        let buyer = user("payer")
        let purchase = try await store.buy(appleAccount(buyer))
        let jws = try await store.signed(purchase)
        let first = payer(buyer, "signed transaction", await backend.final(await backend.signed(jws, user: buyer)), delivers: true)
        mustGrant(purchase, to: buyer)
        guard let twin = FraudJWS.twin(of: jws) else { throw FraudError("the fake's JWS has no 64-byte ES256 signature") }
        check("the twin signature is new bytes", twin != jws && FraudJWS.twin(of: twin) == jws, "s' = n − s, and back")
        let mallory = attacker(1)
        attacked(mallory, "the twin (r, n − s)", await backend.final(await backend.signed(twin, user: mallory)),
                 allowed: Self.notYours + ["http 422"])
        let resigned = try await store.signed(purchase)   // Apple signing it again: new bytes, a later signedDate
        let other = attacker(2)
        attacked(other, "Apple's re-signature", await backend.final(await backend.signed(resigned, user: other)))
        let edited = FraudJWS.edited(jws) { $0["quantity"] = 100 } ?? ""
        attacked(mallory, "payload edited (quantity 100)", await backend.signed(edited, user: mallory), allowed: ["http 422"])
        attacked(mallory, "signed by the attacker's CA", await backend.signed(try store.foreignSigned(purchase), user: mallory),
                 allowed: ["http 422"])
        // The payer's own twin: the same transaction, so the same job (or refused, never a second job).
        payer(buyer, "the twin of their own JWS", resubmission(await backend.signed(twin, user: buyer), of: first),
              allowed: ["same job: delivered"])
    }
}
