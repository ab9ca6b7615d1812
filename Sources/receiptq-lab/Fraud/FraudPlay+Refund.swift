/// Refund, then replay: once Apple's REFUND is applied the payer reads `revoked` wherever the
/// job is shown, and nobody is delivered the refunded purchase, from the old JWS or the new one.
extension FraudPlay {
    func refundReplay() async throws {
        let buyer = user("payer")
        let purchase = try await store.buy(appleAccount(buyer))
        mustGrant(purchase, to: buyer)
        let jws = try await store.signed(purchase)
        let first = payer(buyer, "signed transaction", await backend.final(await backend.signed(jws, user: buyer)), delivers: true)
        guard let id = first.id, first.verdict == "delivered" else { return }
        // The fake POSTs REFUND to the API, a worker applies it.
        try await store.refund(purchase)
        tally.expectRevoked(purchase.transactionId)
        tally.payerJob(id, mustRead: "revoked")
        let deadline = ContinuousClock.now + .seconds(30)
        var now = await backend.status(id)
        while now.verdict != "revoked" && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(200))
            now = await backend.status(id)
        }
        payer(buyer, "reads the job after Apple's REFUND", now, allowed: ["revoked"])
        payer(buyer, "the same JWS again", resubmission(await backend.signed(jws, user: buyer), of: first), allowed: ["same job: revoked"])
        let refusals = Self.notYours + ["not_paid"]
        let early = attacker(1)
        attacked(early, "the pre-refund JWS", await backend.final(await backend.signed(jws, user: early)), allowed: refusals)
        let mallory = attacker(2)
        attacked(mallory, "the refunded JWS (Apple's current)",
                 await backend.final(await backend.signed(try await store.signed(purchase), user: mallory)), allowed: refusals + ["http 422"])
    }
}
