/// App transactions: a customer who paid for the app before it went free holds that for one
/// account only. The same signed AppTransaction under other accounts is refused, and they hold
/// none; an edited one is refused before anything is stored.
extension FraudPlay {
    func appTransactionSpread() async throws {
        let early = user("paid-download")
        let jws = try await store.appTransaction(appleAccount(early), originalApplicationVersion: "0.9")
        payer(early, "the app's AppTransaction", await backend.appTransaction(jws, user: early), allowed: ["http 201"])
        payer(early, "the same AppTransaction again", await backend.appTransaction(jws, user: early), allowed: ["http 200"])
        for index in 1...3 {
            let mallory = attacker(index)
            attacked(mallory, "the payer's AppTransaction", await backend.appTransaction(jws, user: mallory), allowed: ["http 403"])
            let held = await backend.appTransactionCount(of: mallory)
            attacked(mallory, "reads its app transactions", FraudAnswer(status: 200, verdict: held.map { "holds \($0)" } ?? "unreadable"),
                     allowed: ["holds 0"])
        }
        let edited = FraudJWS.edited(jws) { $0["originalApplicationVersion"] = "0.1" } ?? jws
        let forger = attacker(4)
        attacked(forger, "an AppTransaction edited to an older version", await backend.appTransaction(edited, user: forger), allowed: ["http 422"])
        payer(early, "reads its app transactions",
              FraudAnswer(status: 200, verdict: await backend.appTransactionCount(of: early).map { "holds \($0)" } ?? "unreadable"),
              allowed: ["holds 1"])
    }
}
