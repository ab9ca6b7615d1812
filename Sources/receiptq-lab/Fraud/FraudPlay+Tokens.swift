import Foundation

/// The appAccountToken Apple signed decides whose a purchase is, whoever submits it first and
/// whatever order or token the submitter claims beside it.
extension FraudPlay {
    /// The payer's order carries the token the app set; an attacker who got the JWS submits it
    /// first and reads not-yours, nothing is granted; then the payer is delivered.
    func tokenFirst() async throws {
        let buyer = user("payer")
        let token = UUID()
        payer(buyer, "registers an order", await backend.order(user("order"), user: buyer, product: FraudStore.consumable, appAccountToken: token),
              allowed: ["http 201"])
        let purchase = try await store.buy(appleAccount(buyer), appAccountToken: token)
        let jws = try await store.signed(purchase)
        mustGrant(purchase, to: buyer)
        let mallory = attacker(1)
        attacked(mallory, "the payer's token-bound JWS, first", await backend.final(await backend.signed(jws, user: mallory)))
        payer(buyer, "signed transaction", await backend.final(await backend.signed(jws, user: buyer)), delivers: true)
        attacked(mallory, "again, after the payer", await backend.final(await backend.signed(jws, user: mallory)),
                 allowed: ["owned_by_another_user"])
    }

    /// The attacker's backend registers an order of his own and he claims its id and token beside
    /// the payer's token-bound purchase (as a JWS and as a transaction id); the order he names is
    /// never fulfilled, and an order with the payer's token is refused.
    func tokenMismatch() async throws {
        let buyer = user("payer"), mallory = attacker(1)
        let token = UUID(), own = UUID()
        let payerOrder = user("payer-order"), malloryOrder = user("mallory-order")
        payer(buyer, "registers an order", await backend.order(payerOrder, user: buyer, product: FraudStore.consumable, appAccountToken: token),
              allowed: ["http 201"])
        attacked(mallory, "registers his own order", await backend.order(malloryOrder, user: mallory, product: FraudStore.consumable, appAccountToken: own),
                 allowed: ["http 201"])
        let purchase = try await store.buy(appleAccount(buyer), appAccountToken: token)
        mustGrant(purchase, to: buyer)
        let claims = ["order_id": malloryOrder, "app_account_token": own.uuidString.lowercased()]
        attacked(mallory, "the payer's JWS, claiming his own order and token",
                 await backend.final(await backend.signed(try await store.signed(purchase), user: mallory, claims: claims)))
        attacked(mallory, "the transaction id, claiming his own order and token",
                 await backend.final(await backend.claim(purchase.transactionId, user: mallory, claims: claims)))
        attacked(mallory, "an order with the payer's token",
                 await backend.order(user("mallory-order2"), user: mallory, product: FraudStore.consumable, appAccountToken: token),
                 allowed: ["http 409"])
        payer(buyer, "signed transaction", await backend.final(await backend.signed(try await store.signed(purchase), user: buyer)), delivers: true)
        let states = try await pool.query("SELECT order_id, state FROM receiptq.orders WHERE order_id = ANY($1)", [[payerOrder, malloryOrder]])
        let state = Dictionary(uniqueKeysWithValues: try states.map { (try $0.decode("order_id", as: String.self), try $0.decode("state", as: String.self)) })
        check("the payer's order fulfilled, the attacker's untouched",
              state[payerOrder] == "fulfilled" && state[malloryOrder] == "pending",
              "payer's \(state[payerOrder] ?? "missing"), attacker's \(state[malloryOrder] ?? "missing")")
    }
}
