import AppStore
import ReceiptQueue

/// What a genuine receipt (Apple status 0 or 21006) means for one job — the purchase policy's
/// core, pure and table-tested. Only Apple decides "not paid"; our own bookkeeping never does:
///
/// | Apple's answer | result |
/// |---|---|
/// | the receipt's bundle id is another app's | reject: another app's receipt |
/// | no bundle id at all (an answer we cannot read) | unreadable: retry, alert |
/// | verified in the sandbox while sandbox purchases are refused (`--reject-sandbox`) | reject: no money changed hands |
/// | the transaction, in either copy, carries a cancellation date | reject: refunded or revoked by Apple |
/// | the transaction is in neither copy (or `in_app` is empty) | resubmit: the receipt predates the purchase |
/// | the transaction is there | grant Apple's product and quantity (the client's claims are only compared, for ops) |
///
/// Apple's server-side copy (`latest_receipt_info`) is read before the device's (`in_app`): only
/// it shows a refund made after the device's receipt was. The ledger then decides granted or
/// already granted (one row per purchase).
public enum ReceiptMatch {
    public struct Rules: Sendable {
        /// Bundle ids of our apps; a receipt of any other app is rejected. Never empty.
        public var bundleIDs: Set<String>
        /// Accept receipts Apple verified in the sandbox (App Review and TestFlight buy there with
        /// production builds). Default true; the grant is marked environment=Sandbox.
        public var acceptSandbox: Bool

        public init(bundleIDs: Set<String>, acceptSandbox: Bool = true) {
            self.bundleIDs = bundleIDs
            self.acceptSandbox = acceptSandbox
        }
    }

    public enum Result: Sendable, Equatable {
        case grant(GrantCandidate)
        case reject(reason: String)
        case resubmit(reason: String)
        /// The answer lacks what we need to decide (no bundle id): retry, and alert.
        case unreadable(reason: String)
    }

    public static func decide(_ response: VerifyReceiptResponse, answeredBy environment: VerifyReceiptEnvironment,
                              lease: JobLease, rules: Rules) -> Result {
        guard let receipt = response.receipt, !receipt.bundleID.isEmpty else {
            return .unreadable(reason: "Apple's answer names no bundle id")
        }
        guard rules.bundleIDs.contains(receipt.bundleID) else {
            return .reject(reason: "receipt belongs to another app (bundle id \(receipt.bundleID.prefix(100)))")
        }
        if environment == .sandbox && !rules.acceptSandbox {
            return .reject(reason: "sandbox purchases are not accepted (--reject-sandbox)")
        }
        let copies = response.latestReceiptInfo.filter { $0.transactionID == lease.transactionID }
            + receipt.inApp.filter { $0.transactionID == lease.transactionID }
        guard let transaction = copies.first else {
            return .resubmit(reason: "the receipt does not hold transaction \(lease.transactionID.prefix(64)) yet: "
                + "keep it unfinished, refresh the receipt and submit again")
        }
        if copies.contains(where: { $0.cancellationDateMs != nil }) {
            return .reject(reason: "refunded or revoked by Apple")
        }
        return .grant(GrantCandidate(
            transactionID: transaction.transactionID, originalTransactionID: transaction.originalTransactionID,
            webOrderLineItemID: transaction.webOrderLineItemID, productID: transaction.productID,
            quantity: max(transaction.quantity, 1), purchaseDateMs: transaction.purchaseDateMs,
            expiresDateMs: transaction.expiresDateMs, environment: environment.rawValue,
            ownershipType: transaction.inAppOwnershipType == "FAMILY_SHARED" ? "FAMILY_SHARED" : "PURCHASED",
            appAccountToken: copies.lazy.compactMap(\.appAccountToken).first))
    }
}
