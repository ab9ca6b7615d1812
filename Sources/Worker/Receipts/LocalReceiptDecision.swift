import AppleSignedData

/// What a receipt job's local verification leads to — pure, table-tested (events in, actions out);
/// the worker and the transaction runner only carry the action out. The line between rejecting
/// here and asking Apple is `AppReceiptVerificationError.Reason.provesNotAnAppleReceiptOfOurs`:
/// a paid purchase is never rejected for our own limitation (DESIGN: Verdicts), but a receipt
/// that is not Apple's signature, or Apple's for another app, holds no purchase of ours.
///
/// | local check | verify-receipt | server-api |
/// |---|---|---|
/// | refused, proof (not PKCS #7, tampered, look-alike chain, non-receipt signer, another app) | reject, no call to Apple | reject, no call to Apple |
/// | refused, our gap possible (unknown root, field or algorithm, limits, validity, receipt type) | verifyReceipt; a 21002 may be the receipt (bounded) | verifyReceipt, as on the left |
/// | verified, holds the client's transaction | verifyReceipt; a 21002 is Apple's trouble (retried, never bounded) | Get Transaction Info by that id |
/// | verified, lacks the client's transaction | verifyReceipt (Apple's server copy may hold a later renewal) | resubmit: the receipt predates the purchase |
/// | not checked (`--receipt-check off`) | verifyReceipt as before | (not allowed: needs the check) |
///
/// The receipt proves the transaction before anything else is asked (DESIGN: Ownership): the
/// App Store Server API is asked only about a transaction found in a receipt Apple signed for our
/// app, so a transaction id copied from someone else's purchase is never looked up on the word of
/// a receipt that does not hold it; a receipt this machine cannot confirm goes to Apple's
/// verifyReceipt, which proves it or not — never to a lookup of the client's claim.
public enum LocalReceiptDecision {
    public enum Verifier: Sendable, Equatable {
        /// verifyReceipt, after the local check.
        case verifyReceipt
        /// The client's transaction id, once found in the locally verified receipt, through Get
        /// Transaction Info; verifyReceipt for a receipt this machine cannot confirm.
        case serverAPI
    }

    public enum Action: Sendable, Equatable {
        /// Record `rejected`; Apple is not asked.
        case reject(reason: String)
        /// Ask verifyReceipt. `locallyValid`: the receipt verified here, so a 21002 is Apple's trouble.
        case askApple(locallyValid: Bool)
        /// Get Transaction Info for this id.
        case lookUp(transactionID: String)
        /// Record `resubmit`: the verified receipt does not hold the client's transaction yet.
        case resubmit(reason: String)
    }

    public static func decide(_ check: LocalReceiptCheck, transactionID: String, verifier: Verifier) -> Action {
        switch check {
        case .refused(let reason) where reason.provesNotAnAppleReceiptOfOurs:
            return .reject(reason: "not an app receipt Apple signed for this app (checked locally: \(AppReceiptVerificationError(reason).reasonSummary))")
        case .refused, .notChecked:
            return .askApple(locallyValid: false)
        case .verified(let contents):
            guard verifier == .serverAPI else { return .askApple(locallyValid: true) }
            guard contents.purchases.contains(where: { $0.transactionId == transactionID }) else {
                return .resubmit(reason: "the receipt does not hold transaction \(transactionID.prefix(64)) yet: "
                    + "keep it unfinished, refresh the receipt and submit again")
            }
            return .lookUp(transactionID: transactionID)
        }
    }
}
