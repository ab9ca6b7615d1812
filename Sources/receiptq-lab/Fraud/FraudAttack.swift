/// The attacks of the threat model (DESIGN: Ownership), one row each in the report. An app user
/// controls their device, their traffic and every byte the app sends; a backend token holder is
/// trusted; Apple's signature proves payment and the appAccountToken, never which app account
/// submitted the bytes.
enum FraudAttack: String, Sendable, Codable, CaseIterable {
    case jwsReplay = "jws-replay"
    case jwsMalleability = "jws-malleability"
    case tokenFirst = "token-first"
    case tokenMismatch = "token-mismatch"
    case claimTokenless = "claim-tokenless"
    case claimTokenBound = "claim-token-bound"
    case claimTrusted = "claim-trusted"
    case familyReplay = "family-replay"
    case refundReplay = "refund-replay"
    case restoreClaim = "restore-claim"
    case olderPeriod = "older-period"
    case accountSpread = "account-spread"
    case renewalCapture = "renewal-capture"
    case appTransactionSpread = "app-transaction-spread"
    case receiptReplay = "receipt-replay"
    case receiptTokenFirst = "receipt-token-first"
    case unprovableReceipt = "maaa"
    case anotherPurchasesReceipt = "receipt-of-another-purchase"
    case foreignReceipt = "foreign-ca-receipt"
    case roleScheduler = "role-scheduler"
    case roleAPI = "role-api"
    case limiterLockout = "limiter-lockout"

    /// What the attacker does, for the report.
    var summary: String {
        switch self {
        case .jwsReplay: "a payer's signed transaction replayed under 3 other accounts"
        case .jwsMalleability: "the JWS with its signature's twin (r, n − s) by an attacker and by the payer; re-signed by Apple; payload edited; signed by another CA"
        case .tokenFirst: "Apple's signed appAccountToken names the payer's order; an attacker submits it first"
        case .tokenMismatch: "the attacker claims his own order and token for the payer's purchase, and registers an order with the payer's token"
        case .claimTokenless: "a transaction id without proof (untrusted token), before and after the payer"
        case .claimTokenBound: "a transaction id whose Apple-signed token names the payer's order; the payer's own claim"
        case .claimTrusted: "a trusted backend claims for its user; attackers claim and replay it"
        case .familyReplay: "a family member's shared transaction replayed under other accounts (and by the purchaser)"
        case .refundReplay: "Apple refunds; the payer reads revoked; attackers replay the old and the refunded JWS"
        case .restoreClaim: "a restore of the payer's original transaction id, before and after the payer; the payer's own restore beside a purchase nobody submitted"
        case .olderPeriod: "the payer's receipt (every period of a subscription) replayed under another account, naming an older, expired period"
        case .accountSpread: "a paying attacker renews twice and submits each period under a new account, signed and in a receipt"
        case .renewalCapture: "an attacker replays a subscriber's older period, then Apple renews and the attacker restores"
        case .appTransactionSpread: "a customer who paid for the app before it went free submits their AppTransaction under 3 more accounts, and an edited one"
        case .receiptReplay: "a payer's PKCS #7 app receipt replayed under 2 other accounts"
        case .receiptTokenFirst: "the payer's receipt, whose purchase Apple knows by the payer's order token, submitted first by an attacker"
        case .unprovableReceipt: "\"MAAA\", 40 × 0x30, a receipt with trailing bytes — each with a victim's transaction id, before the victim"
        case .anotherPurchasesReceipt: "the attacker's own genuine receipt with a victim's transaction id, before the victim"
        case .foreignReceipt: "a receipt holding the victim's transaction, signed by another CA, before the victim"
        case .roleScheduler: "the scheduler's login forges states, grants, events; requeues a refused replay; turns a payer's delivered job rejected"
        case .roleAPI: "the API's login forges states, grants, events; queues a forged JWS and trusted claims directly (no token, an untrusted one)"
        case .limiterLockout: "failed authentications from the backends' own address, then the valid tokens"
        }
    }

    /// What stops it, and what every attacker must read (docs/threat-model.md): the row passes
    /// when every move read what this allows, the ledger granted each paid purchase to its payer
    /// only, and every payer was delivered.
    var defence: String {
        switch self {
        case .jwsReplay: "dedupe per user, ownership in the ledger: each replay reads owned_by_another_user; only the payer is granted"
        case .jwsMalleability: "dedupe on Apple's transaction id, not signature bytes: twin and re-signature read owned_by_another_user (the payer's own twin is the payer's job); edited or foreign-signed JWS get 422"
        case .tokenFirst: "the order the Apple-signed token names decides: the attacker reads owned_by_another_user, nothing granted until the payer comes"
        case .tokenMismatch: "the signed token outranks claimed orders: owned_by_another_user; an order with someone else's token gets 409"
        case .claimTokenless: "a claim is not proof: resubmit before the payer, owned_by_another_user after"
        case .claimTokenBound: "Apple's signed token names the payer's order: the attacker reads owned_by_another_user, the payer's claim is delivered"
        case .claimTrusted: "the trusted backend's grant is its user's: attackers read owned_by_another_user"
        case .familyReplay: "each member's shared transaction is a purchase of its own, granted once: replays read owned_by_another_user"
        case .refundReplay: "revocations in the ledger: the payer reads revoked, replays read owned_by_another_user or not_paid"
        case .restoreClaim: "only an owner of a purchase of the original transaction may ask (403 purchase-not-owned); a sync grants only what the ledger or a signed order places"
        case .olderPeriod: "one owner per original transaction: any period of someone else's subscription reads owned_by_another_user; no entitlement"
        case .accountSpread: "one owner per original transaction: the first account holds the subscription, every later one reads owned_by_another_user"
        case .renewalCapture: "renewals go to the original transaction's owner (DID_RENEW, history syncs); the replaying account may not restore (403)"
        case .appTransactionSpread: "one user per app transaction: later accounts get 403 app-transaction-not-owned and hold none; an edited one gets 422"
        case .receiptReplay: "dedupe per user, ownership in the ledger: replays read owned_by_another_user"
        case .receiptTokenFirst: "Apple's answer carries the payer's token: the attacker reads owned_by_another_user, no grant"
        case .unprovableReceipt: "a receipt must prove the transaction: pending or 422, never a grant; the victim is delivered after"
        case .anotherPurchasesReceipt: "the receipt must hold the claimed transaction: resubmit, never the victim's grant"
        case .foreignReceipt: "receipts must chain to Apple's root: 422"
        case .roleScheduler: "role privileges: grants, events, ledger writes and verdict states refused (42501/23514); whatever it may write leaves every verdict as it was"
        case .roleAPI: "role privileges: grants, events and states refused (42501); a forged JWS it queues fails in the worker; a claim it marks trusted without a trusted backend's token is a plain claim (owned_by_another_user, resubmit)"
        case .limiterLockout: "the token is checked first, failures limited per peer and credential: attackers get 401/429, the valid tokens 200"
        }
    }

    /// Attacks on receipts are played against each verifier in turn.
    var perVerifier: Bool {
        [.receiptReplay, .receiptTokenFirst, .unprovableReceipt, .anotherPurchasesReceipt, .foreignReceipt].contains(self)
    }
}
