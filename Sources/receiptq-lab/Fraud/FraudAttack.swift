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
    case receiptReplay = "receipt-replay"
    case receiptTokenFirst = "receipt-token-first"
    case unprovableReceipt = "maaa"
    case anotherPurchasesReceipt = "receipt-of-another-purchase"
    case foreignReceipt = "foreign-ca-receipt"
    case roleScheduler = "role-scheduler"
    case roleAPI = "role-api"
    case limiterLockout = "limiter-lockout"
    case openFindings = "open-findings"

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
        case .receiptReplay: "a payer's PKCS #7 app receipt replayed under 2 other accounts"
        case .receiptTokenFirst: "the payer's receipt, whose purchase Apple knows by the payer's order token, submitted first by an attacker"
        case .unprovableReceipt: "\"MAAA\", 40 × 0x30, a receipt with trailing bytes — each with a victim's transaction id, before the victim"
        case .anotherPurchasesReceipt: "the attacker's own genuine receipt with a victim's transaction id, before the victim"
        case .foreignReceipt: "a receipt holding the victim's transaction, signed by another CA, before the victim"
        case .roleScheduler: "the scheduler's login forges states, grants, events; requeues a refused replay"
        case .roleAPI: "the API's login forges states, grants, events; queues a forged JWS and a trusted claim directly"
        case .limiterLockout: "failed authentications from the backends' own address, then the valid tokens"
        case .openFindings: "(--open-findings) the scheduler's login denies a payer; the API's login vouches for an attacker's claim"
        }
    }

    /// Attacks on receipts are played against each verifier in turn.
    var perVerifier: Bool {
        [.receiptReplay, .receiptTokenFirst, .unprovableReceipt, .anotherPurchasesReceipt, .foreignReceipt].contains(self)
    }
}
