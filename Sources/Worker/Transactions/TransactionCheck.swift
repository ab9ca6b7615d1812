import AppStore
import AppStoreServerAPI
import AppleSignedData

/// What checking one job's transaction found — locally (a StoreKit 2 signed transaction) or with
/// the App Store Server API (a transaction id) — before `TransactionDecision` makes an outcome of it.
public enum TransactionCheck: Sendable {
    /// Apple signed it and the signature, chain and claims hold. `environment`: Production or Sandbox.
    case verified(TransactionPayload, environment: String)
    /// The signed transaction was refused, and why.
    case signatureRefused(SignedDataVerificationError.Reason)
    /// The App Store Server API knows no such transaction in either environment.
    case notFoundAnywhere
    /// A receipt job (`--receipt-verifier server-api`) whose receipt provably is not Apple's
    /// for our apps: refused locally, Apple not asked.
    case receiptRefused(reason: String)
    /// A receipt job (`--receipt-verifier server-api`) whose receipt this machine could not
    /// confirm: Apple's verifyReceipt answered for it (the receipt must prove the transaction
    /// before anything grants it; the client's transaction id is never looked up on its word).
    /// `locallyValid`: the local check verified the receipt, so a 21002 is Apple's trouble.
    case verifyReceipt(VerificationResult, locallyValid: Bool)
    /// A receipt job whose locally verified receipt does not hold the client's transaction yet.
    case notInReceipt(reason: String)
    /// The App Store Server API did not give an answer we can decide on.
    case serverAPI(ServerAPIError)
}
