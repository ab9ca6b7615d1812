import Foundation

/// App receipts (the original StoreKit), played against the worker `verifier` names: a receipt
/// proves the transaction before anything is granted or looked up, and it proves it only for its
/// first submitter. The victim-first attacks submit before the victim does: a hole would have
/// granted the victim's purchase to the attacker by the time the victim arrives, and the victim
/// would read not-yours.
extension FraudPlay {
    /// What an attacker reads for a receipt that proves nothing of the victim's: refused at the
    /// door, Apple's "not authentic" or "malformed" (retried: pending), or "not in this receipt".
    static let unproven = ["http 422", "not_paid", "pending", "resubmit", "owned_by_another_user"]

    func receiptReplay() async throws {
        let buyer = user("payer")
        let purchase = try await store.buy(appleAccount(buyer))
        mustGrant(purchase, to: buyer)
        let receipt = try await store.receipt([purchase])
        let first = payer(buyer, "app receipt", await backend.final(await backend.receipt(receipt, transaction: purchase.transactionId, user: buyer)),
                          delivers: true)
        for index in 1...2 {
            let mallory = attacker(index)
            attacked(mallory, "the payer's receipt", await backend.final(await backend.receipt(receipt, transaction: purchase.transactionId, user: mallory)))
        }
        payer(buyer, "the same receipt again",
              resubmission(await backend.receipt(receipt, transaction: purchase.transactionId, user: buyer), of: first), allowed: ["same job: delivered"])
    }

    /// A leaked receipt of a token-bound purchase, submitted first by an attacker: Apple's answer
    /// (verifyReceipt's `app_account_token`, or Get Transaction Info's signed transaction) names the
    /// payer's order, so the attacker reads not-yours and nothing is granted until the payer comes.
    func receiptTokenFirst() async throws {
        let buyer = user("payer")
        let token = UUID()
        payer(buyer, "registers an order", await backend.order(user("order"), user: buyer, product: FraudStore.consumable, appAccountToken: token),
              allowed: ["http 201"])
        let purchase = try await store.buy(appleAccount(buyer), appAccountToken: token)
        mustGrant(purchase, to: buyer)
        let receipt = try await store.receipt([purchase])
        let mallory = attacker(1)
        attacked(mallory, "the payer's receipt, first", await backend.final(await backend.receipt(receipt, transaction: purchase.transactionId, user: mallory)))
        payer(buyer, "app receipt", await backend.final(await backend.receipt(receipt, transaction: purchase.transactionId, user: buyer)),
              delivers: true)
    }

    /// Bytes that prove nothing, each beside the victim's transaction id: "MAAA" (a DER sequence
    /// header and a stray byte), 40 × 0x30 (nesting), and the attacker's own genuine receipt with
    /// trailing bytes — none may be looked up on the client's word, none granted.
    func unprovableReceipts() async throws {
        let victim = user("payer")
        let purchase = try await store.buy(appleAccount(victim))
        mustGrant(purchase, to: victim)
        let mallory = attacker(1)
        let own = try await store.buy(appleAccount(mallory))
        mayGrant(own, to: mallory)
        var trailing = Array(Data(base64Encoded: try await store.receipt([own])) ?? Data())
        trailing += [0x00, 0x00, 0x30, 0x00]
        let forgeries = [("\"MAAA\"", "MAAA"), ("40 × 0x30", Data(repeating: 0x30, count: 40).base64EncodedString()),
                         ("his own receipt + trailing bytes", Data(trailing).base64EncodedString())]
        for (move, bytes) in forgeries {
            let answer = await afterAttempt(await backend.receipt(bytes, transaction: purchase.transactionId, user: mallory))
            attacked(mallory, "\(move) + the victim's transaction id", answer, allowed: Self.unproven)
        }
        payer(victim, "app receipt", await backend.final(await backend.receipt(try await store.receipt([purchase]), transaction: purchase.transactionId, user: victim)),
              delivers: true)
    }

    /// A receipt Apple did sign — for the attacker's own purchase — beside the victim's
    /// transaction id: it does not hold that transaction, so it proves nothing of it.
    func anotherPurchasesReceipt() async throws {
        let victim = user("payer")
        let purchase = try await store.buy(appleAccount(victim))
        mustGrant(purchase, to: victim)
        let mallory = attacker(1)
        let own = try await store.buy(appleAccount(mallory))
        mayGrant(own, to: mallory)
        let answer = await afterAttempt(await backend.receipt(try await store.receipt([own]), transaction: purchase.transactionId, user: mallory))
        attacked(mallory, "his own receipt + the victim's transaction id", answer, allowed: Self.unproven)
        payer(victim, "app receipt", await backend.final(await backend.receipt(try await store.receipt([purchase]), transaction: purchase.transactionId, user: victim)),
              delivers: true)
    }

    /// A well-formed receipt holding the victim's transaction, signed by the attacker's own CA.
    func foreignReceipt() async throws {
        let victim = user("payer")
        let purchase = try await store.buy(appleAccount(victim))
        mustGrant(purchase, to: victim)
        let mallory = attacker(1)
        let answer = await afterAttempt(await backend.receipt(try store.foreignReceipt([purchase]), transaction: purchase.transactionId, user: mallory))
        attacked(mallory, "a receipt from his own CA", answer, allowed: Self.unproven)
        payer(victim, "app receipt", await backend.final(await backend.receipt(try await store.receipt([purchase]), transaction: purchase.transactionId, user: victim)),
              delivers: true)
    }
}
