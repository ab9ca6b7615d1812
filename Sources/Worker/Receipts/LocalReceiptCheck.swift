import AppleSignedData

/// What verifying a receipt job on this machine found, before `LocalReceiptDecision` makes an
/// action of it. The verification itself is `LocalReceiptCheck.run` (a millisecond or so, no I/O).
public enum LocalReceiptCheck: Sendable, Equatable {
    /// Signature, Apple's chain (at the creation date) and one of our bundle ids hold.
    case verified(AppReceiptContents)
    /// The verifier refused it, and why (`provesNotAnAppleReceiptOfOurs` sorts the reasons).
    case refused(AppReceiptVerificationError.Reason)
    /// No local verification configured (`--receipt-check off`).
    case notChecked

    /// Verifies `receiptData` with `verifier`; nil verifier: `.notChecked`.
    public static func run(_ verifier: AppReceiptVerifier?, receiptData: String) async -> LocalReceiptCheck {
        guard let verifier else { return .notChecked }
        do {
            return .verified(try await verifier.verify(base64: receiptData))
        } catch let error as AppReceiptVerificationError {
            return .refused(error.reason)
        } catch {
            // The verifier throws nothing else; if it ever did, our code is the gap: ask Apple.
            return .refused(.unparsableAttribute)
        }
    }
}
