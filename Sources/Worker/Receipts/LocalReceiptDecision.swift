import AppleSignedData

/// What a receipt job's local verification leads to — pure, table-tested (events in, actions out);
/// the worker and the transaction runner only carry the action out. The line between rejecting
/// here and asking Apple is `AppReceiptVerificationError.Reason.provesNotAnAppleReceiptOfOurs`:
/// a paid purchase is never rejected for our own limitation (DESIGN: Verdicts), but a receipt
/// that is not Apple's signature, or Apple's for another app, holds no purchase of ours.
///
/// | local check | verify-receipt | local+server-api |
/// |---|---|---|
/// | refused, proof (not PKCS #7, tampered, look-alike chain, non-receipt signer, another app) | reject, no call to Apple | reject, no call to Apple |
/// | refused, our gap possible (unknown root, field or algorithm, limits, validity, receipt type) | verifyReceipt; a 21002 may be the receipt (bounded) | Get Transaction Info by the client's id |
/// | verified, holds the client's transaction | verifyReceipt; a 21002 is Apple's trouble (retried, never bounded) | Get Transaction Info by that id |
/// | verified, lacks the client's transaction | verifyReceipt (Apple's server copy may hold a later renewal) | resubmit: the receipt predates the purchase |
/// | not checked (`--receipt-check off`) | verifyReceipt as before | (not allowed: needs the check) |
///
/// With local+server-api the receipt binds the claim: only a transaction found in a receipt Apple
/// signed for our app is looked up, so a transaction id copied from someone else's purchase is
/// not granted to whoever submits it first with any receipt.
public enum LocalReceiptDecision {
    public enum Verifier: Sendable, Equatable {
        /// verifyReceipt, after the local check.
        case verifyReceipt
        /// The client's transaction id, found in the locally verified receipt, through Get Transaction Info.
        case localThenServerAPI
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
            return verifier == .verifyReceipt ? .askApple(locallyValid: false) : .lookUp(transactionID: transactionID)
        case .verified(let contents):
            guard verifier == .localThenServerAPI else { return .askApple(locallyValid: true) }
            guard contents.purchases.contains(where: { $0.transactionId == transactionID }) else {
                return .resubmit(reason: "the receipt does not hold transaction \(transactionID.prefix(64)) yet: "
                    + "keep it unfinished, refresh the receipt and submit again")
            }
            return .lookUp(transactionID: transactionID)
        }
    }
}
